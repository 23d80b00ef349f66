import { FetchHttpClient, HttpApiClient } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { endpointOf } from "../src/ads/brandInsights/Api.js"
import { brandTabs, type TabName, tabNames } from "../src/ads/brandInsights/Tabs.js"
import { AdIntelApi } from "../src/app/Api.js"
import { flagship } from "../src/demo/FlagshipBrand.js"
import { loadedSmallWorldServer, recordsOf, smallWorld } from "./support/AdWorld.js"
import { oracle, type Query } from "./support/BrandTabsOracle.js"
import { account, balanceOf, call, keyHeader, signIn, TestServer } from "./support/TestServer.js"

/**
 * The brand insight tabs (issue 19; INTERPRETATIONS W2, S4, S5) through HTTP on the small
 * world in PostgreSQL: every tab's answer equals a brute-force computation over the generated
 * records (test/support/BrandTabsOracle.ts) for several periods, libraries and countries; the
 * exact error bodies; metering; the legacy session mirror; the list of tabs and the contract.
 * The server's clock is at 0: "today" is 1970-01-01.
 */

const ads = recordsOf("ads")
const advertisers = recordsOf("advertisers")
const transcripts = new Map(Array.from(smallWorld.transcripts(), (t) => [t.ad_id, t.transcript] as const))
const brandOf = (id: string) => advertisers.find((a) => a.platform === "social" && a.external_id === id)!
const expected = (id: string, period: Omit<Query, "brand" | "advertisers" | "ads" | "transcripts">) =>
  oracle({ brand: brandOf(id), advertisers, ads, transcripts, ...period })

const get = (path: string, init: RequestInit) => Effect.map(call(path, init), (a) => ({ ...a, json: JSON.parse(a.body) }))
const error = (status: number, message: string) => [status, JSON.stringify({ success: false, error: message })]
const path = (tab: string, params: Record<string, string>) => `/api/v1/brands/${tab}?${new URLSearchParams(params).toString()}`

/** Whether an answer shows something: a positive count or a non-empty list somewhere. */
const nonEmpty = (value: unknown): boolean =>
  Array.isArray(value)
    ? value.length > 0
    : typeof value === "number"
    ? value > 0
    : typeof value === "object" && value !== null && Object.values(value).some(nonEmpty)

/** The selections every tab is checked under: the default period, a long one, a filtered one. */
const selections: ReadonlyArray<{ readonly params: Record<string, string>; readonly period: Parameters<typeof expected>[1] }> = [
  { params: {}, period: { dateFrom: "1969-10-04", dateTo: "1970-01-01" } },
  { params: { date_from: "1969-06-15", date_to: "1970-01-01" }, period: { dateFrom: "1969-06-15", dateTo: "1970-01-01" } },
  {
    params: { date_from: "1969-09-10", date_to: "1969-12-20", library: "social", country: "GB,DE" },
    period: { dateFrom: "1969-09-10", dateTo: "1969-12-20", libraries: ["social"], countries: ["GB", "DE"] }
  },
  { params: { library: "clipapp,search" }, period: { dateFrom: "1969-10-04", dateTo: "1970-01-01", libraries: ["clipapp", "search"] } }
]

