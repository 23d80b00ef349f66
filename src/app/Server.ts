import type { ReplicaHealth } from "../platform/db/Replicas.js"
import {
  FileSystem,
  HttpApi,
  HttpApiBuilder,
  HttpApp,
  HttpMiddleware,
  type HttpRouter,
  HttpServer,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse,
  Path
} from "@effect/platform"
import { HttpApiDecodeError } from "@effect/platform/HttpApiError"
import { NodeHttpServer } from "@effect/platform-node"
import type { SqlClient } from "@effect/sql"
import { Cause, Clock, type ConfigError, Effect, Layer, Option, ParseResult, Schema, type Scope } from "effect"
import { createServer } from "node:http"
import type { Duplex } from "node:stream"
import { Accounts } from "../access/accounts/Accounts.js"
import { AdminAuthLive } from "../access/accounts/Http.js"
import { AdSimilarity } from "../ads/library/AdSimilarity.js"
import { McpContract } from "../mcp/McpTools.js"
import { AdIntelApi } from "./Api.js"
import { FamilyHandlersLive, FamilyServicesLive } from "./Families.js"
import { DocsPageLive, OpenApiDocumentLive } from "./OpenApiDocument.js"
import { AppConfig, type AppSettings } from "../platform/AppConfig.js"
import { InternalServerError, InvalidRequest, NotFound, PayloadTooLarge, RequestHeaderFieldsTooLarge } from "../kernel/Errors.js"
import { RemoteMedia } from "../platform/media/RemoteMedia.js"
import { describeIssue, describeParseError } from "../kernel/Issues.js"
import { formOf, twoFormRoutes } from "../kernel/Forms.js"
import { Gateway } from "../access/gateway/Gateway.js"
import { MeteredLive, pathOf } from "../access/gateway/Http.js"
import { CallCharge, type CallEnd, endingWith } from "../access/gateway/CallCharge.js"
import { InFlight } from "../access/gateway/InFlight.js"
import { malformedJson } from "../kernel/Json.js"
import { BodyRejected, boundedRequest } from "./RequestBody.js"
import { SessionAuthLive } from "../access/session/Http.js"
import { ShopRollups } from "../shop/search/ShopRollups.js"
import { TrendCounts } from "../ads/trends/TrendCounts.js"
import { SignedIn } from "../access/session/SignedIn.js"
import { MetricsRouteLive } from "../system/Metrics.js"
import { SavedSearches } from "../ads/savedSearches/SavedSearches.js"
import { observeRequests, withoutPlatformRequestSpans } from "../platform/telemetry/Tracing.js"
import { RouteHandlers } from "../access/gateway/RouteHandlers.js"
import type { AudioExtractor } from "../transcripts/engines/audio/AudioExtractor.js"
import { PipelineLive } from "../transcripts/Engines.js"
import type { MediaFetcher } from "../transcripts/engines/media/MediaFetcher.js"
import type { ScriptWriter } from "../transcripts/engines/script/ScriptWriter.js"
import type { Transcriber } from "../transcripts/engines/speech/Transcriber.js"
import { Transcripts } from "../transcripts/Transcripts.js"
import { maxVisualBodyBytes, visualPath } from "../stores/visual/Api.js"
import { AccountAlerts } from "../notifications/alerts/AccountAlerts.js"
import { Digests } from "../notifications/digest/Digests.js"
import { Deliveries } from "../notifications/webhooks/Deliveries.js"

/** spec: INTERPRETATIONS G10/G11: the first decoding issue, naming the field. */
export const describeDecodeError = (error: HttpApiDecodeError): string => describeIssue(error.issues[0])

const isJsonDecodeFailure = (defect: unknown) =>
  HttpServerError.isServerError(defect) && defect._tag === "RequestError" && defect.reason === "Decode"

/** A body the bounded request refused (RequestBody.ts), as the platform's read failure carries it. */
const bodyRejection = (defect: unknown): Option.Option<BodyRejected> =>
  HttpServerError.isServerError(defect) && defect._tag === "RequestError" && defect.cause instanceof BodyRejected
    ? Option.some(defect.cause)
    : Option.none()

const isRouteNotFound = (failure: unknown) => HttpServerError.isServerError(failure) && failure._tag === "RouteNotFound"

/**
 * Sign-in, the key page's forms and the admin API take small bodies; every other route the
 * general limit (the NDJSON import streams and counts its own, up to `MAX_IMPORT_BYTES`).
 */
