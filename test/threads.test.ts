import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { drawHashes } from "../src/demo/CreativeThread.js"
import { lazyThreadOf, siblingModule, ThreadFailed, threadOf } from "../src/platform/Threads.js"

/** Work on a thread of its own (issue 29): the demo's creatives are drawn on one beside the trend count. */
describe("threads", () => {
  it.scoped("a thread answers each request in turn; an error in one fails that request only", () =>
    Effect.gen(function*() {
      const thread = yield* threadOf<number, number>(siblingModule(import.meta.url, "support/DoublingThread"))
      expect(yield* Effect.all([thread.run(21), thread.run(0), thread.run(4)], { concurrency: "unbounded" })).toEqual([42, 0, 8])
      const refused = yield* Effect.flip(thread.run(-1))
      expect(refused).toBeInstanceOf(ThreadFailed)
      expect(refused.cause).toBe("Error: -1 is negative")
      expect(yield* thread.run(5)).toBe(10)
    }))

  it.scoped("typed arrays move to the thread and back rather than being copied", () =>
    Effect.gen(function*() {
      const thread = yield* threadOf<Int32Array<ArrayBuffer>, Int32Array<ArrayBuffer>>(siblingModule(import.meta.url, "support/DoublingThread"))
      const sent = Int32Array.from([1, 2, 3])
      const doubled = yield* thread.run(sent, [sent.buffer])
      // Moved: the sender's array is empty once sent.
      expect(sent.length).toBe(0)
      expect([...doubled]).toEqual([2, 4, 6])
    }))

  it.scoped("a thread that dies fails what it was asked and all after; a lazy thread starts again at the next request", () =>
    Effect.gen(function*() {
      const thread = yield* threadOf<number, number>(siblingModule(import.meta.url, "support/DoublingThread"))
      expect(yield* Effect.flip(thread.run(13))).toBeInstanceOf(ThreadFailed)
      expect(yield* Effect.flip(thread.run(1))).toBeInstanceOf(ThreadFailed)

      const lazy = yield* lazyThreadOf<number, number>(siblingModule(import.meta.url, "support/DoublingThread"))
      expect(yield* lazy.run(4)).toBe(8)
      expect(yield* Effect.flip(lazy.run(13))).toBeInstanceOf(ThreadFailed)
      expect(yield* lazy.run(5)).toBe(10)
    }))

  it.scoped("creatives drawn on a thread hash exactly as on the main thread", () =>
    Effect.gen(function*() {
      const thread = yield* threadOf<{ seeds: Array<number>; noises: Array<number> }, BigInt64Array>(
        siblingModule(new URL("../src/demo/DemoData.ts", import.meta.url).href, "CreativeThread")
      )
      const drawing = { seeds: [1, 2, 3, 2 ** 31 - 1, 12_345], noises: [0, 4, 5, 6, 7] }
      const hashes = yield* thread.run(drawing)
      expect(hashes).toHaveLength(10)
      expect([...hashes]).toEqual([...drawHashes(drawing)])
    }))

  it.scoped("a module that cannot load fails its requests", () =>
    Effect.gen(function*() {
      const thread = yield* threadOf<number, number>(siblingModule(import.meta.url, "support/NoSuchThread"))
      expect(yield* Effect.flip(thread.run(1))).toBeInstanceOf(ThreadFailed)
    }))
})
