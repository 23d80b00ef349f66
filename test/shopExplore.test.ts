import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { Ingest } from "../src/ingest/Ingest.js"
import { ShopRollups } from "../src/shop/search/ShopRollups.js"
import { loadedSmallWorldServer, recordsOf, seriesOf, smallWorld, subtreeOf, sumOver, type WorldRecord } from "./support/AdWorld.js"
import { account, balanceOf, call, keyHeader, signIn } from "./support/TestServer.js"

/**
 * The small world as the server holds it (TestClock at 0: "today" is 1970-01-01, the default
 * period is 1969-12-02..1969-12-31), and brute-force answers computed from its records.
 */
type Rec = WorldRecord
const all = (entity: string) => recordsOf(entity as keyof typeof smallWorld.records)
const categories = all("shop-categories")
const products = all("shop-products")
const shops = all("shop-shops")
const creators = all("shop-creators")
const videos = all("shop-videos")

const subtree = subtreeOf
const close = (a: number | null, b: number | null) => (a === null || b === null ? a === b : Math.abs(a - b) < 0.01)

const get = (key: string, path: string) => Effect.map(call(path, keyHeader(key)), (a) => ({ ...a, json: JSON.parse(a.body) }))
const post = (key: string, path: string, body: unknown) =>
  Effect.map(
    call(path, { method: "POST", headers: { "X-API-Key": key, "content-type": "application/json" }, body: JSON.stringify(body) }),
    (a) => ({ ...a, json: JSON.parse(a.body) })
  )
const prefix = "/api/v1/clipapp-shop"
const ids = (json: { data: Array<{ id: string }> }) => json.data.map((r) => r.id)

