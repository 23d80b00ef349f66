import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as Headers from "@effect/platform/Headers"
import { Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import type { RateWindow } from "../access/gateway/Api.js"
import { withRateHeaders } from "../access/gateway/Http.js"

/**
 * The rate-limit fields (G5) on `/rpc`'s HTTP answers. An exchange (one POST, one or more calls)
 * gets one answer, built by `@effect/rpc` when its first message is ready, after that call's
 * admission. Each admission of the exchange notes its rate window here, under a random id the
 * exchange's request carries in `exchangeHeader` (the calls run on the RPC server's fibers, not
 * the request's); the answer carries the latest window noted, like a REST answer carries its own
 * call's. A refusal past the window adds `Retry-After` (its seconds), one past the calls in flight
 * `Retry-After: 1`, as on REST; a refusal without a window (401, 403) notes nothing.
 */

/** The request header naming an exchange's notes (set here; a client's own value is replaced). */
export const exchangeHeader = "x-adintel-rpc-exchange"

interface Note {
  readonly rate: Option.Option<RateWindow>
  readonly retryAfter: Option.Option<number>
}

const empty: Note = { rate: Option.none(), retryAfter: Option.none() }

export class RpcRateNotes extends Effect.Service<RpcRateNotes>()("adintel/RpcRateNotes", {
  sync: () => {
    const notes = new Map<string, Note>()
    const update = (headers: Headers.Headers, change: (note: Note) => Note) =>
      Effect.sync(() => {
        const id = headers[exchangeHeader]
        const note = id === undefined ? undefined : notes.get(id)
        if (id !== undefined && note !== undefined) notes.set(id, change(note))
      })
    return {
      /** A call of the exchange whose headers these are was admitted (or refused) in `rate`. */
      admitted: (headers: Headers.Headers, rate: RateWindow) => update(headers, (note) => ({ ...note, rate: Option.some(rate) })),
      /** A call of the exchange was refused: try again in `seconds` (the longest asked wins). */
      retryAfter: (headers: Headers.Headers, seconds: number) =>
        update(headers, (note) => ({ ...note, retryAfter: Option.some(Math.max(seconds, Option.getOrElse(note.retryAfter, () => 0))) })),
      /** `app` with an exchange id on its request and the exchange's latest notes on its answer. */
      serve: <E, R>(app: HttpApp.HttpApp<HttpServerResponse.HttpServerResponse, E, R>) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const id = randomBytes(16).toString("base64url")
          notes.set(id, empty)
          // Read when the answer is built: a stream's later pages note nothing more (its headers left).
          return yield* app.pipe(
            Effect.provideService(HttpServerRequest.HttpServerRequest, request.modify({ headers: Headers.set(request.headers, exchangeHeader, id) })),
            Effect.map((response) => withNote(response, notes.get(id) ?? empty)),
            Effect.ensuring(Effect.sync(() => notes.delete(id)))
          )
        }).pipe(Effect.withSpan("RpcRateNotes.serve"))
    }
  }
}) {}

/** The answer with the window's fields and the retry noted, if any. */
const withNote = (response: HttpServerResponse.HttpServerResponse, note: Note) => {
  const rated = Option.match(note.rate, { onNone: () => response, onSome: (rate) => withRateHeaders(response, rate, false) })
  return Option.match(note.retryAfter, {
    onNone: () => rated,
    onSome: (seconds) => HttpServerResponse.setHeader(rated, "retry-after", String(seconds))
  })
}
