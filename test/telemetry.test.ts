import { describe, expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import * as Tracing from "../src/platform/telemetry/Tracing.js"
import { attribute, exported, OtlpReceiver, OtlpReceiverLive, type OtlpSpan, OtlpTracingLive } from "./support/OtlpReceiver.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, call, signIn, testServer } from "./support/TestServer.js"

const world = testServer().pipe(
  Layer.provideMerge(TestDatabase),
  Layer.provide(OtlpTracingLive),
  Layer.provideMerge(OtlpReceiverLive)
)

const history = "/api/v1/trends/history"
const isHistoryRequest = (span: OtlpSpan) => attribute(span, "http.route") === history

/** Whether `span` descends from `ancestor` among `spans`. */
const descendsFrom = (spans: ReadonlyArray<OtlpSpan>, span: OtlpSpan, ancestor: OtlpSpan): boolean => {
  let parent = span.parentSpanId
  for (let hops = 0; parent !== undefined && hops < 50; hops++) {
    if (parent === ancestor.spanId) return true
    parent = spans.find((s) => s.spanId === parent)?.parentSpanId
  }
  return false
}

describe("traces over OTLP/HTTP (issue 30; INTERPRETATIONS R2)", () => {
  layer(world)((it) => {
    it.effect("a metered call's request span carries its route, hashed account, credits and status; service and SQL spans nest under it", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const answer = yield* call(history, {
          method: "POST",
          headers: { "X-API-Key": api_key, "content-type": "application/json" },
          body: JSON.stringify({ topic: "serum" })
        })
        expect(answer.status).toBe(200)

        const spans = yield* exported(isHistoryRequest)
        const request = spans.find(isHistoryRequest)!
        expect(request.kind).toBe(2) // SERVER
        expect(request.name).toBe("http.server POST")
        expect(attribute(request, "http.response.status_code")).toBe(200)
        expect(attribute(request, "http.request.method")).toBe("POST")
        expect(attribute(request, "adintel.account")).toBe(Tracing.accountHash(id))
        expect(attribute(request, "adintel.account")).not.toContain(id)
        expect(attribute(request, "adintel.credits.charged")).toBe(1)
        expect(attribute(request, "adintel.credits.refunded")).toBe(0)
        expect(request.resource.find((a) => a.key === "service.name")?.value.stringValue).toBe("adintel-under-test")

        const trace = spans.filter((s) => s.traceId === request.traceId)
        // The call's credit (CallCharge.take) under the request, its admission under it.
        const credit = trace.find((s) => s.name === "CallCharge.take")
        expect(credit?.parentSpanId).toBe(request.spanId)
        const admit = trace.find((s) => s.name === "Gateway.admit")
        expect(admit?.parentSpanId).toBe(credit?.spanId)
        const service = trace.find((s) => s.name === "Trends.history")
        expect(service).toBeDefined()
        expect(descendsFrom(spans, service!, request)).toBe(true)
        const statements = trace.filter((s) => s.name === "sql.execute" && descendsFrom(spans, s, service!))
        expect(statements.length).toBeGreaterThan(0)
      }))

    it.effect("no span carries a key, the query string or an account id in clear", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const answer = yield* call(`/api/v1/credits?api_key=${api_key}&q=private-words`)
        expect(answer.status).toBe(200)
        const refused = yield* call("/api/v1/credits", { headers: { Authorization: `Bearer ${api_key}x` } })
        expect(refused.status).toBe(401)

        const spans = yield* exported((span) => attribute(span, "http.route") === "/api/v1/credits" && attribute(span, "http.response.status_code") === 401)
        const credits = spans.filter((span) => attribute(span, "http.route") === "/api/v1/credits")
        expect(credits.map((span) => attribute(span, "http.response.status_code")).sort()).toEqual([200, 401])
        const { bodies } = yield* OtlpReceiver
        for (const body of bodies) {
          expect(body).not.toContain(api_key)
          expect(body).not.toContain("private-words")
          expect(body).not.toContain(id)
        }
      }))

    it.effect("a signed-in browser's call on a legacy path names its account (hashed) and charges nothing", () =>
      Effect.gen(function*() {
        const password = "a telemetry password"
        const { email, id } = yield* account({ password })
        const { cookie } = yield* signIn(email, password)
        expect((yield* call("/api/clipapp-shop/credits", { headers: { cookie } })).status).toBe(200)
        const legacy = (span: OtlpSpan) => attribute(span, "http.route") === "/api/clipapp-shop/credits"
        const request = (yield* exported(legacy)).find(legacy)!
        expect(attribute(request, "adintel.account")).toBe(Tracing.accountHash(id))
        expect(attribute(request, "adintel.credits.charged")).toBe(0)
        expect(attribute(request, "http.response.status_code")).toBe(200)
        const { bodies } = yield* OtlpReceiver
        expect(bodies.some((body) => body.includes(cookie.split("=")[1]!))).toBe(false)
      }))

    it.effect("a path no route matches is labelled unmatched, not by its path", () =>
      Effect.gen(function*() {
        expect((yield* call("/no/such/place-1234")).status).toBe(404)
        const spans = yield* exported((span) => span.kind === 2 && attribute(span, "http.response.status_code") === 404)
        const notFound = spans.filter((span) => span.kind === 2 && attribute(span, "http.response.status_code") === 404)
        expect(notFound.map((span) => attribute(span, "http.route"))).toEqual([undefined])
        const { bodies } = yield* OtlpReceiver
        expect(bodies.some((body) => body.includes("place-1234"))).toBe(false)
      }))
  })
})

describe("no exporter without OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  layer(OtlpReceiverLive)((it) => {
    it.effect("builds no tracer: the default one stays, and nothing is sent", () =>
      Effect.gen(function*() {
        const before = yield* Effect.tracer
        const after = yield* Effect.tracer.pipe(
          Effect.provide(Tracing.layer.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map())))))
        )
        expect(after).toBe(before)
        yield* Effect.withSpan(Effect.void, "anything")
        expect((yield* OtlpReceiver).bodies).toEqual([])
      }))
  })
})
