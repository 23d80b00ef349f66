import { describe, expect, it, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Metric, MetricBoundaries, Option, Queue, Redacted, TestClock } from "effect"
import parsePrometheusTextFormat, { type Family } from "parse-prometheus-text-format"
import { prometheusText, record } from "../src/platform/telemetry/Metrics.js"
import { Gateway } from "../src/access/gateway/Gateway.js"
import { InFlight } from "../src/access/gateway/InFlight.js"
import { TrendCounts } from "../src/ads/trends/TrendCounts.js"
import * as World from "./fixtures/world.js"
import { ProbeApiLive, ProbeHold, withProbeHold } from "./support/ProbeApi.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, call, keyHeader, testServer } from "./support/TestServer.js"

const adminToken = "metrics-admin-token-0123456789abcdef"
const unauthorized = `{"success":false,"error":"Unauthorized"}`

/** `GET /metrics` as a Prometheus scraper sends it: the text. */
const scrapeText = Effect.gen(function*() {
  const answer = yield* call("/metrics", { headers: { Authorization: `Bearer ${adminToken}` } })
  expect(answer.status).toBe(200)
  expect(answer.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
  return answer.body
})

/** ...parsed by a Prometheus text-format parser. */
const scrape = Effect.map(scrapeText, parsePrometheusTextFormat)

/**
 * How many observations a labelled histogram's series holds (its `+Inf` bucket). The parser
 * merges every series of a histogram into one, so the text is first cut down to the one series
 * (`series`: its labels as the text writes them), which the parser then reads.
 */
const observationsOf = (text: string, name: string, series: string): number => {
  const lines = text.split("\n").filter((line) => line.startsWith("#") || !line.startsWith(`${name}_`) || line.includes(`{${series}`))
  const family = parsePrometheusTextFormat(lines.join("\n")).find((f) => f.name === name)
  expect(family?.type).toBe("HISTOGRAM")
  return Number(family?.metrics[0]?.buckets?.["+Inf"] ?? 0)
}

const matches = (labels: Readonly<Record<string, string>> | undefined, wanted: Readonly<Record<string, string>>) =>
  Object.entries(wanted).every(([key, value]) => labels?.[key] === value)

/** A counter's or gauge's value in the series with `labels` (0 when the series is not there yet). */
const valueOf = (families: ReadonlyArray<Family>, name: string, labels: Readonly<Record<string, string>> = {}): number => {
  const family = families.find((f) => f.name === name)
  const sample = family?.metrics.find((m) => matches(m.labels, labels))
  return sample === undefined ? 0 : Number(sample.value)
}

/** A histogram's observation count in the series with `labels`. */
const countOf = (families: ReadonlyArray<Family>, name: string, labels: Readonly<Record<string, string>> = {}): number => {
  const sample = families.find((f) => f.name === name)?.metrics.find((m) => matches(m.labels, labels))
  return sample === undefined ? 0 : Number(sample.count)
}

const withAdmin = { adminToken: Option.some(Redacted.make(adminToken)) }

/** A few milliseconds of real time: the server answers over real sockets (as in fairUse.test.ts). */
const pause = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))

