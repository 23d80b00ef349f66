import {
  HttpApp,
  type HttpApi,
  HttpApiBuilder,
  type HttpApiGroup,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { Cause, Chunk, Clock, Effect, Exit, Layer, Option } from "effect"
import type { Scope } from "effect/Scope"
import { InternalServerError } from "../../kernel/Errors.js"
import { storableInput } from "../../kernel/Issues.js"
import { isMirrorOf } from "../../kernel/Mirror.js"
import { Caller, Metered, type RateWindow } from "./Api.js"
import * as ApiKey from "./ApiKey.js"
import { Gateway } from "./Gateway.js"
import { InFlight } from "./InFlight.js"
import { RouteHandlers } from "./RouteHandlers.js"

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

/** Handlers of any group: `settleAll` wraps each handler alike (`any`: HttpApiBuilder's handler types are per endpoint). */
type AnyHandlers = HttpApiBuilder.Handlers<any, any, any, any>

/** Every handler behind the text rule on its decoded input (kernel/Issues.ts), then `settle`. */
const settleAll = (handlers: AnyHandlers, gateway: Gateway): AnyHandlers =>
  Object.assign(Object.create(Object.getPrototypeOf(handlers)), {
    group: handlers.group,
    handlers: Chunk.map(handlers.handlers, (item) => ({
      ...item,
      handler: (request: any) => settle(gateway)(Effect.zipRight(storableInput(request), item.handler(request)))
    }))
  })

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
export const serveGroup = <
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
> => {
  const names = [groupName, ...Object.keys(api.groups).filter((name) => isMirrorOf(name, groupName))]
  const [first, ...mirrors] = names.map((name) =>
    HttpApiBuilder.group(api, name as Name, (handlers) =>
      Effect.gen(function*() {
        const gateway = yield* Gateway
        const built: unknown = build(handlers)
        const resolved = Effect.isEffect(built) ? yield* (built as Effect.Effect<AnyHandlers>) : (built as AnyHandlers)
        const settled = settleAll(resolved, gateway)
        // Other callers of the same handlers (MCP tools) find them here, when the server has the registry.
        const registry = yield* Effect.serviceOption(RouteHandlers)
        if (Option.isSome(registry)) registry.value.register(api, settled, yield* Effect.context<never>())
        return settled
        // (`as any`: the mirrors are groups of their own names; the signature above states what they serve.)
      }) as any)
  )
  return Layer.mergeAll(first!, ...mirrors) as any
}
