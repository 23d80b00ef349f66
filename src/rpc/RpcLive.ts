import { HttpApiBuilder, HttpApiSchema, HttpServerRequest } from "@effect/platform"
import type { Headers } from "@effect/platform/Headers"
import { type Rpc, RpcSerialization, RpcServer } from "@effect/rpc"
import { Cause, Chunk, Clock, Context, Duration, Effect, Exit, Layer, Option, Ref, Schema, type Scope, Stream } from "effect"
import { AccountEvents, type StoredEvent } from "../access/events/AccountEvents.js"
import { type Admission, Caller, Metered } from "../access/gateway/Api.js"
import * as ApiKey from "../access/gateway/ApiKey.js"
import { Gateway } from "../access/gateway/Gateway.js"
import { settle } from "../access/gateway/Http.js"
import { InFlight } from "../access/gateway/InFlight.js"
import { chargedPages } from "../access/gateway/Pages.js"
import { type RouteHandler, RouteHandlers } from "../access/gateway/RouteHandlers.js"
import { AdExport } from "../ads/export/AdExport.js"
import { libraryByPublicName, SearchQuery } from "../ads/library/Filters.js"
import { InternalServerError, InvalidRequest, InvalidRequestBody } from "../kernel/Errors.js"
import { describeParseError } from "../kernel/Issues.js"
import { type InputParts, ProjectedRoute } from "./Procedure.js"
import { RpcRateNotes } from "./RateHeaders.js"
import { AdIntelRpcs, Events, ExportSearch, type StreamedEvent } from "./Procedures.js"

/**
 * `/rpc` (issue 32; H4): the RPC group served over HTTP with NDJSON, beside the contract's routes.
 * Every call is a metered call (G1-G6): the key from `X-API-Key` or `Authorization: Bearer`, the
 * plan, a slot of the rate window and one credit at admission, the account's calls in flight,
 * the refund when it dies or its client goes (G4), and the answer recorded in the ledger. A
 * projected procedure runs its route's own handler (as an MCP tool does); the streams charge per
 * page (access/gateway/Pages.ts).
 */

export const rpcPath = "/rpc"

/** How often `Events` looks for new events, and how many it reads at a time. */
const eventsPollEvery = Duration.seconds(1)
const eventsBatch = 100


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

/** The status a failure is recorded with in the ledger, from the route's declared failures (500 when none declares it). */
const statusOf = (failures: ReadonlyArray<Schema.Schema.Any>, exit: Exit.Exit<unknown, unknown>): number => {
  if (Exit.isSuccess(exit)) return 200
  const error = Cause.failureOption(exit.cause)
  if (Option.isNone(error)) return 500
  const schema = failures.find((schema) => Schema.is(Schema.typeSchema(schema))(error.value))
  return schema === undefined ? 500 : HttpApiSchema.getStatusErrorAST(schema.ast)
}

const failuresOf = (...schemas: ReadonlyArray<Schema.Schema.Any>): ReadonlyArray<Schema.Schema.Any> => {
  const all = new Set<Schema.Schema.Any>()
  for (const schema of schemas) HttpApiSchema.deunionize(all, schema)
  return [...all]
}

/** What every call may fail with besides its route's own failures: the gateway's and the API's. */
const meteredFailures = failuresOf(Metered.failure, InvalidRequestBody)

const invalid = (error: import("effect/ParseResult").ParseError) => new InvalidRequest({ error: describeParseError(error) })

/** Every procedure's handler, needing nothing more. */
type Handlers = { readonly [Current in AdIntelRpcs as Current["_tag"]]: Rpc.ToHandlerFn<Current, never> }