describe("brand insight tabs", () => {
  layer(loadedSmallWorldServer(), { timeout: 120_000 })((it) => {
    it.effect("the small world has a brand for which every tab shows something", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        for (const tab of tabNames) {
          const answer = yield* get(path(tab, { id: flagship.id }), keyHeader(api_key))
          expect([tab, answer.status, nonEmpty(answer.json.data)]).toEqual([tab, 200, true])
        }
      }))

    it.effect("every tab answers what the records say, for each period, library and country selection", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        for (const { params, period } of selections) {
          const want = expected(flagship.id, period)
          for (const tab of tabNames) {
            const answer = yield* get(path(tab, { id: flagship.id, ...params }), keyHeader(api_key))
            expect(answer.status).toBe(200)
            expect(Object.keys(answer.json)).toEqual(["success", "brand", "period", "data"])
            expect({ tab, ...answer.json }).toEqual({
              tab,
              success: true,
              brand: { id: flagship.id, name: flagship.name },
              period: { date_from: period.dateFrom, date_to: period.dateTo },
              data: want[tab]
            })
          }
        }
      }), { timeout: 60_000 })

    it.effect("any brand of the library answers, tracked or not, also with no ads in the period", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const other = advertisers.find((a) => a.platform === "social" && a.external_id === "social-b1")!
        for (const tab of ["overview-cards", "hooks", "reach"] as const) {
          const answer = yield* get(path(tab, { id: other.external_id, date_from: "1969-07-01" }), keyHeader(api_key))
          expect(answer.json.data).toEqual(expected(other.external_id, { dateFrom: "1969-07-01", dateTo: "1970-01-01" })[tab])
          const quiet = yield* get(path(tab, { id: other.external_id, date_from: "1960-01-01", date_to: "1960-03-01" }), keyHeader(api_key))
          expect([quiet.status, quiet.json.data]).toEqual([200, expected(other.external_id, { dateFrom: "1960-01-01", dateTo: "1960-03-01" })[tab]])
        }
        const empty = yield* get(path("overview-cards", { id: other.external_id, date_to: "1960-03-01" }), keyHeader(api_key))
        expect(empty.json).toMatchObject({ period: { date_from: "1959-12-03", date_to: "1960-03-01" }, data: { total: 0, top_format: null, median_days_running: null } })
      }))

    it.effect("derived signals are stored once per version of an ad: a stored row that no longer holds is derived again", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const sql = yield* SqlClient.SqlClient
        const want = expected(flagship.id, { dateFrom: "1969-10-04", dateTo: "1970-01-01" })
        for (const tab of ["hooks", "offers", "products"] as const) {
          yield* call(path(tab, { id: flagship.id }), keyHeader(api_key))
        }
        const stored = yield* sql<{ n: number }>`select count(*)::int as n from brand_ad_signals`
        expect(stored[0]!.n).toBeGreaterThan(0)
        // As if the ads had been imported again with other copy, or the rules had changed since.
        yield* sql`update brand_ad_signals set content_hash = 'stale', hook = 'Wrong hook.', offers = '{bogo}', product = 'wrong'`
        for (const tab of ["hooks", "offers", "products"] as const) {
          const answer = yield* get(path(tab, { id: flagship.id }), keyHeader(api_key))
          expect([tab, answer.json.data]).toEqual([tab, want[tab]])
        }
        const left = yield* sql<{ n: number }>`select count(*)::int as n from brand_ad_signals where content_hash = 'stale' and ad_id in (
          select id from ads where first_seen >= '1969-10-04' and advertiser_id in (select id from advertisers where domain = ${flagship.domain}))`
        expect(left[0]!.n).toBe(0)
      }))

    it.effect("first reads of one brand in flight together all answer, each as the records say", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const sql = yield* SqlClient.SqlClient
        yield* sql`delete from brand_ad_signals`
        const reads = (["hooks", "offers", "angles", "products", "ad-copies", "personas"] as const).flatMap((tab) =>
          selections.slice(0, 3).map(({ params, period }) => ({ tab, params, period }))
        )
        const answers = yield* Effect.forEach(reads, ({ params, tab }) => get(path(tab, { id: flagship.id, ...params }), keyHeader(api_key)), {
          concurrency: "unbounded"
        })
        expect(answers.map((answer, i) => [reads[i]!.tab, answer.status, answer.json.data])).toEqual(
          reads.map(({ period, tab }) => [tab, 200, expected(flagship.id, period)[tab]])
        )
      }))

    it.effect("refuses bad input with the field named, and unknown brands and tabs with the exact bodies; each is a credit kept", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const cases: ReadonlyArray<readonly [string, ReadonlyArray<unknown>]> = [
          [path("hooks", { id: "social-nobody" }), error(404, "Brand not found")],
          // A brand is a social-network page: another library's advertiser is not one.
          [path("hooks", { id: "clipapp-flagship" }), error(404, "Brand not found")],
          [path("bogus-tab", { id: flagship.id }), error(404, "Unknown brand tab: bogus-tab")],
          ["/api/v1/brands/overview_cards", error(404, "Unknown brand tab: overview_cards")],
          ["/api/v1/brands/hooks", error(400, "id is missing")],
          [path("hooks", { id: "not an id" }), error(400, "id: must be 1 to 200 letters, digits or . _ : @ / -")],
          [path("hooks", { id: flagship.id, date_from: "1969-13-01" }), [400]],
          [path("hooks", { id: flagship.id, date_from: "1969-12-02", date_to: "1969-12-01" }), error(400, "date_from: must not be after date_to")],
          [path("hooks", { id: flagship.id, date_from: "1966-01-01" }), error(400, "date_from: the period is at most 1096 days")],
          [path("hooks", { id: flagship.id, library: "radio" }), error(400, "library.0: must be one of social, pinboard, clipapp, search")],
          [path("hooks", { id: flagship.id, country: "gb" }), [400]],
          [path("hooks", { id: flagship.id, limit: "5" }), error(400, "limit: unknown parameter")]
        ]
        for (const [url, want] of cases) {
          const answer = yield* call(url, keyHeader(api_key))
          expect([url, ...[answer.status, answer.body].slice(0, want.length)]).toEqual([url, ...want])
        }
        const atLimit = yield* get(path("hooks", { id: flagship.id, date_from: "1967-01-02" }), keyHeader(api_key))
        expect([atLimit.status, atLimit.json.period]).toEqual([200, { date_from: "1967-01-02", date_to: "1970-01-01" }])
        expect((yield* balanceOf(id)).used).toBe(cases.length + 1)
      }))

    it.effect("metered like every route: a credit and the rate fields per call, the plan gate, 401 without a key, a refund when it fails", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const answer = yield* call(path("overview-cards", { id: flagship.id }), keyHeader(api_key))
        expect(answer.status).toBe(200)
        expect(answer.headers.get("ratelimit-policy")).toBe(`"minute";q=100000;w=60`)
        expect(answer.headers.get("ratelimit")).toMatch(/^"minute";r=\d+;t=\d+$/)
        expect((yield* balanceOf(id)).used).toBe(1)
        const none = yield* call(path("overview-cards", { id: flagship.id }))
        expect([none.status, none.body]).toEqual(error(401, "Unauthorized"))
        const free = yield* account({ plan: "free" })
        for (const url of [path("overview-cards", { id: flagship.id }), "/api/v1/brands/tabs", "/api/v1/brands/nope"]) {
          const refused = yield* call(url, keyHeader(free.api_key))
          expect([refused.status, refused.body]).toEqual(error(403, "AdIntel Basic plan or higher required"))
        }
        expect((yield* balanceOf(free.id)).used).toBe(0)
        // A failure of the database itself: 500, and the credit comes back (G4).
        const sql = yield* SqlClient.SqlClient
        yield* sql`alter table ads rename column niche to niche_moved`
        const failed = yield* call(path("niches", { id: flagship.id }), keyHeader(api_key)).pipe(
          Effect.ensuring(Effect.orDie(sql`alter table ads rename column niche_moved to niche`))
        )
        expect([failed.status, failed.body]).toEqual(error(500, "Internal server error"))
        expect((yield* balanceOf(id)).used).toBe(1)
        const again = yield* call(path("niches", { id: flagship.id }), keyHeader(api_key))
        expect(again.status).toBe(200)
        expect((yield* balanceOf(id)).used).toBe(2)
      }))

    it.effect("GET /api/v1/brands/tabs lists exactly the declared tabs, and wins over the unknown-tab route", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const answer = yield* call("/api/v1/brands/tabs", keyHeader(api_key))
        expect(answer.status).toBe(200)
        expect(JSON.parse(answer.body)).toEqual({
          success: true,
          data: (Object.keys(brandTabs) as Array<TabName>).map((name) => ({ name, path: `/api/v1/brands/${name}`, description: brandTabs[name].description }))
        })
        expect(tabNames.length).toBeGreaterThanOrEqual(22)
        const bad = yield* call("/api/v1/brands/tabs?page=2", keyHeader(api_key))
        expect([bad.status, bad.body]).toEqual(error(400, "page: unknown parameter"))
      }))

    it.effect("mirrored under the browser session at /api/brands/*: same answers, no credit, 401 without a session", () =>
      Effect.gen(function*() {
        const email = `tabs-${Date.now()}@example.com`
        const created = yield* account({ email, password: "tabs password 1" })
        const session = yield* signIn(email, "tabs password 1")
        const v1 = yield* call(path("offers", { id: flagship.id }), keyHeader(created.api_key))
        const legacy = yield* call(`/api/brands/offers?id=${flagship.id}`, { headers: session })
        expect([legacy.status, legacy.body]).toEqual([200, v1.body])
        const list = yield* call("/api/brands/tabs", { headers: session })
        expect(JSON.parse(list.body).data.map((t: { name: string }) => t.name)).toEqual(tabNames)
        const unknown = yield* call(`/api/brands/nope?id=${flagship.id}`, { headers: session })
        expect([unknown.status, unknown.body]).toEqual(error(404, "Unknown brand tab: nope"))
        const missing = yield* call(`/api/brands/hooks?id=social-nobody`, { headers: session })
        expect([missing.status, missing.body]).toEqual(error(404, "Brand not found"))
        expect((yield* balanceOf(created.id)).used).toBe(1)
        for (const init of [{}, keyHeader(created.api_key)]) {
          const refused = yield* call(`/api/brands/offers?id=${flagship.id}`, init)
          expect([refused.status, refused.body]).toEqual(error(401, "Unauthorized"))
        }
      }))

    it.effect("the contract: one typed endpoint per tab, each with its answer schema in OpenAPI and a method in the client", () =>
      Effect.gen(function*() {
        const doc = JSON.parse((yield* call("/openapi.json")).body)
        const schemaOf = (tab: string) => JSON.stringify(doc.paths[`/api/v1/brands/${tab}`].get.responses["200"].content["application/json"].schema)
        expect(new Set(tabNames.map(schemaOf)).size).toBe(tabNames.length)
        for (const tab of tabNames) {
          expect(doc.paths[`/api/brands/${tab}`]).toBeUndefined()
          expect(doc.paths[`/api/v1/brands/${tab}`].get.operationId).toBe(`brandInsights.${endpointOf(tab)}`)
        }
        expect(Object.keys(doc.paths).filter((p) => p.includes("{tab}"))).toEqual([])
        // The derived client: a typed method per tab.
        const { api_key } = yield* account()
        const { url } = yield* TestServer
        const winners = yield* Effect.gen(function*() {
          const client = yield* HttpApiClient.make(AdIntelApi, { baseUrl: url })
          return yield* client.brandInsights.winners({ urlParams: { id: flagship.id, api_key } })
        }).pipe(Effect.provide(FetchHttpClient.layer))
        const want = expected(flagship.id, { dateFrom: "1969-10-04", dateTo: "1970-01-01" }).winners as { readonly ads: ReadonlyArray<{ readonly id: string }> }
        expect(winners.data.ads.map((ad) => ad.id)).toEqual(want.ads.map((ad) => ad.id))
      }))
  })
})
