import {
  HttpApp,
  type HttpApi,
  HttpApiBuilder,
  type HttpApiGroup,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { Cause, Chunk, Clock, Effect, Exit, Layer, Option, Predicate } from "effect"
import type { Scope } from "effect/Scope"
import { InternalServerError } from "../../kernel/Errors.js"
import { type DecodedInput, storableInput } from "../../kernel/Issues.js"
import { isMirrorOf } from "../../kernel/Mirror.js"
import { Caller, Metered, type RateWindow } from "./Api.js"
import * as ApiKey from "./ApiKey.js"
import { Gateway } from "./Gateway.js"
import { InFlight } from "./InFlight.js"
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

/**
 * The `Metered` middleware: one gateway round trip, then `Caller` for the handler. After the
 * answer is built it adds the rate-limit headers and hands the completion to the ledger.
 */
/** A refusal for calls in flight: try again in a second (one of them will likely have ended). */
export const retryLater = HttpApp.appendPreResponseHandler((_, response) => Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", "1")))

export const MeteredLive = Layer.effect(
  Metered,
  Effect.gen(function*() {
    const gateway = yield* Gateway
    const inFlight = yield* InFlight
    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const query = yield* HttpServerRequest.ParsedSearchParams
      const startedAt = yield* Clock.currentTimeMillis
      const key = ApiKey.fromRequest({ headers: request.headers, query })
      const admission = yield* gateway.admit(key, { method: request.method, route: pathOf(request.url) }).pipe(
        Effect.catchTag("Refusal", ({ error, rate }) =>
          Option.match(rate, {
            // 401/403 carry no quota headers: they must not leak quota to probes (G5).
            onNone: () => Effect.fail(error),
            onSome: (rate) =>
              HttpApp.appendPreResponseHandler((_, response) =>
                Effect.succeed(withRateHeaders(response, rate, error._tag === "RateLimited"))
              ).pipe(Effect.zipRight(Effect.fail(error)))
          })
        )
      )
      yield* noteRequest((facts) => {
        facts.account = accountHash(admission.accountId)
        facts.charged = 1
        facts.remaining = admission.credits.total_remaining
      })
      yield* HttpApp.appendPreResponseHandler((_, response) =>
        gateway.complete(admission.chargeId, response.status, startedAt).pipe(
          Effect.as(withRateHeaders(response, admission.rate, false))
        ))
      // Fair use (issue 28): past the account's calls in flight, the call waits, then is refused
      // and its credit given back (it never ran).
      yield* inFlight.take(admission.accountId).pipe(
        Effect.tapError(() => Effect.zipRight(gateway.refund(admission.chargeId), retryLater))
      )
      return admission
    })
  })
)

/** A call keeps its credit when it ended with a deliberate answer: a success or a typed failure. */
const keepsCredit = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isSuccess(exit) ||
  (!Cause.isInterrupted(exit.cause) && Option.exists(Cause.failureOption(exit.cause), (e) => !(e instanceof InternalServerError)))

/**
 * The release half of the charge (G4), taken by the middleware before the handler and released
 * on the handler's own exit, whatever HTTP middleware surrounds it: kept on every deliberate
 * answer (typed failures included), refunded when the handler dies (answered with the 500
 * envelope), fails with an internal error, or is interrupted (the client went away).
 */
export const settle = (gateway: Pick<Gateway, "refund">) =>
<A, E, R>(handler: Effect.Effect<A, E, R>): Effect.Effect<A, E | InternalServerError, R> =>
  Effect.flatMap(Effect.serviceOption(Caller), (caller) =>
    Option.match(caller, {
      onNone: () => handler,
      // Session callers (legacy paths, S4) were charged nothing: nothing to refund.
      onSome: ({ chargeId }) =>
        chargeId === null ? handler : handler.pipe(
          Effect.catchAllDefect((defect) =>
            Effect.zipRight(
              Effect.logError("Handler died; its credit is refunded", Cause.die(defect)),
              Effect.fail(new InternalServerError())
            )
          ),
          Effect.onExit((exit) => keepsCredit(exit) ? Effect.void : gateway.refund(chargeId))
        )
    }))

/**
 * The handlers of a group, whichever endpoints (`any`: HttpApiBuilder types a handler per
 * endpoint; `settleAll` adds each back alike, through the public `handle`/`handleRaw`).
 */
type AnyHandlers = HttpApiBuilder.Handlers<any, any, any, any>

/** A group's handlers with every endpoint handled, as `HttpApiBuilder.group` takes them back. */
type Handled = HttpApiBuilder.Handlers<any, any, any, never>

/** Whether `built` (what a group's `build` answered, or its effect's value) is a group's handlers. */
const isHandlers = (built: unknown): built is AnyHandlers => Predicate.hasProperty(built, HttpApiBuilder.HandlersTypeId)

/**
 * `built`'s handlers added to `fresh` (the empty handlers of the group being served: the
 * family's own or one of its mirrors) with the platform's `handle`/`handleRaw`, each behind
 * the text rule on its decoded input (kernel/Issues.ts), then `settle`.
 */
const settleAll = (fresh: AnyHandlers, built: AnyHandlers, gateway: Gateway): Handled =>
  // (`as`: each endpoint `built` handled is handled again, by name; the family's own
  // `HttpApiBuilder.Handlers` types checked at compile time that `built` handles them all.)
  Chunk.reduce(built.handlers, fresh, (handlers, item) => {
    const options = { uninterruptible: item.uninterruptible }
    const handler = (request: DecodedInput) => settle(gateway)(Effect.zipRight(storableInput(request), item.handler(request)))
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
 * (its decoded input is storable, else 400 naming the field) and is wrapped by `settle`, so no
 * route can forget its refund (unmetered routes have no charge to settle). Use it exactly like
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
  | Gateway
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
        const gateway = yield* Gateway
        const answer = build(fresh)
        const built: unknown = Effect.isEffect(answer) ? yield* answer : answer
        if (!isHandlers(built)) return yield* Effect.dieMessage(`serveGroup: the build of ${name} did not answer its handlers`)
        const settled = settleAll(fresh, built, gateway)
        // Other callers of the same handlers (MCP tools) find them here, when the server has the registry.
        const registry = yield* Effect.serviceOption(RouteHandlers)
        if (Option.isSome(registry)) registry.value.register(api, settled, yield* Effect.context<never>())
        return settled
      }))
  const mirrors = Object.keys(api.groups).filter((name) => isMirrorOf(name, groupName))
  return Layer.mergeAll(served(groupName), ...mirrors.map(served))
}