export const RpcHandlersLive = AdIntelRpcs.toLayer(Effect.gen(function*() {
  const gateway = yield* Gateway
  const inFlight = yield* InFlight
  const routes = yield* RouteHandlers
  const exporter = yield* AdExport
  const events = yield* AccountEvents
  const rateNotes = yield* RpcRateNotes

  /**
   * G1 steps 1-4 for a call by `tag`, then one of the account's slots in flight for the scope.
   * Its rate window (and a refusal's retry) is noted for the exchange's answer, as REST's
   * `Metered` adds them to its own.
   */
  const admit = (headers: Headers, tag: string, options: { readonly holdsSlot: boolean } = { holdsSlot: true }) =>
    Effect.gen(function*() {
      const admission = yield* gateway.admit(ApiKey.fromRequest({ headers, query: {} }), { method: "POST", route: `${rpcPath}/${tag}` }).pipe(
        Effect.catchTag("Refusal", ({ error, rate }) =>
          Effect.zipRight(
            Option.match(rate, {
              onNone: () => Effect.void,
              onSome: (rate) =>
                Effect.zipRight(
                  rateNotes.admitted(headers, rate),
                  error._tag === "RateLimited" ? rateNotes.retryAfter(headers, rate.resetSeconds) : Effect.void
                )
            }),
            Effect.fail(error)
          ))
      )
      yield* rateNotes.admitted(headers, admission.rate)
      if (options.holdsSlot) {
        yield* inFlight.take(admission.accountId).pipe(
          Effect.tapError(() => Effect.zipRight(gateway.refund(admission.chargeId), rateNotes.retryAfter(headers, 1)))
        )
      }
      return admission
    })

  /** One call: admitted, run with `Caller`, refunded if it dies or is interrupted, recorded. */
  const unary = <A, E>(headers: Headers, tag: string, failures: ReadonlyArray<Schema.Schema.Any>, run: Effect.Effect<A, E, Caller>) =>
    Effect.scoped(Effect.gen(function*() {
      const startedAt = yield* Clock.currentTimeMillis
      const admission = yield* admit(headers, tag)
      const exit = yield* Effect.exit(Effect.provideService(settle(gateway)(run), Caller, admission))
      yield* gateway.complete(admission.chargeId, statusOf(failures, exit), startedAt)
      return yield* exit
    }))

  /**
   * A streamed call: admitted once, its stream built with `Caller`. When it ends it is recorded;
   * a stream that dies, or whose client goes before its first element (before it opened, for one
   * `paidOnOpen`), gets the call's credit back (G4); what was sent before is kept.
   */
  const streamed = <A, E>(
    headers: Headers,
    tag: string,
    options: { readonly holdsSlot: boolean; readonly paidOnOpen: boolean },
    build: (admission: Admission) => Effect.Effect<Stream.Stream<A, E>, E, Caller | Gateway | Scope.Scope>
  ): Stream.Stream<A, E | Schema.Schema.Type<typeof Metered.failure> | InternalServerError> =>
    Stream.unwrapScoped(Effect.gen(function*() {
      const startedAt = yield* Clock.currentTimeMillis
      const admission = yield* admit(headers, tag, options)
      const sent = yield* Ref.make(false)
      yield* Effect.addFinalizer((exit) =>
        Effect.flatMap(Ref.get(sent), (sent) =>
          Exit.isInterrupted(exit) && !sent
            ? gateway.refund(admission.chargeId)
            : gateway.complete(admission.chargeId, Exit.isInterrupted(exit) ? 200 : statusOf(meteredFailures, exit), startedAt)))
      const stream = yield* settle(gateway)(build(admission)).pipe(Effect.provideService(Caller, admission), Effect.provideService(Gateway, gateway))
      // A stream paid for its opening keeps its credit once open, whatever it yields later.
      if (options.paidOnOpen) yield* Ref.set(sent, true)
      return stream.pipe(
        Stream.tap(() => Ref.set(sent, true)),
        Stream.catchAllCause((cause): Stream.Stream<A, E | InternalServerError> =>
          Cause.isInterruptedOnly(cause) || Option.isSome(Cause.failureOption(cause))
            ? Stream.failCause(cause)
            : Stream.fromEffect(Effect.zipRight(Effect.logError("RPC stream died", cause), Effect.fail(new InternalServerError()))))
      )
    }))

  /** A projected procedure: its route's handler on the payload, as one metered call. */
  const project = (rpc: Rpc.AnyWithProps) => {
    // (`as`: a procedure's annotations are typed as holding nothing; `procedure` put its route there.)
    const projected = Context.get(rpc.annotations as Context.Context<ProjectedRoute>, ProjectedRoute)
    return (payload: Record<string, unknown>, { headers }: { readonly headers: Headers }) =>
      Effect.gen(function*() {
        const route: RouteHandler = yield* Option.match(routes.find(projected.group, projected.endpoint), {
          onNone: () => Effect.dieMessage(`RPC ${rpc._tag}: no handler for ${projected.group}.${projected.endpoint}`),
          onSome: Effect.succeed
        })
        const failures = failuresOf(route.endpoint.errorSchema, route.group.errorSchema, route.api.errorSchema, Metered.failure)
        const known = Schema.is(Schema.typeSchema(rpc.errorSchema as Schema.Schema.Any))
        return yield* unary(headers, rpc._tag, failures, route.run({ ...partsOfPayload(projected.parts, payload), request: requestOf(headers) })).pipe(
          // A failure the procedure does not declare cannot be encoded: it is the 500 it would be on REST.
          Effect.mapError((error) => (known(error) ? error : new InternalServerError()))
        )
      })
  }

  const wireOf = (event: StoredEvent): StreamedEvent => ({
    seq: event.seq,
    id: event.id,
    type: event.type,
    created_at: event.created_at.toISOString(),
    data: event.data
  })

  const projections = Object.fromEntries(
    // (`as`: the group's procedures, each a `Rpc.make`.)
    [...(AdIntelRpcs.requests.values() as Iterable<Rpc.AnyWithProps>)]
      .filter((rpc) => Context.getOption(rpc.annotations, ProjectedRoute)._tag === "Some")
      .map((rpc) => [rpc._tag, project(rpc)])
  )

  const own = {
    ExportSearch: ({ filters, library }: typeof ExportSearch.payloadSchema.Type, { headers }: { readonly headers: Headers }) =>
      streamed(headers, "ExportSearch", { holdsSlot: true, paidOnOpen: false }, () =>
        Effect.gen(function*() {
          const params = yield* Schema.decodeUnknown(SearchQuery(libraryByPublicName[library]))(filters).pipe(Effect.mapError(invalid))
          if (params.limit !== undefined || params.scroll_token !== undefined) {
            return yield* Effect.fail(new InvalidRequest({ error: "filters: an export sends every match, 100 a page; leave out limit and scroll_token" }))
          }
          const pages = yield* chargedPages(yield* exporter.pages(libraryByPublicName[library], params))
          return Stream.map(Stream.zipWithIndex(pages), ([data, index]) => ({ page: index + 1, data }))
        })),

    // An open stream waits more than it reads: it holds no slot of the calls in flight.
    Events: ({ after_seq }: typeof Events.payloadSchema.Type, { headers }: { readonly headers: Headers }) =>
      streamed(headers, "Events", { holdsSlot: false, paidOnOpen: true }, ({ accountId }) =>
        Effect.gen(function*() {
          const cursor = yield* Ref.make(after_seq ?? (yield* events.latestEvent(accountId)))
          const poll = Effect.gen(function*() {
            const batch = yield* events.eventsAfter(accountId, yield* Ref.get(cursor), eventsBatch)
            if (batch.length === 0) return yield* Effect.as(Effect.sleep(eventsPollEvery), Chunk.empty<StreamedEvent>())
            yield* Ref.set(cursor, batch[batch.length - 1]!.seq)
            return Chunk.fromIterable(batch.map(wireOf))
          })
          return Stream.repeatEffectChunk(poll)
        }))
  }
  // (`as`: the projections are built from the group's own procedures by the generic `project`,
  // one per tag; `toLayer` types each handler by its tag, which a record built in a loop cannot.)
  return { ...projections, ...own } as unknown as Handlers
}))

/** `/rpc` on the service's router: the group, its handlers, NDJSON framing, the rate fields on its answers. */
export const RpcLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const app = yield* RpcServer.toHttpApp(AdIntelRpcs, { spanPrefix: "Rpc" })
    const rateNotes = yield* RpcRateNotes
    yield* router.post(rpcPath, rateNotes.serve(app))
  })
).pipe(Layer.provide([RpcHandlersLive, RpcSerialization.layerNdjson]), Layer.provide(RpcRateNotes.Default))

