import { HttpApiClient } from "@effect/platform"
import { TrendCounts } from "../src/ads/trends/TrendCounts.js"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Logger, Ref } from "effect"
import { AdIntelApi } from "../src/app/Api.js"
import { redactUrl } from "../src/app/Server.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, call, keyHeader, TestServer, testServer } from "./support/TestServer.js"

/** Every log line the server writes, to check what must never be in one. */
class LogLines extends Effect.Service<LogLines>()("test/LogLines", {
  effect: Effect.map(Ref.make<ReadonlyArray<string>>([]), (lines) => ({ lines }))
}) {}

const capture = Layer.unwrapEffect(
  Effect.map(LogLines, ({ lines }) =>
    Logger.add(Logger.make(({ message, cause }) => {
      const text = [message].flat().map(String).join(" ") + " " + String(cause)
      Ref.update(lines, (all) => [...all, text]).pipe(Effect.runSync)
    })))
)

const server = testServer({ accessLog: true }).pipe(
  Layer.provide(capture),
  Layer.provideMerge(LogLines.Default),
  Layer.provide(TestDatabase)
)

describe("HTTP surface", () => {
  layer(server)((it) => {
    it.effect("serves liveness and readiness without a key", () =>
      Effect.gen(function*() {
        expect(yield* call("/health")).toMatchObject({ status: 200, body: `{"status":"ok"}` })
        // Ready once the trends' window totals are built (issue 28): the counting fiber's first pass.
        yield* Effect.flatMap(TrendCounts, (counts) => counts.flush)
        const ready = yield* call("/ready")
        expect(ready.status).toBe(200)
        // No PATH in the test's configuration: ffmpeg is the npm package's binary, no speech engine is found.
        const { engines, ...rest } = JSON.parse(ready.body)
        // No DATABASE_REPLICA_URLS: no replica (R1), and the primary serves every read.
        expect(rest).toEqual({ status: "ready", replicas: [] })
        expect(Object.keys(engines)).toEqual(["similarity", "audio", "transcription", "scripts"])
        expect(engines).toMatchObject({
          similarity: "postgres (full text + pg_trgm, perceptual hashes)",
          transcription: "none (set TRANSCRIBE_URL or install pocketsphinx)",
          scripts: "offline (rules)"
        })
        expect(engines.audio).toMatch(/^ffmpeg \(.*@ffmpeg-installer\/linux-x64\/ffmpeg\)$|^ffmpeg not found$/)
      }))

    it.effect("documents the three key locations in /openapi.json, on metered operations only", () =>
      Effect.gen(function*() {
        const spec = JSON.parse((yield* call("/openapi.json")).body)
        expect(spec.components.securitySchemes).toMatchObject({
          ApiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key" },
          BearerKey: { type: "http", scheme: "bearer" },
          ApiKeyQuery: { type: "apiKey", in: "query", name: "api_key" }
        })
        const keys = [{ ApiKeyHeader: [] }, { BearerKey: [] }, { ApiKeyQuery: [] }]
        expect(spec.paths["/api/v1/credits"].get.security).toEqual(keys)
        expect(spec.paths["/api/v1/clipapp-shop/credits"].get.security).toEqual(keys)
        expect(spec.paths["/health"].get.security).toEqual([])
        expect(spec.paths["/admin/accounts"].post.security).toEqual([{ AdminToken: [] }])
        // Only the answers an operation can give: no input, so no 400 and no 413; nothing looked up, so no 404.
        expect(Object.keys(spec.paths["/api/v1/credits"].get.responses).sort()).toEqual(["200", "401", "403", "429", "431", "500"])
        // A route that reads the ad corpus may answer 503 when a Citus worker does not (issue 45).
        expect(spec.paths["/api/v1/adlibrary"].get.responses["503"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/CorpusUnavailable" })
        // 400 is G11's envelope, not HttpApi's own decode error body.
        expect((yield* call("/openapi.json")).body).not.toContain("HttpApiDecodeError")
        expect(spec.paths["/api/v1/adlibrary"].get.responses["400"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/InvalidRequest" })
        expect(spec.components.schemas.InvalidRequest).toEqual({
          type: "object",
          required: ["success", "error"],
          properties: { success: { type: "boolean", enum: [false] }, error: { type: "string" } },
          additionalProperties: false
        })
        // The G9 wildcards are an implementation of "anything else", not operations.
        expect(Object.keys(spec.paths).filter((path) => path.includes("*"))).toEqual([])
      }))

    it.effect("serves a docs page that loads nothing from the network", () =>
      Effect.gen(function*() {
        const docs = yield* call("/docs")
        expect(docs.status).toBe(200)
        expect(docs.headers.get("content-type")).toContain("text/html")
        expect(docs.body).not.toMatch(/<script[^>]+src=["']https?:/)
        expect(docs.body).toContain("AdIntel API")
      }))

    it.effect("answers through the typed client derived from the contract", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const { url } = yield* TestServer
        const client = yield* HttpApiClient.make(AdIntelApi, { baseUrl: url })
        const health = yield* client.system.health()
        expect(health).toEqual({ status: "ok" })
        const refused = yield* Effect.flip(client.credits.balance())
        expect(refused._tag).toBe("Unauthorized")
        expect(api_key).toMatch(/^adi_/)
      }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

    it.effect("never writes a key from the query string to a log line", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        expect((yield* call(`/api/v1/credits?api_key=${api_key}&x=1`)).status).toBe(200)
        // Only `api_key` carries a key; another spelling is refused, and still kept out of the log.
        expect((yield* call(`/api/v1/clipapp-shop/nowhere?API_KEY=${api_key}`)).status).toBe(401)
        expect((yield* call(`/api/v1/credits`, keyHeader(api_key))).status).toBe(200)
        const { lines } = yield* LogLines
        const all = yield* Ref.get(lines)
        expect(all.some((line) => line.includes("GET /api/v1/credits?api_key=[REDACTED]&x=1 200"))).toBe(true)
        expect(all.filter((line) => line.includes(api_key.slice(4)))).toEqual([])
      }))
  })

  describe("redactUrl", () => {
    it("replaces every api_key value, whatever its case and place", () => {
      expect(redactUrl("/a?api_key=adi_x")).toBe("/a?api_key=[REDACTED]")
      expect(redactUrl("/a?b=1&API_KEY=adi_x&c=2")).toBe("/a?b=1&API_KEY=[REDACTED]&c=2")
      expect(redactUrl("/a?my_api_key=1")).toBe("/a?my_api_key=1")
      // Issue 28: the name as the server decodes it, and a bare name.
      expect(redactUrl("/a?api%5Fkey=adi_x&b=2")).toBe("/a?api%5Fkey=[REDACTED]&b=2")
      expect(redactUrl("/a?%61pi_key=adi_x")).toBe("/a?%61pi_key=[REDACTED]")
      expect(redactUrl("/a?api_key")).toBe("/a?api_key=[REDACTED]")
      expect(redactUrl("/a?x=%E0%A4%A&api_key=adi_x")).toBe("/a?x=%E0%A4%A&api_key=[REDACTED]")
    })

    it("replaces a share link's token in origin form and in absolute form", () => {
      expect(redactUrl("/share/AbC_-123?page=2")).toBe("/share/[REDACTED]?page=2")
      expect(redactUrl("http://127.0.0.1:3000/share/AbC_-123")).toBe("http://127.0.0.1:3000/share/[REDACTED]")
      expect(redactUrl("HTTP://example.com/share/AbC?api%5fkey=adi_x")).toBe("HTTP://example.com/share/[REDACTED]?api%5fkey=[REDACTED]")
      expect(redactUrl("/shared/AbC")).toBe("/shared/AbC")
    })
  })
})
