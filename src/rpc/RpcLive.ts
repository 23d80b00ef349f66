import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import type { Headers } from "@effect/platform/Headers"
import { type Rpc, RpcSerialization, RpcServer } from "@effect/rpc"
import { Context, Effect, ExecutionStrategy, Exit, Layer, Option, Schema, Scope, Stream } from "effect"
import { AccountEvents, type StoredEvent } from "../access/events/AccountEvents.js"
import { Caller } from "../access/gateway/Api.js"
import * as ApiKey from "../access/gateway/ApiKey.js"
import { CallCharge, CallEnd } from "../access/gateway/CallCharge.js"
import { chargedPages } from "../access/gateway/Pages.js"
import { RouteHandlers } from "../access/gateway/RouteHandlers.js"
import { AdExport } from "../ads/export/AdExport.js"
import { libraryByPublicName, SearchQuery } from "../ads/library/Filters.js"
import { InternalServerError, InvalidRequest } from "../kernel/Errors.js"
import { describeParseError } from "../kernel/Issues.js"
import { type InputParts, ProjectedRoute } from "./Procedure.js"
import { AppConfig } from "../platform/AppConfig.js"
import { EventFeeds } from "./EventFeeds.js"
import { RpcRateNotes } from "./RateHeaders.js"
import { AdIntelRpcs, type Events, type ExportSearch, MeteredRpc, OpenEnded, projectedProcedures, type StreamedEvent } from "./Procedures.js"

/**
 * `/rpc` (issue 32; H4): the RPC group served over HTTP with NDJSON, beside the contract's routes.
 * Every call is a metered call (G1-G6) through the group's middleware (`MeteredRpc`): the key
 * from `X-API-Key` or `Authorization: Bearer`, the plan, a slot of the rate window and one credit
 * at admission, the account's calls in flight, the answer recorded in the ledger and the credit
 * given back when the call ends without an answer (G4), by the same `CallCharge` as REST and
 * MCP. A projected procedure runs its route's own handler (as an MCP tool does); the streams
 * charge per page (access/gateway/Pages.ts).
 */

export const rpcPath = "/rpc"

/** Headers a request of the route's handler must not carry (they describe the RPC's own HTTP exchange). */
const hopByHop = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "upgrade", "te", "trailer", "expect"])

/** The HTTP request a route's handler reads (its headers: the key, the host, forwarded headers), rebuilt from the call's. */
const requestOf = (headers: Headers) =>
  HttpServerRequest.fromWeb(
    new Request(`http://${headers["host"] ?? "localhost"}${rpcPath}`, {
      method: "POST",
      headers: Object.entries(headers).filter(([name]) => !hopByHop.has(name))
    })
  )

/** A procedure's payload split back into its route's parts. */
const partsOfPayload = (parts: InputParts, payload: Record<string, unknown>) => {
  if (Option.isSome(parts.only)) return { [parts.only.value]: payload }
  const pick = (names: ReadonlyArray<string>) => Object.fromEntries(Object.entries(payload).filter(([name]) => names.includes(name)))
  return { path: pick(parts.path), urlParams: pick(parts.urlParams), payload: pick(parts.payload) }
}

/**
 * The middleware: the call's credit for as long as the call runs (`CallCharge.take`), settled
 * when the call has answered: its end; a stream's first page (`chargedPages` closes `CallEnd`);
 * an open-ended stream's opening. Its rate window (and a refusal's retry) is noted for the
 * exchange's answer, as REST's `Metered` adds them to its own.
 */
export const MeteredRpcLive = Layer.effect(
  MeteredRpc,
  Effect.gen(function*() {
    const charge = yield* CallCharge
    const rateNotes = yield* RpcRateNotes
    return MeteredRpc.of(({ headers, next, rpc }) =>
      Effect.scoped(Effect.gen(function*() {
        const openEnded = Option.getOrElse(Context.getOption(rpc.annotations, OpenEnded), () => false)
        const answered = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
        const key = ApiKey.fromRequest({ headers, query: {} })
        const admission = yield* charge.take(key, { method: "POST", route: `${rpcPath}/${rpc._tag}` }, { settledBy: answered, slot: openEnded ? "stream" : "call" }).pipe(
          Effect.catchTag("Refusal", (refusal) =>
            Effect.zipRight(
              Effect.all([
                Option.match(refusal.rate, { onNone: () => Effect.void, onSome: (rate) => rateNotes.admitted(headers, rate) }),
                Option.match(refusal.retryAfter, { onNone: () => Effect.void, onSome: (seconds) => rateNotes.retryAfter(headers, seconds) })
              ], { discard: true }),
              Effect.fail(refusal.error)
            ))
        )
        yield* rateNotes.admitted(headers, admission.rate)
        if (openEnded) yield* Scope.close(answered, Exit.void)
        return yield* next.pipe(Effect.provideService(Caller, admission), Effect.provideService(CallEnd, answered))
      })))
  })
)

