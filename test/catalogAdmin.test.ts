import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { entityNames } from "../src/ingest/Records.js"
import * as World from "./fixtures/world.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { call, testServer } from "./support/TestServer.js"

const admin = { Authorization: "Bearer the-admin-token" }
const post = (path: string, body: string | Uint8Array) =>
  call(path, { method: "POST", headers: { ...admin, "content-type": "application/x-ndjson" }, body })

const server = testServer({
  config: { adminToken: Option.some(Redacted.make("the-admin-token")), maxImportBytes: 64 * 1024 }
}).pipe(Layer.provideMerge(TestDatabase))

describe("admin data import over HTTP", () => {
  layer(server)((it) => {
    it.effect("imports NDJSON and answers the counts and the bad lines", () =>
      Effect.gen(function*() {
        expect(JSON.parse((yield* post("/admin/ingest/stores", World.ndjson(World.stores))).body)).toEqual({
          accepted: 1,
          rejected: 0,
          errors: []
        })
        const body = World.ndjson(World.advertisers) + `{"platform":"social","external_id":"x"}\n`
        const answer = yield* post("/admin/ingest/advertisers", body)
        expect(answer.status).toBe(200)
        expect(answer.body).toBe(`{"accepted":2,"rejected":1,"errors":[{"line":3,"error":"name is missing"}]}`)
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`select external_id from advertisers order by 1`).toEqual([{ external_id: "adv-9" }, { external_id: "page-1" }])
      }))

    it.effect("refuses each bad line with its number, whatever is wrong with it, and stores the others (issue 16)", () =>
      Effect.gen(function*() {
        const store = (id: string, extra: Record<string, unknown> = {}) => JSON.stringify({ ...World.stores[0], external_id: id, domain: `${id}.example.com`, ...extra })
        const lines = [
          store("good-1"),
          store("nul", { name: "Glow\u0000Lab" }),
          store("surrogate", { name: "Glow \ud800" }),
          `{"name":"\u00ff"}`,
          "[".repeat(100) + "]".repeat(100),
          "null",
          store("huge", { product_count: 3_000_000_000 }),
          store("good-2")
        ].join("\n")
        // Line 4 as bytes that are not UTF-8.
        const body = Buffer.from(lines.replace(`{"name":"\u00ff"}`, "\u0000"), "utf8")
        const notUtf8 = Buffer.concat([body.subarray(0, body.indexOf(0)), Buffer.from([0xff, 0xfe, 0x7b, 0x7d]), body.subarray(body.indexOf(0) + 1)])
        const answer = yield* post("/admin/ingest/stores", notUtf8)
        expect(answer.status).toBe(200)
        const rule = "must not contain NUL or unpaired surrogate characters"
        expect(JSON.parse(answer.body)).toEqual({
          accepted: 2,
          rejected: 6,
          errors: [
            { line: 2, error: `name: ${rule}` },
            { line: 3, error: `name: ${rule}` },
            { line: 4, error: "line is not valid UTF-8" },
            { line: 5, error: "nested deeper than 32 levels" },
            { line: 6, error: "not a JSON object" },
            { line: 7, error: `could not be stored: value "3000000000" is out of range for type integer` }
          ]
        })
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`select external_id from stores where external_id like 'good-%' or external_id in ('nul', 'huge') order by 1`).toEqual([
          { external_id: "good-1" },
          { external_id: "good-2" }
        ])
      }))

    it.effect("refuses an unknown entity, a body over the limit and a missing token", () =>
      Effect.gen(function*() {
        const unknown = yield* post("/admin/ingest/people", "{}")
        expect(unknown.status).toBe(400)
        expect(JSON.parse(unknown.body).error).toBe(
          "entity: must be one of stores, landers, advertisers, ads, shop-categories, shop-shops, shop-creators, shop-products, shop-videos, shop-metrics, store-products, store-metrics"
        )
        const big = yield* post("/admin/ingest/ads", "x".repeat(70 * 1024))
        expect([big.status, big.body]).toEqual([413, `{"success":false,"error":"Request body too large: at most 65536 bytes"}`])
        const anonymous = yield* call("/admin/ingest/ads", { method: "POST", body: "" })
        expect(anonymous.status).toBe(401)
      }))

    it.effect("serves the JSON Schema of each entity, generated from its Effect Schema", () =>
      Effect.gen(function*() {
        const answer = yield* call("/admin/schemas/ads", { headers: admin })
        expect(answer.status).toBe(200)
        const schema = JSON.parse(answer.body)
        expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#")
        expect(schema.$defs.Ad.required).toEqual([
          "library", "external_id", "advertiser_external_id", "status", "first_seen", "last_seen", "format", "fetched_at", "source", "method"
        ])
        expect(schema.$defs.Ad.properties.library.enum).toEqual(["social", "pinboard", "clipapp", "search"])
        const metrics = JSON.parse((yield* call("/admin/schemas/shop-metrics", { headers: admin })).body)
        expect(metrics.$defs.ShopMetrics.properties.series.maxItems).toBe(400)
        // Every entity's, as the contract declares the answer (a JSON object whose arrays hold no arrays).
        for (const entity of entityNames) {
          const each = yield* call(`/admin/schemas/${entity}`, { headers: admin })
          expect([entity, each.status, JSON.parse(each.body).$schema]).toEqual([entity, 200, "http://json-schema.org/draft-07/schema#"])
        }
      }))
  })
})