export const bodyLimitOf = (path: string, config: Pick<AppSettings, "maxBodyBytes" | "maxFormBytes">): number =>
  path === "/login" || path === "/logout" || path === "/api/regenerate" || path.startsWith("/admin/")
    ? config.maxFormBytes
    // Visual search takes a photo of up to 10 MiB; a larger one is its 400 naming `image` (issue 20).
    : path === visualPath || path === visualPath.replace("/api/v1/", "/api/")
    ? Math.max(config.maxBodyBytes, maxVisualBodyBytes)
    : config.maxBodyBytes

/**
 * The service's answers for what the routes themselves do not answer, applied inside HttpApi
 * so the contract's error schemas encode them:
 * - every body is read bounded (RequestBody.ts): too large is 413, malformed (not JSON, nested
 *   too deep, a broken multipart form) is G11's 400, and a 413 closes the connection rather
 *   than read the rest;
 * - bad input is G11's `{ success: false, error }` naming the field, not HttpApi's decode body;
 * - an unknown path is a JSON 404 (HttpApi answers an empty body by default);
 * - anything that escaped every handler is the 500 envelope; its cause is logged, never sent;
 * - the route's exit, so mapped, is its answer: it ends the call (`CallEnd`), which settles a
 *   metered call's credit (access/gateway/CallCharge.ts).
 */
export const ConventionsLive = HttpApiBuilder.middleware(Effect.gen(function*() {
  const config = yield* AppConfig
  const { api } = yield* HttpApi.Api
  const twoForms = twoFormRoutes(api)
  /**
   * G11 for a body declared in two forms (kernel/Forms.ts): the refusal of the form the content
   * type names, so it names a field of the body that was sent. The body is read again from the
   * bounded request, which keeps what it read.
   */
  const describeRefusal = (error: HttpApiDecodeError, request: HttpServerRequest.HttpServerRequest) => {
    const contentType = request.headers["content-type"] ?? "application/json"
    const form = Option.flatMap(twoForms(request.method, pathOf(request.url)), (payload) => formOf(payload, contentType))
    if (Option.isNone(form)) return Effect.succeed(describeDecodeError(error))
    const body: Effect.Effect<unknown, unknown, Scope.Scope | FileSystem.FileSystem | Path.Path> =
      contentType.toLowerCase().includes("multipart/form-data") ? request.multipart : request.json
    return body.pipe(
      Effect.flatMap(Schema.decodeUnknown(form.value)),
      Effect.match({ onFailure: (refusal) => ParseResult.isParseError(refusal) ? describeParseError(refusal) : describeDecodeError(error), onSuccess: () => describeDecodeError(error) })
    )
  }
  return (app: HttpApp.Default) =>
    // The app's error type is `never` by HttpApi's typing; at run time it fails with the typed
    // errors of the routes, which the API's error schema encodes afterwards.
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (original) => {
      const request = boundedRequest(original, bodyLimitOf(pathOf(original.url), config))
      // The route's exit, mapped as below, is the answer: a metered call's credit is settled by it.
      return endingWith((app as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpRouter.HttpRouter.Provided | CallEnd>).pipe(
        Effect.provideService(HttpServerRequest.HttpServerRequest, request),
        Effect.catchAllCause((cause) => {
          if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
          const failure = Cause.failureOption(cause)
          if (failure._tag === "Some") {
            const error = failure.value
            if (error instanceof HttpApiDecodeError) {
              return Effect.flatMap(describeRefusal(error, request), (message) => Effect.fail(new InvalidRequest({ error: message })))
            }
            if (isRouteNotFound(error)) return Effect.fail(new NotFound({ error: "Not found" }))
            return Effect.failCause(cause)
          }
          const rejected = Option.flatMap(Cause.dieOption(cause), bodyRejection)
          if (Option.isSome(rejected)) {
            const { status, message } = rejected.value
            if (status === 400) return Effect.fail(new InvalidRequest({ error: message }))
            return HttpApp.appendPreResponseHandler((_, response) => Effect.succeed(HttpServerResponse.setHeader(response, "connection", "close"))).pipe(
              Effect.zipRight(Effect.fail(new PayloadTooLarge({ error: message })))
            )
          }
          if (Cause.dieOption(cause).pipe(Option.exists(isJsonDecodeFailure))) {
            return Effect.fail(new InvalidRequest({ error: malformedJson }))
          }
          return Effect.zipRight(Effect.logError("Unhandled failure", cause), Effect.fail(new InternalServerError()))
        })
      ))
    }) as typeof app
}))

