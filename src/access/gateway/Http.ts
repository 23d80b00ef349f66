import {
  HttpApp,
  type HttpApi,
  HttpApiBuilder,
  type HttpApiGroup,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { Cause, Chunk, Effect, Layer, Option, Predicate } from "effect"
import type { Scope } from "effect/Scope"
import { CorpusUnavailable, InternalServerError } from "../../kernel/Errors.js"
import { nodeUnreachable } from "../../platform/db/SqlState.js"
import { type DecodedInput, storableInput } from "../../kernel/Issues.js"
import { isMirrorOf } from "../../kernel/Mirror.js"
import { Metered, type RateWindow } from "./Api.js"
import * as ApiKey from "./ApiKey.js"
import { CallCharge, CallEnd } from "./CallCharge.js"
import { RouteHandlers } from "./RouteHandlers.js"
import { accountHash, noteRequest } from "../../platform/telemetry/Tracing.js"

/**
 * An absolute-form request target (`GET http://host/path`, RFC 9112 3.2.2) is routed by its path:
 * the router (find-my-way) drops this prefix, so `pathOf` drops the same one.
 */
const absoluteForm = /^https?:\/\/.*?\//

/** The path a request was routed by: no scheme or host, no query string (which may hold a key, G13). */
export const pathOf = (url: string): string => {
  const path = url.startsWith("/") ? url : url.replace(absoluteForm, "/")
  const end = path.search(/[?#]/)
  return end === -1 ? path : path.slice(0, end)
}

/** spec: INTERPRETATIONS G5: the IETF rate-limit fields on every metered answer. */
export const withRateHeaders = (response: HttpServerResponse.HttpServerResponse, rate: RateWindow, retry: boolean) =>
  HttpServerResponse.setHeaders(response, {
    "ratelimit-policy": `"minute";q=${rate.limit};w=60`,
    "ratelimit": `"minute";r=${rate.remaining};t=${rate.resetSeconds}`,
    ...(retry ? { "retry-after": String(rate.resetSeconds) } : {})
  })

/** A refusal for calls in flight: try again in a second (one of them will likely have ended). */
export const retryLater = HttpApp.appendPreResponseHandler((_, response) => Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", "1")))

/**
 * The `Metered` middleware: the call's credit (`CallCharge.take`: one gateway round trip, then a
 * slot of the account's calls in flight), then `Caller` for the handler. The credit is settled
 * by the route's exit (`CallEnd`, told by the service's conventions, app/Server.ts); the slot is
 * held until the answer is written. Every answer carries the rate window; a refusal carries it
 * once admission got that far (401/403 carry none: they must not leak quota to probes, G5),
 * with `Retry-After` when the refusal says when to try again.
 */
export const MeteredLive = Layer.effect(
  Metered,
  Effect.gen(function*() {
    const charge = yield* CallCharge
    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const query = yield* HttpServerRequest.ParsedSearchParams
      const end = yield* Effect.serviceOption(CallEnd)
      if (Option.isNone(end)) return yield* Effect.dieMessage("A metered route is served inside the service's conventions (app/Server.ts), which tell it its end")
      const key = ApiKey.fromRequest({ headers: request.headers, query })
      const admission = yield* charge.take(key, { method: request.method, route: pathOf(request.url) }, { settledBy: end.value }).pipe(
        Effect.catchTag("Refusal", (refusal) =>
          Option.match(refusal.rate, {
            onNone: () => Effect.fail(refusal.error),
            onSome: (rate) =>
              HttpApp.appendPreResponseHandler((_, response) =>
                Effect.succeed(withRateHeaders(response, rate, false).pipe(
                  (rated) => Option.match(refusal.retryAfter, { onNone: () => rated, onSome: (seconds) => HttpServerResponse.setHeader(rated, "retry-after", String(seconds)) })
                ))
              ).pipe(Effect.zipRight(Effect.fail(refusal.error)))
          })
        )
      )
      yield* noteRequest((facts) => {
        facts.account = accountHash(admission.accountId)
        facts.charged = 1
        facts.remaining = admission.credits.total_remaining
      })
      yield* HttpApp.appendPreResponseHandler((_, response) => Effect.succeed(withRateHeaders(response, admission.rate, false)))
      return admission
    })
  })
)

/**
 * A handler that dies answers the 500 envelope (spec: Errors, 500 row) and logs why, for every
 * caller of the route's handler (its REST route, an MCP tool, an RPC procedure); the metered
 * call's credit is then given back by `CallCharge`, as for any 5xx. One that died because a node
 * of a Citus cluster did not answer (issue 45) answers the 503 `CorpusUnavailable` instead.
 */
export const answeringDefects = <A, E, R>(handler: Effect.Effect<A, E, R>): Effect.Effect<A, E | InternalServerError | CorpusUnavailable, R> =>
  Effect.catchAllDefect(handler, (defect): Effect.Effect<never, InternalServerError | CorpusUnavailable> =>
    nodeUnreachable(defect)
      ? Effect.zipRight(Effect.logWarning("A database node did not answer; answered 503", Cause.die(defect)), Effect.fail(new CorpusUnavailable()))
      : Effect.zipRight(Effect.logError("Handler died; answered with the 500 envelope", Cause.die(defect)), Effect.fail(new InternalServerError())))

/**
 * The handlers of a group, whichever endpoints (`any`: HttpApiBuilder types a handler per
 * endpoint; `wrapAll` adds each back alike, through the public `handle`/`handleRaw`).
 */
type AnyHandlers = HttpApiBuilder.Handlers<any, any, any, any>

/** A group's handlers with every endpoint handled, as `HttpApiBuilder.group` takes them back. */
type Handled = HttpApiBuilder.Handlers<any, any, any, never>

/** Whether `built` (what a group's `build` answered, or its effect's value) is a group's handlers. */
const isHandlers = (built: unknown): built is AnyHandlers => Predicate.hasProperty(built, HttpApiBuilder.HandlersTypeId)

/**
 * `built`'s handlers added to `fresh` (the empty handlers of the group being served: the
 * family's own or one of its mirrors) with the platform's `handle`/`handleRaw`, each behind
 * the text rule on its decoded input (kernel/Issues.ts), answering a defect with the 500 envelope.
 */
const wrapAll = (fresh: AnyHandlers, built: AnyHandlers): Handled =>
  // (`as`: each endpoint `built` handled is handled again, by name; the family's own
  // `HttpApiBuilder.Handlers` types checked at compile time that `built` handles them all.)
  Chunk.reduce(built.handlers, fresh, (handlers, item) => {
    const options = { uninterruptible: item.uninterruptible }
    const handler = (request: DecodedInput) => answeringDefects(Effect.zipRight(storableInput(request), item.handler(request)))
    return item.withFullRequest
      ? handlers.handleRaw(item.endpoint.name, handler, options)
      : handlers.handle(item.endpoint.name, handler, options)
  }) as Handled

/** The mirrors (kernel/Mirror.ts) of group `Name` that the API holds. */
type MirrorsOf<Groups extends HttpApiGroup.HttpApiGroup.Any, Name extends string> = Extract<
  HttpApiGroup.HttpApiGroup.Name<Groups>,
  `${Name}@${string}`
>

/**
 * `HttpApiBuilder.group` for every group of the service: each handler runs behind the text rule
 * (its decoded input is storable, else 400 naming the field), and a handler that dies answers
 * the 500 envelope (whose metered call `CallCharge` then refunds). Use it exactly like
 * `HttpApiBuilder.group`. The same handlers
 * also serve the group's mirrors (legacy session paths, un-versioned aliases) that the API
 * holds: a family mounted elsewhere needs no handler code.
 */
export function serveGroup<
  ApiId extends string,
  Groups extends HttpApiGroup.HttpApiGroup.Any,
  ApiError,
  ApiR,
  const Name extends HttpApiGroup.HttpApiGroup.Name<Groups>,
  Return
>(
  api: HttpApi.HttpApi<ApiId, Groups, ApiError, ApiR>,
  groupName: Name,
  build: (
    handlers: HttpApiBuilder.Handlers.FromGroup<ApiError, ApiR, HttpApiGroup.HttpApiGroup.WithName<Groups, Name>>
  ) => HttpApiBuilder.Handlers.ValidateReturn<Return>
): Layer.Layer<
  HttpApiGroup.ApiGroup<ApiId, Name | MirrorsOf<Groups, Name>>,
  HttpApiBuilder.Handlers.Error<Return>,
  | Exclude<
    | HttpApiBuilder.Handlers.Context<Return>
    | HttpApiGroup.HttpApiGroup.MiddlewareWithName<Groups, Name | MirrorsOf<Groups, Name>>,
    Scope
  >
>
/**
 * (The signature above states the layer's types, as `HttpApiBuilder.group` would for the group
 * and each mirror; here the handlers are those of any group, and the build's answer is read
 * with `isHandlers`.)
 */
export function serveGroup(
  api: HttpApi.HttpApi<string, HttpApiGroup.HttpApiGroup.AnyWithProps, any, any>,
  groupName: string,
  build: (handlers: HttpApiBuilder.Handlers<any, any, never, any>) => unknown
): Layer.Layer<never, unknown, unknown> {
  const served = (name: string) =>
    HttpApiBuilder.group(api, name, (fresh) =>
      Effect.gen(function*() {
        const answer = build(fresh)
        const built: unknown = Effect.isEffect(answer) ? yield* answer : answer
        if (!isHandlers(built)) return yield* Effect.dieMessage(`serveGroup: the build of ${name} did not answer its handlers`)
        const wrapped = wrapAll(fresh, built)
        // Other callers of the same handlers (MCP tools) find them here, when the server has the registry.
        const registry = yield* Effect.serviceOption(RouteHandlers)
        if (Option.isSome(registry)) registry.value.register(api, wrapped, yield* Effect.context<never>())
        return wrapped
      }))
  const mirrors = Object.keys(api.groups).filter((name) => isMirrorOf(name, groupName))
  return Layer.mergeAll(served(groupName), ...mirrors.map(served))
}