const invalid = (error: import("effect/ParseResult").ParseError) => new InvalidRequest({ error: describeParseError(error) })

/** A procedure that projects a route. */
type Projected = (typeof projectedProcedures)[number]

/** Each projected procedure's handler, by its tag. */
type ProjectedHandlers = { readonly [P in Projected as P["_tag"]]: Rpc.ToHandlerFn<P, Caller> }

export const RpcHandlersLive = AdIntelRpcs.toLayer(Effect.gen(function*() {
  const routes = yield* RouteHandlers
  const exporter = yield* AdExport
  const events = yield* AccountEvents
  const feeds = yield* EventFeeds
  const { streamMaxLifetime } = yield* AppConfig

  /** A projected procedure: its route's handler on the payload. */
  function project<P extends Projected>(rpc: P): Rpc.ToHandlerFn<P, Caller>
  function project(rpc: Projected) {
    const projected = Context.unsafeGet(rpc.annotations, ProjectedRoute)
    const failures: Schema.Schema.Any = rpc.errorSchema
    const known = Schema.is(Schema.typeSchema(failures))
    return (payload: Record<string, unknown>, { headers }: { readonly headers: Headers }) =>
      Effect.gen(function*() {
        const route = yield* Option.match(routes.find(projected.group, projected.endpoint), {
          onNone: () => Effect.dieMessage(`RPC ${rpc._tag}: no handler for ${projected.group}.${projected.endpoint}`),
          onSome: Effect.succeed
        })
        return yield* route.run({ ...partsOfPayload(projected.parts, payload), request: requestOf(headers) }).pipe(
          // A failure the procedure does not declare cannot be encoded: it is the 500 it would be on REST.
          Effect.mapError((error) => (known(error) ? error : new InternalServerError()))
        )
      })
  }

  // (`as`: one handler per tag, built by the generic `project` from the procedure itself, whose
  // schemas are its route's; `Object.fromEntries` cannot type a record built in a loop by key.)
  const projections = Object.fromEntries(projectedProcedures.map((rpc) => [rpc._tag, project(rpc)])) as ProjectedHandlers

  const wireOf = (event: StoredEvent): StreamedEvent => ({
    seq: event.seq,
    id: event.id,
    type: event.type,
    created_at: event.created_at.toISOString(),
    data: event.data
  })

  return {
    ...projections,

    ExportSearch: ({ filters, library }: typeof ExportSearch.payloadSchema.Type) =>
      Stream.unwrap(Effect.gen(function*() {
        const params = yield* Schema.decodeUnknown(SearchQuery(libraryByPublicName[library]))(filters).pipe(Effect.mapError(invalid))
        if (params.limit !== undefined || params.scroll_token !== undefined) {
          return yield* Effect.fail(new InvalidRequest({ error: "filters: an export sends every match, 100 a page; leave out limit and scroll_token" }))
        }
        const pages = yield* chargedPages(yield* exporter.pages(libraryByPublicName[library], params))
        return Stream.map(Stream.zipWithIndex(pages), ([data, index]) => ({ page: index + 1, data }))
      })),

    // One credit to open, kept once open (MeteredRpcLive); ended after `STREAM_MAX_LIFETIME`
    // (the client resumes with `after_seq`) or by its key's or plan's refusal (EventFeeds.ts).
    Events: ({ after_seq }: typeof Events.payloadSchema.Type) =>
      Stream.unwrapScoped(Effect.gen(function*() {
        const { accountId, chargeId } = yield* Caller
        const after = after_seq ?? (yield* events.latestEvent(accountId))
        const stream = yield* feeds.stream(accountId, chargeId, after)
        return stream.pipe(Stream.map(wireOf), Stream.interruptAfter(streamMaxLifetime))
      }))
  }
}))

/** `/rpc` on the service's router: the group, its handlers and middleware, NDJSON framing, the rate fields on its answers. */
export const RpcLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const app = yield* RpcServer.toHttpApp(AdIntelRpcs, { spanPrefix: "Rpc" })
    const rateNotes = yield* RpcRateNotes
    yield* router.post(rpcPath, rateNotes.serve(app))
  })
).pipe(Layer.provide([RpcHandlersLive, MeteredRpcLive, RpcSerialization.layerNdjson]), Layer.provide([RpcRateNotes.Default, EventFeeds.Default]))