describe("short-video shop explore and count (one engine, five entities)", () => {
  layer(loadedSmallWorldServer())((it) => {
    it.effect("products by 30-day GMV in a category subtree and a price range agree with a brute-force pass", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const top = categories.find((c) => c.region === "US" && c.level === 1)!
        const inside = subtree("US", top.external_id)
        const expected = products
          .filter((p) => p.region === "US" && inside.has(p.category_external_id) && p.price_min >= 10 && p.price_min <= 60)
          .map((p) => ({ id: p.external_id, gmv: sumOver("product", p, "gmv", "1969-12-02", "1969-12-31") }))
          .sort((a, b) => (b.gmv ?? -1) - (a.gmv ?? -1))
        expect(expected.length).toBeGreaterThan(3)
        const answer = yield* get(api_key, `${prefix}/products/explore?category_id=${top.external_id}&min_price=10&max_price=60&sort=gmv&page_size=100`)
        expect(answer.status).toBe(200)
        expect(answer.json.total).toBe(expected.length)
        const withData = expected.filter((e) => e.gmv !== null)
        expect(ids(answer.json).slice(0, withData.length)).toEqual(withData.map((e) => e.id))
        for (const row of answer.json.data.slice(0, withData.length)) {
          expect(close(row.period.metrics.gmv, withData.find((e) => e.id === row.id)!.gmv)).toBe(true)
        }
        expect(answer.json.data[0].period).toMatchObject({ date_from: "1969-12-02", date_to: "1969-12-31" })
        // the same search by POST, the body winning over the query string (P3)
        const posted = yield* post(api_key, `${prefix}/products/explore?min_price=999`, {
          category_id: top.external_id,
          min_price: 10,
          max_price: 60,
          sort: "gmv",
          page_size: 100
        })
        expect(posted.json).toEqual(answer.json)
        const count = yield* get(api_key, `${prefix}/products/count?category_id=${top.external_id}&min_price=10&max_price=60`)
        expect(count.json).toEqual({ success: true, total: expected.length })
      }))

    it.effect("every entity explores and counts, sorted by its default metric, in its region", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const cases: Array<[string, string, Array<Rec>, string]> = [
          ["categories", "category", categories, "gmv"],
          ["shops", "shop", shops, "gmv"],
          ["creators", "creator", creators, "gmv"],
          ["videos", "video", videos, "views"],
          ["products", "product", products, "gmv"]
        ]
        for (const [entity, subject, records, metric] of cases) {
          for (const country of ["US", "GB"]) {
            const expected = records
              .filter((r) => r.region === country)
              .map((r) => ({ id: r.external_id, value: sumOver(subject, r, metric, "1969-12-02", "1969-12-31") }))
              .sort((a, b) => (b.value ?? -1) - (a.value ?? -1))
            const answer = yield* get(api_key, `${prefix}/${entity}/explore?country=${country}&page_size=100`)
            expect([entity, country, answer.status]).toEqual([entity, country, 200])
            expect(answer.json.total).toBe(expected.length)
            // Ties (a category whose one child holds all its products) are ordered by the
            // database's own order: compare the values in order, and each row's value.
            const withData = expected.filter((e) => e.value !== null).slice(0, 100)
            const rows = answer.json.data.slice(0, withData.length) as Array<{ id: string; period: { metrics: Record<string, number | null> } }>
            expect(rows.map((r) => Math.round(r.period.metrics[metric]! * 100))).toEqual(withData.map((e) => Math.round(e.value! * 100)))
            for (const row of rows) expect(close(row.period.metrics[metric]!, expected.find((e) => e.id === row.id)!.value)).toBe(true)
            const count = yield* get(api_key, `${prefix}/${entity}/count?country=${country}`)
            expect(count.json.total).toBe(expected.length)
          }
        }
      }))

    it.effect("growth compares the period with the one before it, as the sort and beside a column sort", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const [from, to, pFrom, pTo] = ["1969-12-25", "1969-12-31", "1969-12-18", "1969-12-24"]
        const expected = products
          .filter((p) => p.region === "US")
          .map((p) => {
            const cur = sumOver("product", p, "units", from, to)
            const prev = sumOver("product", p, "units", pFrom, pTo)
            return { id: p.external_id, growth: cur === null || prev === null || prev === 0 ? null : (cur - prev) / prev }
          })
          .filter((e) => e.growth !== null)
          .sort((a, b) => b.growth! - a.growth!)
        const answer = yield* get(api_key, `${prefix}/products/explore?date_from=${from}&date_to=${to}&sort=units_growth&page_size=20`)
        expect(ids(answer.json)).toEqual(expected.slice(0, 20).map((e) => e.id))
        expect(answer.json.data[0].period.metrics.units_growth).toBeCloseTo(expected[0]!.growth!, 4)
        // sorted by a column, cheapest first, each row still shows its growth
        const byPrice = yield* get(api_key, `${prefix}/products/explore?date_from=${from}&date_to=${to}&sort=price&order=asc&page_size=100`)
        const prices = products.filter((p) => p.region === "US").map((p) => p.price_min as number).sort((a, b) => a - b)
        expect(byPrice.json.data.map((row: { price_min: number }) => row.price_min)).toEqual(prices.slice(0, 100))
        const growthOf = new Map(expected.map((e) => [e.id, Math.round(e.growth! * 10_000) / 10_000]))
        const shown = (byPrice.json.data as Array<{ id: string; period: { metrics: Record<string, number | null> } }>)
          .map((row) => [row.id, row.period.metrics.units_growth])
        expect(shown.filter(([, growth]) => growth !== null).length).toBeGreaterThan(3)
        expect(shown).toEqual(shown.map(([id]) => [id, growthOf.get(id as string) ?? null]))
      }))

    it.effect("filters of every kind: keyword, choice, reference, days, bool, metric ranges", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const video = videos.find((v) => v.region === "US" && v.product_external_ids.length > 0)!
        const productId = video.product_external_ids[0]
        const expectations: Array<[string, (r: Rec) => boolean, Array<Rec>]> = [
          [`videos/count?country=US&product_id=${productId}`, (v) => v.product_external_ids.includes(productId), videos],
          [`videos/count?country=US&creator_id=${video.creator_external_id}`, (v) => v.creator_external_id === video.creator_external_id, videos],
          [`videos/count?country=US&is_ad=true`, (v) => v.is_ad === true, videos],
          [`videos/count?country=US&published_from=1969-12-20&published_to=1969-12-31`, (v) => v.published_at.slice(0, 10) >= "1969-12-20" && v.published_at.slice(0, 10) <= "1969-12-31", videos],
          [`shops/count?country=US&shop_type=brand,retailer`, (s) => s.shop_type === "brand" || s.shop_type === "retailer", shops],
          [`categories/count?country=US&level=1,2`, (c) => c.level <= 2, categories],
          [`products/count?country=US&keyword=${encodeURIComponent(products[0]!.title.split(" ")[0])}`, (p) => p.title.toLowerCase().includes(products[0]!.title.split(" ")[0].toLowerCase()), products],
          [`products/count?country=US&min_gmv=1000`, (p) => (sumOver("product", p, "gmv", "1969-12-02", "1969-12-31") ?? -1) >= 1000, products]
        ]
        for (const [path, keep, records] of expectations) {
          const expected = records.filter((r) => r.region === "US" && keep(r)).length
          const answer = yield* get(api_key, `${prefix}/${path}`)
          expect([path, answer.json.total]).toEqual([path, expected])
        }
      }))

    it.effect("each explore and count takes one daily search (G7); bad input takes none and keeps the credit", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "basic", patch: { daily_search_limit: 2 } })
        const cases: Array<[string, string]> = [
          [`${prefix}/products/explore?colour=red`, "colour: unknown parameter"],
          [`${prefix}/products/explore?page_size=101`, "page_size: must be an integer from 1 to 100"],
          [`${prefix}/products/explore?page=501&page_size=20`, "page: at most 500 for page_size 20; narrow the search with its filters"],
          [`${prefix}/products/explore?sort=colour`, "sort: must be one of gmv, units, views, gmv_growth, units_growth, views_growth, price, rating, reviews, commission_rate, launched_on"],
          [`${prefix}/products/explore?date_from=1969-12-31&date_to=1969-12-01`, "date_from: must not be after date_to"],
          [`${prefix}/products/explore?date_from=1968-01-01&date_to=1969-12-31`, "date_from: the period is at most 366 days"],
          [`${prefix}/shops/count?min_rating=6`, "min_rating: must be a number from 0 to 5"],
          [`${prefix}/videos/count?is_ad=maybe`, "is_ad: must be true or false"],
          [`${prefix}/products/count?country=usa`, "country: must be an ISO 3166-1 alpha-2 country code such as US"]
        ]
        for (const [path, error] of cases) {
          const answer = yield* call(path, keyHeader(api_key))
          expect([path, answer.status, answer.body]).toEqual([path, 400, JSON.stringify({ success: false, error })])
        }
        expect((yield* get(api_key, `${prefix}/credits`)).json.credits_remaining).toBe(2)
        expect((yield* get(api_key, `${prefix}/products/count`)).status).toBe(200)
        expect((yield* get(api_key, `${prefix}/videos/explore`)).status).toBe(200)
        const exhausted = yield* call(`${prefix}/shops/count`, keyHeader(api_key))
        expect([exhausted.status, exhausted.body]).toEqual([
          403,
          `{"error":"insufficient_credits","message":"You have used up your daily search quota. Upgrade to Premium for unlimited searches.","upgrade":"premium"}`
        ])
        expect((yield* balanceOf(id)).used).toBe(cases.length + 1 + 2 + 1)
      }))

    it.effect("rollups: the standard periods are summed ahead; explore answers alike with them, without them, and after an import", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rollups = yield* ShopRollups
        const { api_key } = yield* account({ plan: "premium" })
        const state = yield* sql<{ entity: string; days: number; day_to: string }>`
          select entity, days, day_to::text as day_to from shop_rollup_state order by entity, days`
        expect(state.map((r) => [r.entity, r.days, r.day_to])).toEqual(
          [
            ...["categories", "creators", "products", "shops"].flatMap((e) => [[e, 7, "1969-12-31"], [e, 30, "1969-12-31"]]),
            ["suggestions", 30, "1969-12-31"],
            ["videos", 7, "1969-12-31"],
            ["videos", 30, "1969-12-31"]
          ]
        )
        const path = `${prefix}/products/explore?page_size=100&sort=gmv`
        const withRollups = (yield* get(api_key, path)).json
        // the rollup is what answers: altered, it shows; without its state, the series answer
        const top = withRollups.data[0]
        yield* sql`update shop_rollups set gmv = 123456789 where entity = 'products' and days = 30 and not previous
                     and record_id = (select id from shop_products where region = 'US' and external_id = ${top.id})`
        expect((yield* get(api_key, path)).json.data[0].period.metrics.gmv).toBe(123456789)
        yield* sql`delete from shop_rollup_state`
        expect((yield* get(api_key, path)).json).toEqual(withRollups)
        expect(yield* rollups.refreshStale).toBe(11)
        expect((yield* get(api_key, path)).json).toEqual(withRollups)
        // a metrics import makes them stale at once: explore sums the new series until the next refresh
        const product = products.find((p) => p.external_id === top.id)!
        const ingest = yield* Ingest
        const report = yield* ingest.records("shop-metrics", Stream.make({
          region: "US",
          subject: "product",
          external_id: top.id,
          currency: "USD",
          series: [{ day: "1969-12-31", units: 1, gmv: 1, views: 1 }]
        }))
        expect(report.rejected).toBe(0)
        expect((yield* sql`select 1 from shop_rollup_state`).length).toBe(0)
        const point = (series: Array<Rec>) => series.find((p) => p.day === "1969-12-31")?.gmv ?? 0
        const expected = (sumOver("product", product, "gmv", "1969-12-02", "1969-12-31") ?? 0) - point(seriesOf("product", "US", top.id)) + 1
        const after = (yield* get(api_key, `${prefix}/products/explore?page_size=100&sort=gmv&keyword=${encodeURIComponent(product.title)}`)).json
        expect(after.data.find((p: { id: string }) => p.id === top.id).period.metrics.gmv).toBeCloseTo(expected, 2)
        expect(yield* rollups.refreshStale).toBe(11)
        const refreshed = (yield* get(api_key, `${prefix}/products/explore?page_size=100&sort=gmv&keyword=${encodeURIComponent(product.title)}`)).json
        expect(refreshed).toEqual(after)
      }).pipe(Effect.provide(ShopRollups.Default)))

    it.effect("request-country sets the country later calls use when they name none", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        expect((yield* post(api_key, `${prefix}/request-country`, {})).json).toEqual({ success: true, country: "US" })
        const us = (yield* get(api_key, `${prefix}/shops/count`)).json.total
        expect((yield* post(api_key, `${prefix}/request-country`, { country: "GB" })).json).toEqual({ success: true, country: "GB" })
        const gb = (yield* get(api_key, `${prefix}/shops/count`)).json.total
        expect(gb).toBe(shops.filter((s) => s.region === "GB").length)
        expect(us).toBe(shops.filter((s) => s.region === "US").length)
        expect((yield* get(api_key, `${prefix}/shops/count?country=US`)).json.total).toBe(us)
        const bad = yield* post(api_key, `${prefix}/request-country`, { country: "Britain" })
        expect([bad.status, bad.json.error]).toEqual([400, "country: must be an ISO 3166-1 alpha-2 country code such as US"])
      }))

    it.effect("the legacy dashboard path explores under a browser session with the daily quota and no credit (S4)", () =>
      Effect.gen(function*() {
        const email = "explorer-legacy@example.com"
        const created = yield* account({ email, password: "correct horse battery", plan: "basic" })
        const session = yield* signIn(email, "correct horse battery")
        const legacy = yield* call("/api/clipapp-shop/products/count", { headers: session })
        expect(legacy.status).toBe(200)
        expect((yield* balanceOf(created.id)).used).toBe(0)
        expect((yield* get(created.api_key, `${prefix}/credits`)).json.credits_remaining).toBe(49)
      }))
  })
})
