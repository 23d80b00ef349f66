import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { Headers } from "@effect/platform/Headers"
import { Rpc, RpcGroup, RpcSchema, RpcSerialization, RpcServer } from "@effect/rpc"
import { Cause, Context, Effect, ExecutionStrategy, Exit, Layer, Option, Schema, Scope, Stream } from "effect"
import { AccountEvents, type StoredEvent } from "../access/events/AccountEvents.js"
import { Caller } from "../access/gateway/Api.js"
import * as ApiKey from "../access/gateway/ApiKey.js"
import { CallCharge, CallEnd } from "../access/gateway/CallCharge.js"
import { Refusal } from "../access/gateway/Gateway.js"
import { chargedPages } from "../access/gateway/Pages.js"
import { RouteHandlers } from "../access/gateway/RouteHandlers.js"
import { AdExport } from "../ads/export/AdExport.js"
import { libraryByPublicName, SearchQuery } from "../ads/library/Filters.js"
import { answerTo } from "../kernel/Envelope.js"
import { InternalServerError, InvalidRequest } from "../kernel/Errors.js"
import { describeParseError } from "../kernel/Issues.js"
import { type InputParts, ProjectedRoute } from "./Procedure.js"
import { AppConfig } from "../platform/AppConfig.js"
import { EventFeeds } from "./EventFeeds.js"
import { makeHttpProtocol } from "./HttpProtocol.js"
import { RpcRateNotes } from "./RateHeaders.js"
import { AdIntelRpcs, type Events, type ExportSearch, MeteredRpc, OpenEnded, projectedProcedures, type StreamedEvent } from "./Procedures.js"

/**
 * `/rpc` (issue 32; H4): the RPC group served over HTTP with NDJSON, beside the contract's routes.
 * Every call is a metered call (G1-G6) through the group's middleware (`MeteredRpc`): the key
 * from `X-API-Key` or `Authorization: Bearer`, the plan, a slot of the rate window and one credit
 * at admission, the account's calls in flight, the answer recorded in the ledger and the credit
 * given back when the call ends without an answer (G4), by the same `CallCharge` as REST and
 * MCP. A call is admitted before its payload is read (`decodingAfterAdmission`, issue 44). A
 * projected procedure runs its route's own handler (as an MCP tool does); the streams charge per
 * page (access/gateway/Pages.ts), each page once the socket took the one before (HttpProtocol.ts).
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
/** A refusal of admission: its window and retry noted for the exchange's answer, then its error. */
const refusedWith = (rateNotes: RpcRateNotes, headers: Headers) => (refusal: Refusal) =>
  Effect.zipRight(
    Effect.all([
      Option.match(refusal.rate, { onNone: () => Effect.void, onSome: (rate) => rateNotes.admitted(headers, rate) }),
      Option.match(refusal.retryAfter, { onNone: () => Effect.void, onSome: (seconds) => rateNotes.retryAfter(headers, seconds) })
    ], { discard: true }),
    Effect.fail(refusal.error)
  )

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
          Effect.catchTag("Refusal", refusedWith(rateNotes, headers))
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

  return decodingAfterAdmission({
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
  })
}))

/**
 * Each handler behind the decode of its procedure's payload (issue 44): the group is served with
 * payloads taken as they come (`servedRpcs`), so the middleware admits a call before anything
 * reads its payload. A call without a key is `Unauthorized` whatever it sent, and a payload that
 * does not decode is G11's `InvalidRequest` naming the field, metered like REST's 400, never the
 * protocol's defect that printed the payload's schema.
 */
