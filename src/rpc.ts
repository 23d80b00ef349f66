import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { RpcClient, RpcSerialization } from "@effect/rpc"
import { Effect, Layer, Redacted } from "effect"
import { AdIntelRpcs } from "./rpc/Procedures.js"

/**
 * The typed RPC client for integrators (`import { makeClient } from "adintel/rpc"`; issue 32, H4):
 * every research procedure as a method (`client.SearchSocialAds({ q: "shoes" })`), and the
 * streams `ExportSearch` and `Events` as `Stream`s. Refusals arrive typed, by `_tag`:
 * `Unauthorized`, `PlanRequired`, `RateLimited`, `CreditsExhausted`, `TooManyInFlight`,
 * `InvalidRequest`, `NotFound`, ... Built on `RpcClient.make(AdIntelRpcs)`, the very
 * group the server serves.
 */

export { AdIntelRpcs, Events, ExportPage, ExportSearch, StreamedEvent } from "./rpc/Procedures.js"
export { CreditsExhausted, PlanRequired, RateLimited, TooManyInFlight, Unauthorized } from "./access/gateway/Api.js"
export { CorpusUnavailable, InternalServerError, InvalidRequest, NotFound } from "./kernel/Errors.js"

/**
 * A client of the service at `baseUrl` (e.g. `https://adintel.example.com`), sending `apiKey` as
 * `X-API-Key` on every call, over HTTP with NDJSON. It lives as long as the caller's scope.
 */
export const makeClient = (baseUrl: string | URL, apiKey: string | Redacted.Redacted) => {
  const key = Redacted.isRedacted(apiKey) ? Redacted.value(apiKey) : apiKey
  const protocol = RpcClient.layerProtocolHttp({
    url: `${String(baseUrl).replace(/\/+$/, "")}/rpc`,
    transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("x-api-key", key))
  }).pipe(Layer.provide([RpcSerialization.layerNdjson, FetchHttpClient.layer]))
  return Effect.flatMap(Layer.build(protocol), (context) => Effect.provide(RpcClient.make(AdIntelRpcs), context))
}