/** A query parameter's name as the server reads it (percent-decoded; `+` is a space); as sent when it does not decode. */
const parameterName = (raw: string) => {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "))
  } catch {
    return raw
  }
}

/** A share link's path, in origin form or absolute form (`http://host/share/<token>`): the token opens a board. */
const sharePath = /^((?:[a-z][a-z0-9+.-]*:\/\/[^/?#]*)?\/share\/)[^/?#]+/i

/**
 * A request target as the access log writes it: every `api_key` value replaced (G13), its name
 * compared as the server reads it, so `api%5Fkey` or `API_KEY` is no way around it; and a share
 * link's token replaced, whatever form the request line took.
 */
export const redactUrl = (url: string): string => {
  const at = url.indexOf("?")
  const target = (at === -1 ? url : url.slice(0, at)).replace(sharePath, "$1[REDACTED]")
  if (at === -1) return target
  const query = url.slice(at + 1).split("&").map((pair) => {
    const eq = pair.indexOf("=")
    const name = eq === -1 ? pair : pair.slice(0, eq)
    return parameterName(name).toLowerCase() === "api_key" ? `${name}=[REDACTED]` : pair
  })
  return `${target}?${query.join("&")}`
}

/** One line per answered request: method, path (keys redacted), status and duration. */
export const accessLog = HttpMiddleware.make((app) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const start = yield* Clock.currentTimeMillis
    const response = yield* app
    const end = yield* Clock.currentTimeMillis
    yield* Effect.logInfo(`${request.method} ${redactUrl(request.url)} ${response.status} ${end - start}ms`)
    return response
  })
)

/**
 * Every service the routes and the background fibers use: the metered path's, the registry of
 * handlers, remote media, and each family's (app/Families.ts). Each brings what it uses through
 * its own `dependencies`, so these are lists, not an order; whatever a handler needs and they
 * lack leaves `layer()` with an unmet requirement, which does not compile.
 */
export const ServicesLive = Layer.mergeAll(
  Gateway.Default,
  InFlight.Default,
  CallCharge.Default,
  Accounts.Default,
  RemoteMedia.Default,
  RouteHandlers.Default,
  // MCP's tools are the routes of the whole contract that say they are (kernel/McpTool.ts).
  FamilyServicesLive.pipe(Layer.provide(Layer.succeed(McpContract, AdIntelApi)))
)

/** What the routes may use: the services above, configuration, transcripts and the session's lookup. */
export type RouteServices = Layer.Layer.Success<typeof ServicesLive> | AppConfig | Transcripts | SignedIn

/** The contract with all its handlers: each family's (app/Families.ts), behind the middleware. */
export const ApiLive = HttpApiBuilder.api(AdIntelApi).pipe(
  Layer.provide(FamilyHandlersLive),
  Layer.provide([MeteredLive, SessionAuthLive, AdminAuthLive])
)

/** Refunds charges whose process died (G4), for as long as the server runs. */
export const SweeperLive = Layer.scopedDiscard(
  Effect.flatMap(Gateway, (gateway) => Effect.forkScoped(gateway.sweeper))
)

/** Keeps the short-video shop's explore rollups in step with the daily series. */
export const RollupsLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const rollups = yield* ShopRollups
    const { rollupRefreshEvery } = yield* AppConfig
    yield* Effect.forkScoped(rollups.keepFresh(rollupRefreshEvery))
  })
)

/**
 * The brand digests and the account alerts (issue 19), and the webhook deliveries (issue 32):
 * every replica runs all three; each item is made once, each attempt sent once.
 */
export const NotificationJobsLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    yield* Effect.forkScoped((yield* Digests).run)
    yield* Effect.forkScoped((yield* AccountAlerts).run)
    yield* Effect.forkScoped((yield* Deliveries).run)
  })
)

/** Forgets saved searches' matches past `SAVED_SEARCH_MATCHES_KEEP` (issue 44): at start, then every `SAVED_SEARCH_PRUNE_EVERY`. */
export const SavedSearchPruningLive = Layer.scopedDiscard(Effect.flatMap(SavedSearches, (searches) => Effect.forkScoped(searches.pruning)))