const decodingAfterAdmission = <H extends Record<string, unknown>>(handlers: H): H => {
  const wrapped: Record<string, unknown> = {}
  for (const [tag, handler] of Object.entries(handlers)) {
    const rpc = AdIntelRpcs.requests.get(tag)!
    const decodePayload = Schema.decodeUnknown(rpc.payloadSchema as Schema.Schema<unknown>)
    const decode = (payload: unknown) => Effect.mapError(decodePayload(payload), invalid)
    // (`as`: each handler takes its own procedure's payload, which it gets decoded by that procedure's schema.)
    const run = handler as (payload: unknown, options: unknown) => Effect.Effect<unknown, unknown> | Stream.Stream<unknown, unknown>
    wrapped[tag] = RpcSchema.isStreamSchema(rpc.successSchema)
      ? (payload: unknown, options: unknown) => Stream.unwrap(Effect.map(decode(payload), (decoded) => run(decoded, options) as Stream.Stream<unknown, unknown>))
      : (payload: unknown, options: unknown) => Effect.flatMap(decode(payload), (decoded) => run(decoded, options) as Effect.Effect<unknown, unknown>)
  }
  // (`as`: the same tags, each handler the one given behind the decode of its own payload.)
  return wrapped as H
}

/** A procedure as served: the same, its payload taken as it comes (its handler decodes it). */
type Served<R> = R extends Rpc.Rpc<infer Tag, infer _Payload, infer Success, infer Failure, infer Middleware>
  ? Rpc.Rpc<Tag, typeof Schema.Unknown, Success, Failure, Middleware>
  : never

/**
 * The group as served: every procedure of the contract by its tag, schemas, annotations and
 * middleware, with its payload taken as it comes (`decodingAfterAdmission`).
 */
const servedRpcs: RpcGroup.RpcGroup<Served<AdIntelRpcs>> = RpcGroup.make(
  // (`any`: the list is built in a loop, so each element's tag is `string`; the group's type is
  // the mapping `Served` of the contract's, which this loop is.)
  ...[...AdIntelRpcs.requests.values()].map((rpc): any =>
    Rpc.make(rpc._tag, { payload: Schema.Unknown, success: rpc.successSchema, error: rpc.errorSchema, defect: rpc.defectSchema })
      .annotateContext(rpc.annotations)
      .middleware(MeteredRpc)
  )
)

/**
 * An exchange whose body is refused before any message is read (nested too deep, or not
 * NDJSON; issue 44),
 * answered as a REST route answers such a body, in G1's order: admitted as one call of `/rpc`
 * (no key: 401, and so on), then G11's 400, metered (its credit kept), with the call's window.
 */
const refuseBody = (charge: CallCharge, rateNotes: RpcRateNotes) => (reason: string) =>
  Effect.gen(function*() {
    const { headers } = yield* HttpServerRequest.HttpServerRequest
    // The window and retry go on the answer as a call's do (`RpcRateNotes.serve` around the exchange).
    const exit = yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
      const admission = yield* charge.take(ApiKey.fromRequest({ headers, query: {} }), { method: "POST", route: rpcPath }).pipe(
        Effect.catchTag("Refusal", refusedWith(rateNotes, headers))
      )
      yield* rateNotes.admitted(headers, admission.rate)
      return yield* new InvalidRequest({ error: reason })
    })))
    const { body, status } = answerTo(Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined)
    return HttpServerResponse.unsafeJson(body, { status })
  })

/**
 * `/rpc` on the service's router: the group served through the bounded protocol
 * (HttpProtocol.ts), its handlers and middleware, NDJSON framing, the rate fields on its answers.
 */
export const RpcLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const charge = yield* CallCharge
    const rateNotes = yield* RpcRateNotes
    const { httpApp, protocol } = yield* makeHttpProtocol(refuseBody(charge, rateNotes))
    yield* RpcServer.make(servedRpcs, { spanPrefix: "Rpc" }).pipe(
      Effect.provideService(RpcServer.Protocol, protocol),
      Effect.interruptible,
      Effect.forkScoped
    )
    yield* router.post(rpcPath, rateNotes.serve(httpApp))
  })
).pipe(Layer.provide([RpcHandlersLive, MeteredRpcLive, RpcSerialization.layerNdjson]), Layer.provide([RpcRateNotes.Default, EventFeeds.Default]))
