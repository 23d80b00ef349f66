import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TrendCounts } from "../src/ads/trends/TrendCounts.js"
import { loadedSmallWorldServer, recordsOf } from "./support/AdWorld.js"
import { account, call, keyHeader } from "./support/TestServer.js"

/**
 * Issue 28, "ready means ready": `/ready` answers 200 only when every research route answers at
 * its usual speed, trends included; no request waits on a background build.
 */

const json = (key: string, body: unknown) => ({
  method: "POST",
  headers: { "X-API-Key": key, "content-type": "application/json" },
  body: JSON.stringify(body)
})

/** Each research route once: what a client calls right after `/ready`. */
const researchCalls = (key: string): ReadonlyArray<readonly [string, RequestInit]> => [
  ["/api/v1/adlibrary?q=serum&limit=5", keyHeader(key)],
  ["/api/v1/clipapp-ads?limit=5", keyHeader(key)],
  ["/api/v1/magic-ai", json(key, { text: "Tired of dull skin? This serum brightens in 7 days.", limit: 5 })],
  ["/api/v1/trends/topics", json(key, { window_days: 90 })],
  ["/api/v1/trends/hooks", json(key, { window_days: 30 })],
  ["/api/v1/trends/history", json(key, { topic: "serum" })],
  ["/api/v1/trends/products", json(key, {})],
  ["/api/v1/landers/explore", json(key, { q: "serum" })],
  ["/api/v1/store-explorer", json(key, {})],
  [`/api/v1/brands/overview-cards?id=${recordsOf("ads").find((ad) => ad.library === "social")!.advertiser_external_id}`, keyHeader(key)],
  ["/api/v1/clipapp-shop/products/explore?sort=gmv", keyHeader(key)]
]

describe("ready means ready (issue 28)", () => {
  layer(loadedSmallWorldServer(), { timeout: 120_000 })((it) => {
    it.effect("while the trends' totals are being built /ready is 503 and a ranking says so at once; once ready, every research route answers within 2 s", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "pro" })
        const sql = yield* SqlClient.SqlClient
        // A backlog that dropped the totals: the counting fiber builds them, nobody else.
        yield* sql`update trend_state set date_to = null`
        expect(yield* call("/ready")).toMatchObject({ status: 503, body: `{"success":false,"error":"Counting trends"}` })
        const started = performance.now()
        const ranking = yield* call(...researchCalls(api_key)[3]!)
        expect(performance.now() - started).toBeLessThan(2_000)
        expect(ranking.status).toBe(503)
        // The fiber's pass: the totals for yesterday's windows, built; then ready.
        yield* Effect.flatMap(TrendCounts, (counts) => counts.flush)
        expect((yield* call("/ready")).status).toBe(200)
        for (const [path, init] of researchCalls(api_key)) {
          const begun = performance.now()
          const answer = yield* call(path, init)
          const ms = performance.now() - begun
          expect([path, answer.status]).toEqual([path, 200])
          expect([path, ms < 2_000]).toEqual([path, true])
        }
      }))
  })
})
