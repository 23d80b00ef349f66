import { HttpServerRequest } from "@effect/platform"
import { Rpc, RpcGroup, RpcSerialization, RpcServer } from "@effect/rpc"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Exit, Schema, Scope, Stream } from "effect"
import { makeHttpProtocol } from "../src/rpc/HttpProtocol.js"

/**
 * The back-pressure of `/rpc`'s protocol (src/rpc/HttpProtocol.ts; issue 44) with the real RPC
 * server and a stream whose pages are counted as they are read: a page is read (and so, in
 * `ExportSearch`, charged) only once the answer's body has taken the one before. An exchange's
 * answer is a body stream the test pulls, or never pulls: a client that reads nothing.
 */

const pageSize = 10_000
const pages = 100

const Pages = Rpc.make("Pages", { payload: Schema.Struct({}), success: Schema.String, stream: true })
const group = RpcGroup.make(Pages)

/** The server with its protocol, and the count of pages its stream has read so far. */
const served = Effect.gen(function*() {
  let read = 0
  const handlers = group.toLayer({
    Pages: () => Stream.take(Stream.repeatEffect(Effect.sync(() => (read++, "x".repeat(pageSize)))), pages)
  })
  const { httpApp, protocol } = yield* makeHttpProtocol(() => Effect.dieMessage("no body is refused here"))
  yield* RpcServer.make(group).pipe(
    Effect.provideService(RpcServer.Protocol, protocol),
    Effect.provide(handlers),
    Effect.interruptible,
    Effect.forkScoped
  )
  /** One exchange asking for the pages, in `scope`: its answer's body, not yet read. */
  const exchange = (scope: Scope.Scope) =>
    Effect.gen(function*() {
      const request = HttpServerRequest.fromWeb(new Request("http://localhost/rpc", {
        method: "POST",
        headers: { "content-type": "application/ndjson" },
        body: `{"_tag":"Request","id":"0","tag":"Pages","payload":{},"headers":[]}\n`
      }))
      const response = yield* Scope.extend(Effect.provideService(httpApp, HttpServerRequest.HttpServerRequest, request), scope)
      if (response.body._tag !== "Stream") return yield* Effect.dieMessage(`a streamed answer, not ${response.body._tag}`)
      return response.body.stream
    })
  return { exchange, read: () => read }
}).pipe(Effect.provide(RpcSerialization.layerNdjson))

/** Lets the server's fibers run as far as they can (they wait on nothing but the answer's body). */
const settle = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))

describe("/rpc's protocol under a client that does not read (issue 44)", () => {
  it.scopedLive("a page is read only once the body took the one before; all of them when the client reads them all", () =>
    Effect.gen(function*() {
      const { exchange, read } = yield* served
      const scope = yield* Scope.make()
      const body = yield* exchange(scope)
      yield* settle
      // The first page went with the answer's head, one more waits to be taken: nothing else is read.
      expect(read()).toBeLessThanOrEqual(2)
      const firstBytes = yield* Stream.runCollect(Stream.take(body, 5))
      yield* settle
      expect(Chunk.size(firstBytes)).toBe(5)
      expect(read()).toBeLessThanOrEqual(5 + 2)
      yield* Scope.close(scope, Exit.void)
      const all = yield* Effect.scoped(Effect.flatMap(Effect.scope, (whole) =>
        Effect.flatMap(exchange(whole), (stream) => Stream.runFold(stream, 0, (n, bytes) => n + new TextDecoder().decode(bytes).split("\n").filter((l) => l.includes("Chunk")).length))))
      expect(all).toBe(pages)
    }))

  it.scopedLive("40 clients that read nothing hold at most two pages each on the server, not their whole streams", () =>
    Effect.gen(function*() {
      const { exchange, read } = yield* served
      const scope = yield* Scope.make()
      yield* Effect.forEach(Array.from({ length: 40 }), () => exchange(scope), { concurrency: 8 })
      yield* settle
      expect(read()).toBeGreaterThanOrEqual(40)
      expect(read()).toBeLessThanOrEqual(40 * 2)
      yield* Scope.close(scope, Exit.void)
    }))
})


