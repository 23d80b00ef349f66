import { serveThread } from "../../src/platform/Threads.js"

/** A thread for `test/threads.test.ts`: doubles a number, refuses a negative one. */
serveThread((n: number) => {
  if (n < 0) throw new Error(`${n} is negative`)
  return n * 2
})