/** Counts the ads imports stored into the trends' daily counts (issue 20): at start, then after each import. */
export const TrendCountingLive = Layer.scopedDiscard(Effect.flatMap(TrendCounts, (counts) => Effect.forkScoped(counts.run)))

export interface ServeOptions {
  /** Extra middleware around the whole app, outermost last (tests stack logger and CORS here). */
  readonly middleware?: ReadonlyArray<HttpMiddleware.HttpMiddleware>
  readonly accessLog?: boolean
}

/**
 * Serves any `HttpApi` built from our groups with the service's conventions: G11 errors, JSON
 * fallbacks, `/openapi.json`, `/docs` (works offline), the access log. `api` is the
 * `HttpApiBuilder.api(...)` layer; the result still needs an `HttpServer` and the services.
 */
export const serve = <E, R>(api: Layer.Layer<HttpApi.Api, E, R>, options: ServeOptions = {}) =>
  HttpApiBuilder.serve((app) => {
    // (`any`: each middleware widens the app's error and context types; HttpApiBuilder.serve takes the result.)
    let served: HttpApp.Default<any, any> = app
    if (options.accessLog !== false) served = accessLog(served)
    served = observeRequests(served)
    for (const middleware of options.middleware ?? []) served = middleware(served)
    return served as HttpApp.Default
  }).pipe(
    Layer.provide(DocsPageLive),
    Layer.provide(OpenApiDocumentLive),
    Layer.provide(MetricsRouteLive),
    Layer.provide(ConventionsLive),
    Layer.provide(api),
    withoutPlatformRequestSpans,
    HttpServer.withLogAddress
  )

/**
 * Node refuses some requests itself, before any route runs: headers over its limit (431), a
 * request it cannot parse (400), one whose headers never finish (408). Its own answers have
 * no body; these carry the service's envelope, and close the connection as Node's do.
 */
export const answerClientError = (error: Error & { readonly code?: string }, socket: Duplex): void => {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy()
    return
  }
  const [status, reason, message] = error.code === "HPE_HEADER_OVERFLOW"
    ? [431, "Request Header Fields Too Large", new RequestHeaderFieldsTooLarge().error]
    : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
    ? [408, "Request Timeout", "Request timeout"]
    : [400, "Bad Request", "Bad request"]
  const body = JSON.stringify({ success: false, error: message })
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  )
}

/** A Node HTTP server on `HOST`:`PORT` (port 0: any free port). */
export const NodeServerLive = Layer.unwrapEffect(
  Effect.map(AppConfig, ({ host, port }) =>
    NodeHttpServer.layer(() => createServer().on("clientError", answerClientError), { port, host }))
)

export interface LayerOptions extends ServeOptions {
  /** The contract and handlers to serve: `ApiLive` unless a test or an extension composes its own. */
  readonly api?: Layer.Layer<HttpApi.Api, never, RouteServices | SqlClient.SqlClient | ReplicaHealth>
  /**
   * The transcript pipeline's layers (media, audio, speech, script): the configured engines
   * unless a test swaps them.
   */
  readonly pipeline?: Layer.Layer<MediaFetcher | AudioExtractor | Transcriber | ScriptWriter, ConfigError.ConfigError, RemoteMedia>
}

/** The start-up log names the engines configuration chose, as `/ready` does. */
const EnginesLog = Layer.effectDiscard(
  Effect.gen(function*() {
    const similarity = yield* AdSimilarity
    const { engines } = yield* Transcripts
    yield* Effect.logInfo(`Similar ads: ${similarity.engine}`)
    yield* Effect.logInfo(`Transcripts: audio ${engines.audio}; speech ${engines.transcription}; scripts ${engines.scripts}`)
  })
)

/** The whole service, short of the database and the configuration. */
export const layer = (options: LayerOptions = {}) =>
  Layer.mergeAll(serve(options.api ?? ApiLive, options), SweeperLive, RollupsLive, NotificationJobsLive, TrendCountingLive, SavedSearchPruningLive, EnginesLog).pipe(
    Layer.provideMerge(NodeServerLive),
    // Merged rather than provided: a test waits on what `Transcripts` exposes (`waiting`).
    Layer.provideMerge(Layer.mergeAll(
      Transcripts.Default.pipe(Layer.provide(options.pipeline ?? PipelineLive)),
      SignedIn.Default
    )),
    Layer.provide(ServicesLive)
  )