describe("GET /metrics (issue 30; INTERPRETATIONS R2)", () => {
  layer(testServer({ config: { ...withAdmin, rateLimitPerMinute: 2 } }).pipe(Layer.provideMerge(TestDatabase)))((it) => {
    it.effect("answers 401 without the admin token, and the text format 0.0.4 with it", () =>
      Effect.gen(function*() {
        const attempts: Array<Record<string, string>> = [{}, { Authorization: "Bearer wrong-token" }, { Authorization: adminToken }, { "X-API-Key": adminToken }]
        for (const headers of attempts) {
          const answer = yield* call("/metrics", { headers })
          expect([answer.status, answer.body]).toEqual([401, unauthorized])
        }
        const families = yield* scrape
        expect(families.find((f) => f.name === "adintel_db_pool_connections")?.type).toBe("GAUGE")
      }))

    it.effect("counts requests by route and status, their latency, the credits charged and the rate limit's 429s", () =>
      Effect.gen(function*() {
        const beforeText = yield* scrapeText
        const before = parsePrometheusTextFormat(beforeText)
        const { api_key } = yield* account()
        const statuses: Array<number> = []
        for (let i = 0; i < 3; i++) statuses.push((yield* call("/api/v1/credits", keyHeader(api_key))).status)
        expect(statuses).toEqual([200, 200, 429])
        const afterText = yield* scrapeText
        const after = parsePrometheusTextFormat(afterText)

        const delta = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels)
        expect(delta("adintel_http_requests_total", { route: "/api/v1/credits", status: "200" })).toBe(2)
        expect(delta("adintel_http_requests_total", { route: "/api/v1/credits", status: "429" })).toBe(1)
        expect(delta("adintel_credits_charged_total")).toBe(2)
        expect(delta("adintel_rate_limit_refusals_total", { limit: "per_minute" })).toBe(1)
        const latency = (text: string) => observationsOf(text, "adintel_http_request_duration_seconds", `route="/api/v1/credits"`)
        expect(latency(afterText) - latency(beforeText)).toBe(3)
        // Two admissions went to the gateway's batches; the 429 did too.
        expect(countOf(after, "adintel_admission_batch_size") - countOf(before, "adintel_admission_batch_size")).toBe(3)
        expect(countOf(after, "adintel_admission_wait_seconds") - countOf(before, "adintel_admission_wait_seconds")).toBe(3)
      }))

    it.effect("labels unknown paths `unmatched`: the series stay bounded whatever clients send", () =>
      Effect.gen(function*() {
        const before = yield* scrape
        for (const path of ["/no/such/a", "/no/such/b", "/api/v1/credits/extra?api_key=secret-in-query"]) {
          expect((yield* call(path)).status).toBe(404)
        }
        const after = yield* scrape
        expect(valueOf(after, "adintel_http_requests_total", { route: "unmatched", status: "404" }) -
          valueOf(before, "adintel_http_requests_total", { route: "unmatched", status: "404" })).toBe(3)
        const routes = after.find((f) => f.name === "adintel_http_requests_total")!.metrics.map((m) => m.labels?.["route"])
        expect(routes.filter((r) => r?.startsWith("/no/") || r?.includes("secret-in-query"))).toEqual([])
      }))

    it.effect("counts imported records by entity and the ads counted into the trends, whose backlog is then empty", () =>
      Effect.gen(function*() {
        const before = yield* scrape
        const ingest = (entity: string, records: ReadonlyArray<unknown>) =>
          call(`/admin/ingest/${entity}`, {
            method: "POST",
            headers: { Authorization: `Bearer ${adminToken}`, "content-type": "application/x-ndjson" },
            body: World.ndjson(records)
          })
        for (const [entity, records] of [["stores", World.stores], ["landers", World.landers], ["advertisers", World.advertisers]] as const) {
          expect((yield* ingest(entity, records)).status).toBe(200)
        }
        const ads = yield* ingest("ads", [World.ad("metrics-1"), World.ad("metrics-2"), World.ad("metrics-3")])
        expect(JSON.parse(ads.body)).toEqual({ accepted: 3, rejected: 0, errors: [] })
        // Every imported ad counted, and the counting fiber between rounds.
        const trends = yield* TrendCounts
        yield* trends.flush
        yield* trends.idle
        const after = yield* scrape
        const delta = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels)
        expect(delta("adintel_imported_records_total", { entity: "ads" })).toBe(3)
        expect(delta("adintel_imported_records_total", { entity: "advertisers" })).toBe(2)
        expect(delta("adintel_trend_counted_ads_total")).toBe(3)
        expect(valueOf(after, "adintel_trend_backlog_ads")).toBe(0)
      }))

    it.effect("shows the database pool, the trends' backlog and the transcription queue as they are at the scrape", () =>
      Effect.gen(function*() {
        const families = yield* scrape
        // The scrape itself holds no connection; the pool has opened at least one by now.
        expect(valueOf(families, "adintel_db_pool_connections", { state: "in_use" }) + valueOf(families, "adintel_db_pool_connections", { state: "idle" })).toBeGreaterThan(0)
        expect(valueOf(families, "adintel_db_pool_connections", { state: "waiting" })).toBe(0)
        expect(families.find((f) => f.name === "adintel_trend_backlog_ads")?.metrics.map((m) => Number(m.value))).toEqual([0])
        expect(families.find((f) => f.name === "adintel_transcription_queue")?.metrics.map((m) => Number(m.value))).toEqual([0])
      }))
    it.effect("counts the sweeper's refunds apart from the calls' own", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const gateway = yield* Gateway
        // A charge nobody completes; every answered call's completion written first.
        yield* gateway.admit(Option.some(api_key), { method: "GET", route: "/api/v1/credits" })
        yield* gateway.flush
        const before = yield* scrape
        // Past LEDGER_SWEEP_AFTER (6 hours): the ceiling refunds it.
        yield* TestClock.adjust("361 minutes")
        expect(yield* gateway.sweep).toBe(1)
        const after = yield* scrape
        const delta = (labels: Record<string, string>) => valueOf(after, "adintel_credits_refunded_total", labels) - valueOf(before, "adintel_credits_refunded_total", labels)
        expect([delta({ by: "sweeper" }), delta({ by: "call" })]).toEqual([1, 0])
      }))
  })

  layer(withProbeHold((api) => testServer({ api, config: { ...withAdmin, maxCallsInFlight: 1 } })).pipe(Layer.provideMerge(TestDatabase)))((it) => {
    it.effect("counts a call refused past MAX_CALLS_IN_FLIGHT, and its credit given back", () =>
      Effect.gen(function*() {
        const before = yield* scrape
        const hold = yield* ProbeHold
        const { api_key, id } = yield* account()
        const held = yield* Effect.fork(call("/api/v1/probe/held", keyHeader(api_key)))
        const running = yield* Queue.take(hold)
        const second = yield* Effect.fork(call("/api/v1/probe/soft", keyHeader(api_key)))
        // The second call waits for the slot (IN_FLIGHT_WAIT, 2 s of the server's clock, the test's).
        while ((yield* Effect.flatMap(InFlight, (inFlight) => inFlight.users(id))) < 2) yield* pause
        while (Option.isNone(yield* Fiber.poll(second))) {
          yield* TestClock.adjust("500 millis")
          yield* pause
        }
        expect((yield* Fiber.join(second)).status).toBe(429)
        yield* Deferred.succeed(running.release, undefined)
        expect((yield* Fiber.join(held)).status).toBe(200)
        const after = yield* scrape
        const delta = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels)
        expect(delta("adintel_rate_limit_refusals_total", { limit: "in_flight" })).toBe(1)
        expect(delta("adintel_credits_charged_total")).toBe(2)
        expect(delta("adintel_credits_refunded_total", { by: "call" })).toBe(1)
        expect(delta("adintel_http_requests_total", { route: "/api/v1/probe/soft", status: "429" })).toBe(1)
        expect(delta("adintel_http_requests_total", { route: "/api/v1/probe/held", status: "200" })).toBe(1)
      }))
  })

  layer(testServer({ api: ProbeApiLive, config: withAdmin }).pipe(Layer.provideMerge(TestDatabase)))((it) => {
    it.effect("counts the credit of a call that died as refunded, and its 500", () =>
      Effect.gen(function*() {
        const before = yield* scrape
        const { api_key } = yield* account()
        expect((yield* call("/api/v1/probe/dies", keyHeader(api_key))).status).toBe(500)
        const after = yield* scrape
        const delta = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels)
        expect(delta("adintel_credits_charged_total")).toBe(1)
        expect(delta("adintel_credits_refunded_total", { by: "call" })).toBe(1)
        expect(delta("adintel_http_requests_total", { route: "/api/v1/probe/dies", status: "500" })).toBe(1)
      }))
  })

  it.effect("writes label values and help a Prometheus parser reads back as they were", () =>
    Effect.gen(function*() {
      const counter = Metric.counter("adintel_test_escapes_total", { description: "Help with a \\ and a\nsecond line", incremental: true })
      const histogram = Metric.histogram("adintel_test_sizes", MetricBoundaries.fromIterable([1, 10]), "Sizes")
      const odd = `quote " backslash \\ newline \n end`
      yield* record(counter, 2, { kind: odd })
      yield* record(counter, 5, { kind: "plain" })
      yield* record(histogram, 3)
      yield* record(histogram, 30)
      yield* record(Metric.counter("other_prefix_total"), 1)
      const families = parsePrometheusTextFormat(prometheusText(yield* Metric.snapshot))
      const escapes = families.find((f) => f.name === "adintel_test_escapes_total")!
      expect(escapes.type).toBe("COUNTER")
      expect(escapes.help).toBe("Help with a \\ and a\nsecond line")
      expect(valueOf(families, "adintel_test_escapes_total", { kind: odd })).toBe(2)
      expect(valueOf(families, "adintel_test_escapes_total", { kind: "plain" })).toBe(5)
      const sizes = families.find((f) => f.name === "adintel_test_sizes")!
      expect([sizes.type, sizes.metrics[0]?.buckets, sizes.metrics[0]?.count, sizes.metrics[0]?.sum])
        .toEqual(["HISTOGRAM", { "1": "0", "10": "1", "+Inf": "2" }, "2", "33"])
      // Only the service's own metrics (`adintel_*`) are shown.
      expect(families.some((f) => f.name === "other_prefix_total")).toBe(false)
    }))
})
