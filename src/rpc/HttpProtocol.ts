import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { RpcSerialization, RpcServer } from "@effect/rpc"
import { type FromClientEncoded, type FromServerEncoded, RequestId, ResponseDefectEncoded } from "@effect/rpc/RpcMessage"
import { Deferred, Effect, FiberId, Mailbox, Option, Scope, Stream } from "effect"
import type { Mutable } from "effect/Types"
import { malformedJson, maxJsonDepth, nestsWithin } from "../kernel/Json.js"

/**
 * `@effect/rpc`'s protocol over HTTP (one POST an exchange, NDJSON), built with its public
 * `Protocol.make` as `RpcServer.toHttpApp` builds its own, with two bounds (issue 44):
 *
 * - **Back-pressure.** An exchange's answer goes out through a hand-off of one message: a
 *   message is offered when the answer's body has taken the previous one (the socket accepted
 *   it), and its `send` returns only once it was taken. A stream's next page is therefore read,
 *   and charged, only after the previous one went to the socket, and a call holds its slot in
 *   flight until its last message left. The library's own protocol queues every message in
 *   memory however slowly the client reads: a client that never read kept whole exports in the
 *   heap.
 * - **The body's limits.** The body is read through the service's bounded request
 *   (`MAX_BODY_BYTES`, app/RequestBody.ts), and a message nested deeper than a REST body may be
 *   (`maxJsonDepth`, one level more for the message around the payload) is refused before it is
 *   parsed, and a body that is not NDJSON after it: `refuse` answers the exchange as a REST route
 *   answers such a body.
 */

/** What the exchange's answer is when its body is refused before any message is read. */
export type RefuseBody = (reason: string) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>

/** One message of an answer and the signal that the answer's body took it. */
interface Handed {
  readonly bytes: Uint8Array
  readonly taken: Deferred.Deferred<void>
}

interface Client {
  readonly send: (message: FromServerEncoded) => Effect.Effect<void>
  readonly end: Effect.Effect<void>
}

const encoder = new TextEncoder()
const bytesOf = (encoded: string | Uint8Array) => (typeof encoded === "string" ? encoder.encode(encoded) : encoded)

/** The deepest a message line may nest: a REST body's limit, and one level for the message around the payload. */
export const maxMessageDepth = maxJsonDepth + 1

export const makeHttpProtocol = (refuse: RefuseBody) =>
  Effect.gen(function*() {
    const serialization = yield* RpcSerialization.RpcSerialization
    const disconnects = yield* Mailbox.make<number>()
    let writeRequest!: (clientId: number, message: FromClientEncoded) => Effect.Effect<void>
    let nextId = 0
    const clients = new Map<number, Client>()

    const protocol = yield* RpcServer.Protocol.make((write) => {
      writeRequest = write
      return Effect.succeed({
        disconnects,
        send: (clientId, response) => clients.get(clientId)?.send(response) ?? Effect.void,
        end: (clientId) => clients.get(clientId)?.end ?? Effect.void,
        clientIds: Effect.sync(() => new Set(clients.keys())),
        initialMessage: Effect.succeedNone,
        supportsAck: false,
        supportsTransferables: false,
        supportsSpanPropagation: false
      })
    })

    const httpApp = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const scope = yield* Effect.scope
      // The bounded request's refusal (413, a broken body) is the service's conventions' to answer, as on REST.
      const body = yield* Effect.orDie(request.text)
      const lines = body.split("\n")
      if (lines.some((line) => !nestsWithin(line, maxMessageDepth))) {
        return yield* refuse(`Malformed request body: JSON nested deeper than ${maxJsonDepth} levels`)
      }
      const parser = serialization.unsafeMake()
      const messages = (() => {
        try {
          return parser.decode(body) as ReadonlyArray<FromClientEncoded>
        } catch {
          return undefined
        }
      })()
      if (messages === undefined) return yield* refuse(malformedJson)
      const id = nextId++
      const outbox = yield* Mailbox.make<Handed>({ capacity: 1, strategy: "suspend" })
      /** Handed over and not yet taken: released all at once when the exchange ends (its client gone). */
      const pending = new Set<Handed>()
      const requestIds: Array<RequestId> = []
      const send = (message: FromServerEncoded) =>
        Effect.suspend(() => {
          let encoded: string | Uint8Array | undefined
          try {
            encoded = parser.encode(message)
          } catch (cause) {
            encoded = parser.encode(ResponseDefectEncoded(cause))
          }
          if (encoded === undefined) return Effect.void
          const handed: Handed = { bytes: bytesOf(encoded), taken: Deferred.unsafeMake(FiberId.none) }
          pending.add(handed)
          // (No race with the client's going: the server sends its answers where interruption is off,
          // and a race would wait for its loser's interruption. The exchange's end releases them.)
          return outbox.offer(handed).pipe(
            Effect.flatMap((offered) => (offered ? Deferred.await(handed.taken) : Effect.void)),
            Effect.ensuring(Effect.sync(() => pending.delete(handed)))
          )
        })
      clients.set(id, { send, end: outbox.end })
      yield* Scope.addFinalizerExit(scope, () =>
        Effect.gen(function*() {
          clients.delete(id)
          yield* disconnects.offer(id)
          // Ended before its answer was: the client went; its calls are interrupted. (The server
          // answers a message after the exchange's end with an interruption of its own: not ours.)
          if (Option.isSome(outbox.unsafeSize())) {
            yield* Effect.forEach(requestIds, (requestId) => Effect.exit(writeRequest(id, { _tag: "Interrupt", requestId: String(requestId) })), { discard: true })
          }
          yield* outbox.shutdown
          yield* Effect.forEach(pending, (handed) => Deferred.succeed(handed.taken, undefined), { discard: true })
        }))

      for (const message of messages) {
        if (message._tag === "Request") {
          requestIds.push(RequestId(message.id))
          // The exchange's HTTP headers (the key, the rate notes' id) go with each call, as the library's protocol sends them.
          ;(message as Mutable<typeof message>).headers = Object.entries(request.headers).concat(message.headers)
        }
        yield* writeRequest(id, message)
      }
      yield* writeRequest(id, { _tag: "Eof" })

      const take = (handed: Handed) => Effect.as(Deferred.succeed(handed.taken, undefined), handed.bytes)
      const [first, done] = yield* outbox.takeAll
      const head = yield* Effect.forEach(first, take)
      if (done) return HttpServerResponse.uint8Array(Buffer.concat(head), { contentType: serialization.contentType })
      return HttpServerResponse.stream(
        Stream.concat(Stream.fromIterable(head), Stream.mapEffect(Mailbox.toStream(outbox), take)),
        { contentType: serialization.contentType }
      )
    }).pipe(Effect.interruptible)

    return { protocol, httpApp } as const
  })

