import { Chunk, Clock, Effect, Option, Queue, TestClock } from "effect"
import { makeClient } from "../../src/rpc.js"
import { eventually as eventuallyReal } from "./StreamingReplicas.js"
import { call, TestServer } from "./TestServer.js"

// What the tests of `/rpc` share (test/rpc.test.ts, test/rpcAbuse.test.ts).

type Json = Record<string, any>

/**
 * Waits until some fiber sleeps until `ms` after the TestClock's now: a stream that looked and
 * waits for its next look. Checked every 10 ms of real time (the server answers in real time).
 */
export const untilSleepingFor = (ms: number) =>
  Effect.gen(function*() {
    for (let tries = 0; tries < 1_000; tries++) {
      const now = yield* Clock.currentTimeMillis
      if (Chunk.some(yield* TestClock.sleeps(), (at) => at === now + ms)) return
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
    }
    return yield* Effect.dieMessage(`No fiber came to sleep for ${ms} ms`)
  })

/**
 * The next item of `queue`, moving the TestClock a second at a time until one comes (at most a
 * minute of it): on a loaded machine the stream may not yet sleep for its next look when the
 * test first moves the clock, and another fiber's sleep may have answered \`untilSleepingFor\`.
 */
export const takeAdvancing = <A>(queue: Queue.Queue<A>) =>
  Effect.gen(function*() {
    for (let seconds = 0; seconds < 60; seconds++) {
      yield* TestClock.adjust("1 second")
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      const item = yield* Queue.poll(queue)
      if (Option.isSome(item)) return item.value
    }
    return yield* Effect.dieMessage("Nothing came in a minute of the TestClock")
  })

/** `eventually` on the real clock: it polls what PostgreSQL and the server show in real time (the TestClock stays still). */
export const eventually = <A, E, R>(read: Effect.Effect<A, E, R>, holds: (a: A) => boolean) =>
  Effect.withClock(eventuallyReal(read, holds), Clock.make())

/** A typed client of the test server with `key`, living as long as the test's scope. */
export const clientFor = (key: string) => Effect.flatMap(TestServer, ({ url }) => makeClient(url, key))

/** One NDJSON exchange with `/rpc` by plain fetch: the calls' request lines, the answer as it arrives. */
export const rpcExchange = (key: string | null, calls: ReadonlyArray<{ readonly tag: string; readonly payload: Json }>) =>
  call("/rpc", {
    method: "POST",
    headers: { "content-type": "application/ndjson", ...(key === null ? {} : { "X-API-Key": key }) },
    body: calls.map(({ payload, tag }, id) => JSON.stringify({ _tag: "Request", id: String(id), tag, payload, headers: [] }) + "\n").join("")
  })

