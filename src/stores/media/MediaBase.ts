import { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { AppConfig } from "../../platform/AppConfig.js"
import { baseUrl } from "../../platform/Forwarded.js"

/**
 * Where clients reach this service's media: `PUBLIC_URL`, else the request's own scheme and
 * host (the trusted proxies', under `TRUST_PROXY`). Answers turn media paths into URLs on it, so
 * the demo's images work on whatever address and port the service runs.
 */
export const mediaBase: Effect.Effect<string, never, HttpServerRequest.HttpServerRequest | AppConfig> = Effect.gen(function*() {
  return baseUrl(yield* HttpServerRequest.HttpServerRequest, yield* AppConfig)
})
