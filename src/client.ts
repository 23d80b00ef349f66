import {
  type HttpApi,
  HttpApiClient,
  type HttpApiEndpoint,
  type HttpApiGroup,
  HttpClient,
  type HttpClientError,
  HttpClientRequest,
  type HttpClientResponse
} from "@effect/platform"
import { Data, Effect, FiberRef, Option, type ParseResult, Redacted } from "effect"
import type { Simplify } from "effect/Types"
import { AdIntelApi } from "./app/Api.js"

/**
 * The typed client for integrators (`import { makeClient } from "adintel/client"`): every route
 * of the contract as a method, `client.<group>.<endpoint>({ path, urlParams, payload })`, with
 * the answer decoded and the spec's refusals as typed errors:
 * `Unauthorized`, `PlanRequired`, `RateLimited` (with `retryAfterSeconds`), `CreditsExhausted`
 * (with the `credits` object), `DailyQuota`, `InvalidRequest`, `NotFound`, ... each caught by its
 * tag (`Effect.catchTag("RateLimited", (e) => ...)`). Built on `HttpApiClient.make(AdIntelApi)`,
 * so it can never disagree with the server.
 */

export { CreditsExhausted, PlanRequired, Unauthorized } from "./access/gateway/Api.js"
export { DailyQuota } from "./shop/account/Api.js"
export { InternalServerError, InvalidRequest, NotFound, PayloadTooLarge } from "./kernel/Errors.js"

/**
 * spec: Errors, "Two kinds of 429", 1, with the seconds the answer's `Retry-After` asks for
 * (the body carries none; INTERPRETATIONS G5).
 */
export class RateLimited extends Data.TaggedError("RateLimited")<{
  readonly error: string
  readonly retryAfterSeconds: number
}> {}

export interface ClientOptions {
  /** Where the service answers, e.g. `https://adintel.example.com`. */
  readonly baseUrl: string | URL
  /** Sent as `X-API-Key` on every call (spec: Authentication). */
  readonly apiKey: string | Redacted.Redacted
}

/** The contract's rate-limit failure, as the client gives it: with its retry seconds. */
type WithRetry<E> = E extends { readonly _tag: "RateLimited" } ? RateLimited : E

/** One endpoint as a method: `HttpApiClient`'s own shape, with `WithRetry` on its errors. */
type Method<Endpoint, ApiError, GroupError> = [Endpoint] extends [
  HttpApiEndpoint.HttpApiEndpoint<
    infer _Name,
    infer _Method,
    infer Path,
    infer UrlParams,
    infer Payload,
    infer Headers,
    infer Success,
    infer Error,
    infer _R,
    infer _RE
  >
] ? <WithResponse extends boolean = false>(
    request: Simplify<HttpApiEndpoint.HttpApiEndpoint.ClientRequest<Path, UrlParams, Payload, Headers, WithResponse>>
  ) => Effect.Effect<
    WithResponse extends true ? [Success, HttpClientResponse.HttpClientResponse] : Success,
    WithRetry<Error | GroupError | ApiError> | HttpClientError.HttpClientError | ParseResult.ParseError
  >
  : never

type Group<Groups extends HttpApiGroup.HttpApiGroup.Any, Name extends string, ApiError> = [HttpApiGroup.HttpApiGroup.WithName<Groups, Name>] extends
  [HttpApiGroup.HttpApiGroup<infer _Id, infer Endpoints, infer GroupError, infer _R>]
  ? { readonly [Endpoint in Endpoints as HttpApiEndpoint.HttpApiEndpoint.Name<Endpoint>]: Method<Endpoint, ApiError, GroupError> }
  : never

/** Every group of the contract, every endpoint a method (`client.credits.balance()`). */
export type Client = typeof AdIntelApi extends HttpApi.HttpApi<infer _Id, infer Groups, infer ApiError, infer _R>
  ? { readonly [Name in HttpApiGroup.HttpApiGroup.Name<Groups>]: Group<Groups, Name, ApiError> }
  : never

/** The `Retry-After` of the current call's 429, for the error it becomes. */
const retryAfter = FiberRef.unsafeMake<Option.Option<number>>(Option.none())

const withRetryAfter = (effect: Effect.Effect<unknown, unknown>): Effect.Effect<unknown, unknown> =>
  Effect.locally(
    effect.pipe(
      Effect.catchIf(
        (error): error is { readonly _tag: "RateLimited"; readonly error: string } =>
          typeof error === "object" && error !== null && "_tag" in error && error._tag === "RateLimited",
        (error) =>
          Effect.flatMap(FiberRef.get(retryAfter), (seconds) =>
            Effect.fail(new RateLimited({ error: error.error, retryAfterSeconds: Option.getOrElse(seconds, () => 60) })))
      )
    ),
    retryAfter,
    Option.none()
  )

/** The client; needs an `HttpClient` (`FetchHttpClient.layer` works in Node and browsers). */
export const makeClient = (options: ClientOptions): Effect.Effect<Client, never, HttpClient.HttpClient> => {
  const key = typeof options.apiKey === "string" ? options.apiKey : Redacted.value(options.apiKey)
  return HttpApiClient.make(AdIntelApi, {
    baseUrl: options.baseUrl,
    transformClient: (client) =>
      client.pipe(
        HttpClient.mapRequest(HttpClientRequest.setHeader("x-api-key", key)),
        HttpClient.tap((response) =>
          response.status === 429
            ? FiberRef.set(retryAfter, Option.filter(Option.some(Number(response.headers["retry-after"])), Number.isFinite))
            : Effect.void
        )
      ),
    transformResponse: withRetryAfter
    // `transformResponse` is typed over `unknown`: the library cannot see that it swaps the
    // contract's RateLimited for the one with retry seconds, which `Client` states.
  }) as Effect.Effect<Client, never, HttpClient.HttpClient>
}
