import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import {
  FetchHttpClient,
  HttpMiddleware,
  HttpServerError,
  HttpServerRequest,
  HttpTraceContext
} from "@effect/platform"
import { Clock, Config, type ConfigError, Context, Effect, Layer, Option, Redacted, type Tracer } from "effect"
import { createHash } from "node:crypto"
import { optionalHttpUrl, optionalSetting } from "../AppConfig.js"
import { httpDuration, httpRequests, unsafeRecord } from "./Metrics.js"

/**
 * Traces (issue 30, INTERPRETATIONS R2): a span per request, per service method and per SQL
 * statement (@effect/sql's own `sql.execute` spans, children of whatever span runs them).
 * `OTEL_EXPORTER_OTLP_ENDPOINT` set: exported over OTLP/HTTP (JSON) to `<endpoint>/v1/traces`
 * by @effect/opentelemetry's OtlpTracer, no OpenTelemetry SDK in the process. Unset: no
 * exporter runs, and spans stay Effect's own in-memory ones.
 */

/** A percent-encoded part of `OTEL_EXPORTER_OTLP_HEADERS`, as sent when it does not decode. */
const percentDecoded = (text: string) => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** `OTEL_EXPORTER_OTLP_HEADERS`: `name=value` pairs, comma-separated (values may carry a collector's key). */
const parseHeaders = (text: string): Record<string, string> =>
  Object.fromEntries(
    text.split(",").map((pair) => pair.trim()).filter((pair) => pair.includes("=")).map((pair) => {
      const at = pair.indexOf("=")
      return [percentDecoded(pair.slice(0, at).trim()), percentDecoded(pair.slice(at + 1).trim())]
    })
  )

export interface TracingSettings {
  readonly endpoint: Option.Option<URL>
  readonly serviceName: string
  readonly headers: Option.Option<Redacted.Redacted>
}

export const tracingSettings: Config.Config<TracingSettings> = Config.all({
  endpoint: optionalHttpUrl("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
  serviceName: Config.map(optionalSetting("OTEL_SERVICE_NAME"), Option.getOrElse(() => "adintel")),
  headers: Config.option(Config.redacted("OTEL_EXPORTER_OTLP_HEADERS"))
})

/** spec: INTERPRETATIONS R2: traces go to `<endpoint>/v1/traces`. */
export const tracesUrl = (endpoint: URL): string => `${endpoint.href.replace(/\/+$/, "")}/v1/traces`

/** The OTLP/HTTP exporter when `OTEL_EXPORTER_OTLP_ENDPOINT` is set; nothing at all when it is not. */
export const layer: Layer.Layer<never, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.map(tracingSettings, ({ endpoint, headers, serviceName }) =>
    Option.match(endpoint, {
      onNone: () => Layer.empty,
      onSome: (url) =>
        OtlpTracer.layer({
          url: tracesUrl(url),
          resource: { serviceName },
          ...Option.match(headers, { onNone: () => ({}), onSome: (value) => ({ headers: parseHeaders(Redacted.value(value)) }) })
        }).pipe(Layer.provide([FetchHttpClient.layer, OtlpSerialization.layerJson]))
    }))
)

/**
 * The span options of every service method, `Effect.fn("Service.method", serviceSpan)` (house
 * style: each method carries a span): no stack trace on the span, its name says where it is.
 */
export const serviceSpan: Tracer.SpanOptions = { captureStackTrace: false }

/**
 * An account as spans name it: the first 16 hex digits of SHA-256 over `adintel-account:<id>`
 * (ids are random UUIDs, so the digest gives nothing back); never the id's text, never a key.
 */
export const accountHash = (accountId: string): string =>
  createHash("sha256").update(`adintel-account:${accountId}`, "utf8").digest("hex").slice(0, 16)

/**
 * What the layers of one request learn about it, for its span and its metrics: the gateway
 * writes who called (hashed) and the credit it charged, a refund marks it given back.
 */
export interface RequestFactsShape {
  account: string | undefined
  charged: number
  refunded: number
  remaining: number | undefined
}

export class RequestFacts extends Context.Tag("adintel/RequestFacts")<RequestFacts, RequestFactsShape>() {}

/** Notes on the current request, if there is one (background fibers have none). */
export const noteRequest = (note: (facts: RequestFactsShape) => void): Effect.Effect<void> =>
  Effect.map(Effect.serviceOption(RequestFacts), Option.map(note))

/** The route label: the router writes the matched template on the request span (closed set), else `unmatched`. */
const routeOf = (attributes: ReadonlyMap<string, unknown>): string => {
  const route = attributes.get("http.route")
  return typeof route === "string" ? route : "unmatched"
}

/**
 * The request span and the request metrics. Replaces the platform's own request span, which
 * records the full URL and query string (where an `api_key` may be): this one records the
 * method, the route template, the status, the caller's account digest and the credits.
 * A `traceparent` header from the client continues its trace.
 */
export const observeRequests = HttpMiddleware.make((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.flatMap(Clock.currentTimeNanos, (startedAt) => {
      const facts: RequestFactsShape = { account: undefined, charged: 0, refunded: 0, remaining: undefined }
      return Effect.useSpan(
        `http.server ${request.method}`,
        {
          kind: "server",
          captureStackTrace: false,
          parent: Option.getOrUndefined(HttpTraceContext.fromHeaders(request.headers)),
          attributes: { "http.request.method": request.method }
        },
        (span) =>
          app.pipe(
            Effect.withParentSpan(span),
            Effect.provideService(RequestFacts, facts),
            Effect.exit,
            Effect.flatMap((exit) =>
              Effect.flatMap(Clock.currentTimeNanos, (endedAt) => {
                const status = HttpServerError.exitResponse(exit).status
                const route = routeOf(span.attributes)
                span.attribute("http.response.status_code", status)
                span.attribute("adintel.credits.charged", facts.charged)
                span.attribute("adintel.credits.refunded", facts.refunded)
                if (facts.account !== undefined) span.attribute("adintel.account", facts.account)
                if (facts.remaining !== undefined) span.attribute("adintel.credits.remaining", facts.remaining)
                unsafeRecord(httpRequests, 1, { route, status: String(status) })
                unsafeRecord(httpDuration, Number(endedAt - startedAt) / 1e9, { route })
                return exit
              })
            )
          )
      )
    })
  ))

/** `HttpMiddleware.tracer` off: `observeRequests` is the request span (see there why). */
export const withoutPlatformRequestSpans = HttpMiddleware.withTracerDisabledWhen(() => true)
