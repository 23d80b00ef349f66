import { serveThread } from "../../src/platform/ServeThread.js"

/**
 * A thread for `test/threads.test.ts`: doubles a number, refuses a negative one, ends itself
 * on 13 (a thread that dies), and doubles the numbers of an array in place, moving it back.
 */
serveThread((n: number | Int32Array<ArrayBuffer>) => {
  if (typeof n !== "number") return n.map((x) => x * 2)
  if (n === 13) process.exit(13)
  if (n < 0) throw new Error(`${n} is negative`)
  return n * 2
}, (output) => typeof output === "number" ? [] : [output.buffer])
