import { HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import { AppConfig } from "../../platform/AppConfig.js"

/**
 * Where clients reach this service's media: `PUBLIC_URL`, else the request's own scheme and
 * host (the proxy's, under `TRUST_PROXY`). Answers turn media paths into URLs on it, so the
 * demo's images work on whatever address and port the service runs.
 */
export const mediaBase: Effect.Effect<string, never, HttpServerRequest.HttpServerRequest | AppConfig> = Effect.gen(function*() {
  const config = yield* AppConfig
  const request = yield* HttpServerRequest.HttpServerRequest
  if (Option.isSome(config.publicUrl)) return config.publicUrl.value.origin
  const header = (name: string) => config.trustProxy ? request.headers[name]?.split(",")[0]?.trim() : undefined
  const https = header("x-forwarded-proto") === "https"
  const host = header("x-forwarded-host") || request.headers["host"] || "localhost"
  // A Host header is the client's to write: only a plain host[:port] is used, else localhost.
  return `${https ? "https" : "http"}://${/^[A-Za-z0-9.:[\]-]{1,300}$/.test(host) ? host : "localhost"}`
})
