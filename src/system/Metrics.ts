import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option, Redacted, Stream } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { TrendCounts } from "../ads/trends/TrendCounts.js"
import { AppConfig } from "../platform/AppConfig.js"
import { DatabasePool } from "../platform/db/Database.js"
import { ReplicaHealth } from "../platform/db/Replicas.js"
import { dbPoolConnections, record, replicaHealthy, replicaLag, scrape, transcriptionQueue, trendBacklog } from "../platform/telemetry/Metrics.js"
import { Transcripts } from "../transcripts/Transcripts.js"

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest()

/** spec: INTERPRETATIONS R2: the Prometheus text exposition format, version 0.0.4. */
export const contentType = "text/plain; version=0.0.4; charset=utf-8"

const unauthorized = HttpServerResponse.unsafeJson({ success: false, error: "Unauthorized" }, {
  status: 401,
  headers: { "www-authenticate": "Bearer" }
})

/**
 * `GET /metrics` (spec: INTERPRETATIONS R2): the service's metrics (platform/telemetry/Metrics.ts)
 * for a Prometheus scraper holding `Authorization: Bearer <ADMIN_TOKEN>`; 401 without it (and
 * with `ADMIN_TOKEN` unset, when no token can match). Not in the contract: an operator's route,
 * like `/docs`. The gauges are sampled as the scrape asks: the database pool, the read
 * replicas' health and lag, the trends' backlog, the transcription queue.
 */
export const MetricsRouteLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const { adminToken } = yield* AppConfig
    const expected = Option.map(adminToken, (token) => sha256(Redacted.value(token)))
    const trendCounts = yield* TrendCounts
    const transcripts = yield* Transcripts
    const replicas = yield* ReplicaHealth
    const sample = Effect.gen(function*() {
      const pool = yield* Effect.serviceOption(DatabasePool)
      if (Option.isSome(pool)) {
        const { idle, inUse, waiting } = yield* pool.value.connections
        yield* record(dbPoolConnections, inUse, { state: "in_use" })
        yield* record(dbPoolConnections, idle, { state: "idle" })
        yield* record(dbPoolConnections, waiting, { state: "waiting" })
      }
      // The read replicas by position (a URL holds a password): a closed, configured set of labels.
      for (const replica of yield* replicas.states) {
        yield* record(replicaHealthy, replica.healthy ? 1 : 0, { replica: replica.name })
        if (replica.lagMs !== null) yield* record(replicaLag, replica.lagMs / 1000, { replica: replica.name })
      }
      yield* record(trendBacklog, yield* trendCounts.backlog)
      const waiting = yield* Stream.runHead(transcripts.waiting)
      yield* record(transcriptionQueue, Option.getOrElse(waiting, () => 0))
    })
    yield* router.get(
      "/metrics",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const token = /^bearer\s+(.+)$/i.exec(request.headers["authorization"]?.trim() ?? "")?.[1]?.trim()
        // Digests compared: constant time, whatever the lengths.
        if (Option.isNone(expected) || token === undefined || !timingSafeEqual(sha256(token), expected.value)) return unauthorized
        yield* sample
        return HttpServerResponse.text(yield* scrape, { contentType })
      })
    )
  })
)
