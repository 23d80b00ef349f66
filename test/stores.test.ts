import { SqlClient } from "@effect/sql"
import { readdir } from "node:fs/promises"
import { describe, expect, layer } from "@effect/vitest"
import { Clock, Context, Effect, Layer, Option, Redacted, Stream, TestClock } from "effect"
import { existsSync } from "node:fs"
import { createServer } from "node:http"
import * as path from "node:path"
import sharp from "sharp"
import { Ingest } from "../src/ingest/Ingest.js"
import { drawArt } from "../src/stores/media/ProductArt.js"
import { loadedSmallWorldServer, smallWorld, type WorldRecord } from "./support/AdWorld.js"
import { tempDir } from "./support/TempDir.js"
import { type Answer, account, balanceOf, call, keyHeader, testEnvironment, TestServer } from "./support/TestServer.js"
import { ProductImages } from "../src/stores/visual/ProductImages.js"

/**
 * Hosted stores (issue 20; INTERPRETATIONS L3, L4, S3, G4) through HTTP on the small world:
 * the tracker and its limits, the explorer's search and drill-down, visual search by upload and
 * by URL, the media the demo's image URLs point at, metering and the un-versioned aliases.
 * Expectations are computed from the generated records, never copied from an answer.
 */

const DAY = 86_400_000
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

const stores = Array.from(smallWorld.records.stores()) as Array<WorldRecord>
const products = Array.from(smallWorld.records["store-products"]()) as Array<WorldRecord>
const metrics = Array.from(smallWorld.records["store-metrics"]()) as Array<WorldRecord>
const ads = Array.from(smallWorld.records.ads()) as Array<WorldRecord>
const landers = Array.from(smallWorld.records.landers()) as Array<WorldRecord>
const images = Array.from(smallWorld.storeImages())

/** Brute force: a store's estimated units and revenue per day (null: unknown), from its products' observations. */
const storeDays = (storeId: string) => {
  const days = new Map<string, { units: number | null; revenue: number | null }>()
  for (const m of metrics.filter((m) => m.store_external_id === storeId)) {
    const product = products.find((p) => p.store_external_id === storeId && p.external_id === m.external_id)!
    const series = m.series as Array<{ day: string; price: number | null; inventory: number | null }>
    series.forEach((point, i) => {
      const before = series[i - 1]
      const known = before !== undefined && point.inventory !== null && before.inventory !== null &&
        Date.parse(point.day) - Date.parse(before.day) === DAY && before.inventory >= point.inventory
      const units = known ? before!.inventory! - point.inventory! : null
      const day = days.get(point.day) ?? { units: null, revenue: null }
      if (units !== null) {
        day.units = (day.units ?? 0) + units
        day.revenue = (day.revenue ?? 0) + units * (point.price ?? product.price)
      }
      days.set(point.day, day)
    })
  }
  return days
}

const mean = (values: Array<number>) => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length)
const round2 = (n: number) => Math.round(n * 100) / 100

/** Brute force: what a store's view should say as of `today`. */
const expectedOf = (store: WorldRecord, today: number) => {
  const from30 = isoDay(today - 30 * DAY)
  const inWindow = [...storeDays(store.external_id)].filter(([day]) => day >= from30 && day < isoDay(today)).map(([, d]) => d)
  const units = mean(inWindow.flatMap((d) => (d.units === null ? [] : [d.units])))
  const revenue = mean(inWindow.flatMap((d) => (d.revenue === null ? [] : [d.revenue])))
  const visits = [...(store.monthly_visits as Array<{ month: string; visits: number }>)].sort((a, b) => b.month.localeCompare(a.month))[0]
  return {
    id: store.external_id,
    domain: store.domain,
    platform: store.platform,
    theme: store.theme,
    apps: store.apps,
    product_count: store.product_count,
    launch_date: store.created_on,
    monthly_visits: visits?.visits ?? null,
    estimated_daily_sales: units === null ? "unknown" : round2(units),
    estimated_daily_revenue: revenue === null ? "unknown" : round2(revenue),
    ads_running: ads.filter((a) => a.store_external_id === store.external_id && a.status === "active").length
  }
}

const hidden = (store: WorldRecord) =>
  metrics.filter((m) => m.store_external_id === store.external_id).every((m) => (m.series as Array<WorldRecord>).every((p) => p.inventory === null))
const hidingStore = stores.find(hidden)
const sellingStores = stores.filter((s) => !hidden(s))

const json = (answer: Answer) => JSON.parse(answer.body)
const post = (key: string, route: string, body: unknown) =>
  call(route, { method: "POST", headers: { "X-API-Key": key, "content-type": "application/json" }, body: JSON.stringify(body) })
const get = (key: string, route: string) => call(route, keyHeader(key))
const today = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / DAY) * DAY)

/** A product photo as a shopper might find it again: cropped a little, resized, re-encoded. */
const alteredPhoto = (name: string, format: "jpeg" | "webp" | "avif" = "jpeg") =>
  Effect.promise(async () => {
    const png = (await drawArt(name.slice("/media/stores/".length)))!
    const { height, width } = await sharp(png).metadata()
    const cropped = sharp(png).extract({ left: Math.round(width! * 0.04), top: Math.round(height! * 0.05), width: Math.round(width! * 0.92), height: Math.round(height! * 0.9) }).resize(280)
    return new Uint8Array(await (format === "jpeg" ? cropped.jpeg({ quality: 70 }) : format === "webp" ? cropped.webp({ quality: 70 }) : cropped.avif({ quality: 60 })).toBuffer())
  })

const upload = (key: string, bytes: Uint8Array, fields: Record<string, string> = {}, route = "/api/v1/store-explorer/visual-search") => {
  const form = new FormData()
  form.append("image", new Blob([bytes], { type: "image/jpeg" }), "photo.jpg")
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  return call(route, { method: "POST", headers: { "X-API-Key": key }, body: form })
}

/** A real HTTP server handing out one image, as a CDN would. */
const imageServer = (bytes: Uint8Array, contentType: string) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; close: () => void }>((resume) => {
      const server = createServer((_, response) => response.writeHead(200, { "content-type": contentType }).end(bytes))
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(Effect.succeed({ url: `http://localhost:${port}/photo`, close: () => server.close() }))
      })
    }),
    ({ close }) => Effect.sync(close)
  )

const trackerLimit = 3
const adminToken = "stores-admin-token-0123456789"

/** Where the server keeps drawn media (a temporary directory). */
class MediaDir extends Context.Tag("test/MediaDir")<MediaDir, string>() {}

const tracker = "/api/v1/store-tracker"
const explorer = "/api/v1/store-explorer"
const visual = "/api/v1/store-explorer/visual-search"

describe("hosted stores: tracker, explorer, visual search (L3, L4)", () => {
  const server = Layer.unwrapScoped(Effect.map(tempDir("store-media"), (dir) => {
    // Only `localhost` may be fetched although private (the test's image server).
    const env = { MEDIA_FETCH_ALLOW: "localhost", STORE_MEDIA_DIR: dir, STORE_TRACKER_LIMITS: `basic=${trackerLimit},pro=100,premium=500` }
    return Layer.mergeAll(
      // The indexer of imported products' photos, configured as the server is.
      ProductImages.Default.pipe(Layer.provide(testEnvironment(env))),
      Layer.succeed(MediaDir, dir)
    ).pipe(Layer.provideMerge(loadedSmallWorldServer({ config: { adminToken: Option.some(Redacted.make(adminToken)) }, env })))
  }))

  layer(server, { timeout: 120_000 })((it) => {
    it.effect("the small world holds stores that sell, one that hides its stock, and drawn product images", () =>
      Effect.sync(() => {
        expect(sellingStores.length).toBeGreaterThanOrEqual(trackerLimit + 2)
        expect(hidingStore).toBeDefined()
        expect(images.length).toBe(products.length)
      }))

    it.effect("ingestion: the JSON Schemas of store products and observations; an observation of an unknown product is refused by line", () =>
      Effect.gen(function*() {
        const admin = { authorization: `Bearer ${adminToken}` }
        const products = JSON.parse((yield* call("/admin/schemas/store-products", { headers: admin })).body)
        expect(products.$defs.StoreProduct.required).toEqual(["store_external_id", "external_id", "title", "fetched_at", "source", "method"])
        const observations = JSON.parse((yield* call("/admin/schemas/store-metrics", { headers: admin })).body)
        expect(observations.$defs.StoreMetrics.properties.series.maxItems).toBe(400)
        const stores = JSON.parse((yield* call("/admin/schemas/stores", { headers: admin })).body)
        expect(Object.keys(stores.$defs.Store.properties)).toEqual(expect.arrayContaining(["theme", "apps", "language", "social_links"]))
        const lines = [
          { store_external_id: images[0]!.store_external_id, external_id: "nope", series: [{ day: "1969-12-30", inventory: 3 }] },
          { store_external_id: images[0]!.store_external_id, external_id: images[0]!.external_id, series: [{ day: "1969-12-30", inventory: 3 }, { day: "1969-12-30", inventory: 2 }] }
        ].map((l) => JSON.stringify(l)).join("\n")
        const answer = yield* call("/admin/ingest/store-metrics", { method: "POST", headers: { ...admin, "content-type": "application/x-ndjson" }, body: lines })
        expect(JSON.parse(answer.body)).toEqual({
          accepted: 0,
          rejected: 2,
          errors: [
            { line: 1, error: "external_id: no product of this store has this external_id" },
            { line: 2, error: "series: must not list a day twice" }
          ]
        })
      }))

    it.effect("tracker: counts and limits per plan (L3), track by id or domain, again, untrack; each call costs one credit", () =>
      Effect.gen(function*() {
        const { api_key: key, id } = yield* account()
        const status = yield* get(key, tracker)
        expect([status.status, status.body]).toEqual([200, `{"success":true,"tracked":0,"limit":${trackerLimit},"remaining":${trackerLimit}}`])
        expect(status.headers.get("ratelimit-policy")).toBe(`"minute";q=100000;w=60`)
        const [first, second] = sellingStores
        const byId = yield* post(key, `${tracker}/track`, { store_id: first!.external_id })
        expect(byId.status).toBe(200)
        expect(json(byId)).toMatchObject({ success: true, store: { id: first!.external_id, domain: first!.domain }, tracked: 1, limit: trackerLimit, remaining: trackerLimit - 1 })
        expect(Object.keys(json(byId))).toEqual(["success", "store", "tracked", "limit", "remaining"])
        // Again: nothing changes; by domain: the same store.
        expect(json(yield* post(key, `${tracker}/track`, { domain: first!.domain }))).toMatchObject({ tracked: 1, remaining: trackerLimit - 1 })
        expect(json(yield* post(key, `${tracker}/track`, { domain: second!.domain }))).toMatchObject({ store: { id: second!.external_id }, tracked: 2 })
        const untracked = yield* post(key, `${tracker}/untrack`, { store_id: first!.external_id })
        expect([untracked.status, untracked.body]).toEqual([200, `{"success":true,"tracked":1,"limit":${trackerLimit},"remaining":${trackerLimit - 1}}`])
        // Untracking what is not tracked is fine.
        expect((yield* post(key, `${tracker}/untrack`, { store_id: first!.external_id })).body).toBe(
          `{"success":true,"tracked":1,"limit":${trackerLimit},"remaining":${trackerLimit - 1}}`
        )
        expect((yield* balanceOf(id)).used).toBe(6)
      }))

    it.effect("tracker: bad input is a 400 naming the field, an unknown store a 404 with a clear message; both keep their credit (G4)", () =>
      Effect.gen(function*() {
        const { api_key: key, id } = yield* account()
        const refusals: Array<[unknown, number, string]> = [
          [{ domain: "nowhere.example" }, 404, "Store not found: no store with the domain nowhere.example is in the catalog"],
          [{ store_id: "no-such-store" }, 404, "Store not found"],
          [{}, 400, "store_id or domain is missing"],
          [{ store_id: stores[0]!.external_id, domain: stores[0]!.domain }, 400, "domain: send store_id or domain, not both"],
          [{ domain: "Not A Domain" }, 400, "domain: must be a lowercase domain name such as shop.example.com"],
          [{ store: "x" }, 400, "store: unknown parameter"]
        ]
        for (const [body, status, error] of refusals) {
          const answer = yield* post(key, `${tracker}/track`, body)
          expect([answer.status, answer.body]).toEqual([status, JSON.stringify({ success: false, error })])
        }
        const untrack = yield* post(key, `${tracker}/untrack`, { domain: "nowhere.example" })
        expect(untrack.status).toBe(404)
        const page = yield* get(key, `${tracker}/stores?page_size=101`)
        expect([page.status, page.body]).toEqual([400, `{"success":false,"error":"page_size: must be an integer from 1 to 100"}`])
        expect((yield* balanceOf(id)).used).toBe(refusals.length + 2)
        expect(json(yield* get(key, tracker)).tracked).toBe(0)
      }))

    it.effect("tracker: the plan's limit is exact under concurrency, then a 403 naming it", () =>
      Effect.gen(function*() {
        const { api_key: key, id } = yield* account()
        const answers = yield* Effect.forEach(sellingStores, (store) => post(key, `${tracker}/track`, { store_id: store.external_id }), { concurrency: "unbounded" })
        expect(answers.filter((a) => a.status === 200).length).toBe(trackerLimit)
        const refused = answers.filter((a) => a.status !== 200)
        expect(refused.length).toBe(sellingStores.length - trackerLimit)
        for (const answer of refused) {
          expect([answer.status, answer.body]).toEqual([403, `{"success":false,"error":"Store tracking limit reached: ${trackerLimit} stores on the Basic plan"}`])
        }
        expect(json(yield* get(key, tracker))).toEqual({ success: true, tracked: trackerLimit, limit: trackerLimit, remaining: 0 })
        // The 403 is a deliberate answer: every call kept its credit.
        expect((yield* balanceOf(id)).used).toBe(sellingStores.length + 1)
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ n: number }>`select count(*)::int as n from store_tracking where account_id = ${id}::uuid`
        expect(rows[0]!.n).toBe(trackerLimit)
      }))

    it.effect("tracker: the list carries each store's daily sales and new products since tracking, newest tracked first (P2)", () =>
      Effect.gen(function*() {
        const { api_key: key } = yield* account()
        // A store of its own, so that the world's stores stay as generated for the other tests.
        const ingest = yield* Ingest
        const own = {
          ...stores[0]!,
          external_id: "tracked-test",
          domain: "tracked-test.example",
          platform: "custom",
          theme: null,
          apps: [],
          country: null,
          product_count: null,
          created_on: null
        }
        expect((yield* ingest.records("stores", Stream.make(own))).rejected).toBe(0)
        const older = own
        const newer = sellingStores[0]!
        yield* post(key, `${tracker}/track`, { store_id: older.external_id })
        yield* TestClock.adjust("1 second")
        yield* post(key, `${tracker}/track`, { store_id: newer.external_id })
        const trackedOn = yield* today
        // Two days pass: a product is published and observed; its stock falls by 7, then by 5.
        const product: WorldRecord = { ...products[0]!, store_external_id: older.external_id }
        const added = yield* ingest.records("store-products", Stream.make({
          ...product,
          external_id: "tracked-new",
          title: "Brand New Thing",
          published_on: isoDay(trackedOn + DAY),
          images: []
        }))
        expect(added.rejected).toBe(0)
        const observed = yield* ingest.records("store-metrics", Stream.make({
          store_external_id: older.external_id,
          external_id: "tracked-new",
          series: [
            { day: isoDay(trackedOn - DAY), price: 10, inventory: 100 },
            { day: isoDay(trackedOn), price: 10, inventory: 93 },
            { day: isoDay(trackedOn + DAY), price: 12, inventory: 88 }
          ]
        }))
        expect(observed.rejected).toBe(0)
        yield* TestClock.adjust("2 days")
        const answer = yield* get(key, `${tracker}/stores?page_size=1`)
        expect(answer.status).toBe(200)
        const page = json(answer)
        expect(Object.keys(page)).toEqual(["success", "data", "total", "page", "page_size"])
        expect(page).toMatchObject({ success: true, total: 2, page: 1, page_size: 1 })
        expect(page.data[0].store.id).toBe(newer.external_id)
        const second = json(yield* get(key, `${tracker}/stores?page=2&page_size=1`)).data[0]
        expect(second.store.id).toBe(older.external_id)
        expect(second.daily_sales).toEqual([
          { day: isoDay(trackedOn), units: 7, revenue: 70, observed_products: 1, new_products: 0 },
          { day: isoDay(trackedOn + DAY), units: 5, revenue: 60, observed_products: 1, new_products: 1 }
        ])
        expect(second.new_products).toEqual({
          count: 1,
          data: [{ id: "tracked-new", title: "Brand New Thing", price: product.price, currency: product.currency, image_url: null, published_on: isoDay(trackedOn + DAY) }]
        })
      }))

    it.effect("explorer: a body without id searches (P2), sorted by estimated revenue, unknown sales last; each store as estimated from its records", () =>
      Effect.gen(function*() {
        const { api_key: key } = yield* account()
        const now = yield* today
        const answer = yield* post(key, explorer, { page_size: 100 })
        expect(answer.status).toBe(200)
        const page = json(answer)
        expect(Object.keys(page)).toEqual(["success", "data", "total", "page", "page_size"])
        // The small world's stores, the fixture store (no products: its sales are unknown), and any a test added.
        expect(page).toMatchObject({ success: true, page: 1, page_size: 100 })
        expect(page.total).toBe(page.data.length)
        expect(page.total).toBeGreaterThanOrEqual(stores.length + 1)
        const revenues = page.data.map((s: WorldRecord) => s.estimated_daily_revenue)
        const known = revenues.filter((r: unknown) => r !== "unknown")
        expect(known).toEqual([...known].sort((a, b) => b - a))
        expect(revenues.slice(known.length).every((r: unknown) => r === "unknown")).toBe(true)
        for (const store of stores) {
          const found = page.data.find((s: WorldRecord) => s.id === store.external_id)
          expect(found).toMatchObject(expectedOf(store, now))
          expect(found.best_sellers.length).toBe(Math.min(3, products.filter((p) => p.store_external_id === store.external_id).length))
        }
        const hiding = page.data.find((s: WorldRecord) => s.id === hidingStore!.external_id)
        expect(hiding).toMatchObject({ estimated_daily_sales: "unknown", estimated_daily_revenue: "unknown", estimated_revenue_30d: "unknown" })
        expect(hiding.best_sellers.every((b: WorldRecord) => b.estimated_sales_30d === "unknown")).toBe(true)
        // A later page of two holds what the first page listed at those places.
        const second = json(yield* post(key, explorer, { page: 2, page_size: 2 }))
        expect(second.data.map((s: WorldRecord) => s.id)).toEqual(page.data.slice(2, 4).map((s: WorldRecord) => s.id))
        expect(json(yield* post(key, explorer, { page: 99, page_size: 100 }))).toMatchObject({ data: [], total: page.total })
      }))

    it.effect("explorer: filters and sorts select what the records say", () =>
      Effect.gen(function*() {
        const { api_key: key } = yield* account()
        const now = yield* today
        const ids = (body: unknown) => Effect.map(post(key, explorer, { page_size: 100, ...body as object }), (a) => json(a).data.map((s: WorldRecord) => s.id).sort())
        const expected = (keep: (s: WorldRecord) => boolean) => stores.filter(keep).map((s) => s.external_id).sort()
        const someApp = stores[0]!.apps[0] as string
        expect(yield* ids({ app: [someApp] })).toEqual(expected((s) => s.apps.includes(someApp)))
        expect(yield* ids({ platform: "shopify" })).toEqual([...expected((s) => s.platform === "shopify"), "store-1"].sort())
        expect(yield* ids({ theme: [stores[0]!.theme], country: [stores[0]!.country] })).toEqual(
          expected((s) => s.theme === stores[0]!.theme && s.country === stores[0]!.country)
        )
        expect(yield* ids({ min_products: 100, max_products: 300 })).toEqual(expected((s) => s.product_count >= 100 && s.product_count <= 300))
        expect(yield* ids({ ads_running: true })).toEqual(expected((s) => expectedOf(s, now).ads_running > 0))
        expect(yield* ids({ q: stores[1]!.domain.slice(0, 6) })).toEqual(expected((s) => s.domain.includes(stores[1]!.domain.slice(0, 6)) || (s.name as string).toLowerCase().includes(stores[1]!.domain.slice(0, 6))))
        const revenue = (s: WorldRecord) => expectedOf(s, now).estimated_daily_revenue
        const threshold = 30 * (revenue(sellingStores[0]!) as number)
        const rich = yield* ids({ min_revenue: Math.floor(threshold) })
        expect(rich).toEqual(expected((s) => revenue(s) !== "unknown" && 30 * (revenue(s) as number) >= Math.floor(threshold)))
        const launched = yield* ids({ launched_from: "1965-01-01", launched_to: "1968-12-31" })
        expect(launched).toEqual(expected((s) => s.created_on >= "1965-01-01" && s.created_on <= "1968-12-31"))
        // Newest launched first; a store whose launch is unknown last.
        const newest = json(yield* post(key, explorer, { sort: "newest", page_size: 100 })).data.map((s: WorldRecord) => s.launch_date)
        const dated = newest.filter((d: string | null) => d !== null)
        expect(newest).toEqual([...[...dated].sort().reverse(), ...newest.filter((d: string | null) => d === null)])
        const byAds = json(yield* post(key, explorer, { sort: "ads", page_size: 100 })).data.map((s: WorldRecord) => s.ads_running)
        expect(byAds).toEqual([...byAds].sort((a, b) => b - a))
        const byVisits = json(yield* post(key, explorer, { sort: "visits", page_size: 100 })).data.map((s: WorldRecord) => s.monthly_visits)
        const visits = byVisits.filter((v: number | null) => v !== null)
        expect(visits).toEqual([...visits].sort((a: number, b: number) => b - a))
        const growth = json(yield* post(key, explorer, { sort: "growth_30d" }))
        expect(growth.success).toBe(true)
      }))

    it.effect("explorer: refusals name the field (G11) and keep their credit; an unknown id is a 404", () =>
      Effect.gen(function*() {
        const { api_key: key, id } = yield* account()
        const refusals: Array<[unknown, number, string]> = [
          [{ sort: "sales" }, 400, "sort: must be one of revenue, visits, growth_30d, ads, newest (without id)"],
          [{ min_products: 10, max_products: 5 }, 400, "min_products: must not be above max_products"],
          [{ colour: "red" }, 400, "colour: unknown parameter"],
          [{ page_size: 0 }, 400, "page_size: must be an integer from 1 to 100"],
          [{ page: 200, page_size: 100 }, 400, "page: at most 100 for page_size 100; narrow the search with its filters"],
          [{ country: ["usa"] }, 400, "country.0: must be an ISO 3166-1 alpha-2 country code such as US"],
          [{ id: stores[0]!.external_id, platform: ["shopify"] }, 400, "platform: not taken with id (a drill-down takes page, page_size and sort)"],
          [{ id: stores[0]!.external_id, sort: "revenue" }, 400, "sort: must be one of sales, newest, price_low, price_high (with id)"],
          [{ id: "no-such-store" }, 404, "Store not found"]
        ]
        for (const [body, status, error] of refusals) {
          const answer = yield* post(key, explorer, body)
          expect([answer.status, answer.body]).toEqual([status, JSON.stringify({ success: false, error })])
        }
        expect((yield* balanceOf(id)).used).toBe(refusals.length)
        const none = yield* call(explorer, { method: "POST", body: "{}", headers: { "content-type": "application/json" } })
        expect([none.status, none.body]).toEqual([401, `{"success":false,"error":"Unauthorized"}`])
      }))

    it.effect("explorer: the drill-down has the store, its products by estimated sales (paged), 365 days, its ads and landers", () =>
      Effect.gen(function*() {
        const { api_key: key } = yield* account()
        const now = yield* today
        const store = sellingStores[0]!
        const answer = yield* post(key, explorer, { id: store.external_id, page_size: 5 })
        expect(answer.status).toBe(200)
        const detail = json(answer)
        expect(Object.keys(detail)).toEqual(["success", "store", "products", "daily", "ads", "landers"])
        expect(detail.store).toMatchObject(expectedOf(store, now))
        const own = products.filter((p) => p.store_external_id === store.external_id)
        expect(detail.products).toMatchObject({ total: own.length, page: 1, page_size: 5 })
        const sales = detail.products.data.map((p: WorldRecord) => p.estimated_sales_30d)
        expect(sales).toEqual([...sales].sort((a, b) => b - a))
        expect(detail.products.data[0].images[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/media\/stores\/[0-9a-f]{8}-[a-z0-9-]+\.png$/)
        expect(detail.daily.length).toBe(365)
        expect(detail.daily[364].day).toBe(isoDay(now - DAY))
        expect(detail.daily[0].day).toBe(isoDay(now - 365 * DAY))
        const days = storeDays(store.external_id)
        for (const point of detail.daily) {
          const known = days.get(point.day)
          expect([point.day, point.units]).toEqual([point.day, known?.units ?? "unknown"])
        }
        const linked = ads.filter((a) => a.store_external_id === store.external_id)
        expect(detail.ads).toMatchObject({ total: linked.length, running: linked.filter((a) => a.status === "active").length })
        expect(detail.ads.newest.length).toBe(Math.min(20, linked.length))
        expect(detail.landers.map((l: WorldRecord) => l.id).sort()).toEqual(
          landers.filter((l) => l.store_external_id === store.external_id).map((l) => l.external_id).sort()
        )
        const hiding = json(yield* post(key, explorer, { id: hidingStore!.external_id }))
        expect(hiding.daily.every((d: WorldRecord) => d.units === "unknown" && d.revenue === "unknown")).toBe(true)
        expect(hiding.products.data.every((p: WorldRecord) => p.estimated_sales_30d === "unknown" && p.inventory === null)).toBe(true)
        const cheapest = json(yield* post(key, explorer, { id: store.external_id, sort: "price_low", page_size: 100 })).products.data.map((p: WorldRecord) => p.price)
        expect(cheapest).toEqual([...cheapest].sort((a, b) => a - b))
      }))

    it.effect("metering: no key is a 401 and a plan below Basic a 403, both free; a failure is the 500 envelope and refunds its credit (G1, G4)", () =>
      Effect.gen(function*() {
        const free = yield* account({ plan: "free" })
        const planRefused = yield* post(free.api_key, visual, { image_url: "https://example.com/a.png" })
        expect([planRefused.status, planRefused.body]).toEqual([403, `{"success":false,"error":"AdIntel Basic plan or higher required"}`])
        const anonymous = yield* call(tracker)
        expect([anonymous.status, anonymous.body]).toEqual([401, `{"success":false,"error":"Unauthorized"}`])
        expect((yield* balanceOf(free.id)).used).toBe(0)
        // The tracker's table out of reach for a moment: the call fails, and its credit comes back.
        const { api_key: key, id } = yield* account()
        const sql = yield* SqlClient.SqlClient
        yield* sql`alter table store_tracking rename to store_tracking_away`
        const failed = yield* get(key, tracker).pipe(Effect.ensuring(Effect.orDie(sql`alter table store_tracking_away rename to store_tracking`)))
        expect([failed.status, failed.body]).toEqual([500, `{"success":false,"error":"Internal server error"}`])
        expect((yield* balanceOf(id)).used).toBe(0)
        expect((yield* get(key, tracker)).status).toBe(200)
        expect((yield* balanceOf(id)).used).toBe(1)
      }))

    it.effect("the un-versioned aliases answer the same, metered alike (S3)", () =>
      Effect.gen(function*() {
        const { api_key: key, id } = yield* account()
        const status = yield* get(key, "/api/store-tracker")
        expect([status.status, status.body]).toEqual([200, `{"success":true,"tracked":0,"limit":${trackerLimit},"remaining":${trackerLimit}}`])
        expect(status.headers.get("ratelimit")).not.toBeNull()
        const viaAlias = yield* post(key, "/api/store-explorer", { page_size: 3 })
        const viaV1 = yield* post(key, explorer, { page_size: 3 })
        expect(viaAlias.status).toBe(200)
        expect(viaAlias.body).toBe(viaV1.body)
        expect((yield* post(key, "/api/store-tracker/track", { store_id: stores[0]!.external_id })).status).toBe(200)
        expect(json(yield* get(key, "/api/store-tracker/stores")).total).toBe(1)
        expect((yield* balanceOf(id)).used).toBe(5)
        const sql = yield* SqlClient.SqlClient
        const routes = yield* sql<{ route: string }>`select route from request_ledger where account_id = ${id}::uuid order by id`
        expect(routes.map((r) => r.route)).toEqual(["/api/store-tracker", "/api/store-explorer", explorer, "/api/store-tracker/track", "/api/store-tracker/stores"])
      }))

    it.effect("visual search: a cropped, resized, re-encoded product photo finds its store and product first, uploaded or by URL", () =>
      Effect.gen(function*() {
        const { api_key: key, id } = yield* account()
        // Products of two stores, each checked by upload (JPEG) and by URL (WebP, then AVIF).
        for (const [index, format] of [[0, "webp"], [images.length - 1, "avif"]] as const) {
          const source = images[index]!
          const answer = yield* upload(key, yield* alteredPhoto(source.image))
          expect(answer.status).toBe(200)
          const found = json(answer)
          expect(Object.keys(found)).toEqual(["success", "data"])
          expect(found.data[0].store.id).toBe(source.store_external_id)
          expect(found.data[0].products[0].id).toBe(source.external_id)
          expect(found.data[0].products[0].image_url).toMatch(new RegExp(`/media/stores/${source.image.slice("/media/stores/".length).replace(".", "\\.")}$`))
          const similarities = found.data.map((m: WorldRecord) => m.similarity)
          expect(similarities).toEqual([...similarities].sort((a, b) => b - a))
          expect(similarities.every((x: number) => x >= 0 && x <= 1)).toBe(true)
          expect(found.data[0].similarity).toBeGreaterThan(found.data[1].similarity)
          expect(found.data.length).toBe(new Set(found.data.map((m: WorldRecord) => m.store.id)).size)
          const served = yield* Effect.scoped(Effect.flatMap(
            Effect.flatMap(alteredPhoto(source.image, format), (bytes) => imageServer(bytes, `image/${format}`)),
            ({ url }) => post(key, visual, { image_url: url })
          ))
          expect(served.status).toBe(200)
          expect(json(served).data[0].store.id).toBe(source.store_external_id)
          expect(json(served).data[0].products[0].id).toBe(source.external_id)
        }
        expect((yield* balanceOf(id)).used).toBe(4)
      }))

    it.effect("visual search: an imported product's photo (an http URL) is fetched and indexed, and the next search finds it", () =>
      Effect.gen(function*() {
        const { api_key: key } = yield* account()
        const store = sellingStores[1]!
        const photo = yield* Effect.promise(async () => new Uint8Array((await drawArt("0badcafe-imported-lamp.png"))!))
        const found = yield* Effect.scoped(Effect.gen(function*() {
          const { url } = yield* imageServer(photo, "image/png")
          const ingest = yield* Ingest
          const imported = yield* ingest.records("store-products", Stream.make({
            store_external_id: store.external_id,
            external_id: "imported-lamp",
            title: "Imported Lamp",
            price: 40,
            images: [url],
            fetched_at: "2026-11-21T21:00:00Z",
            source: "test",
            method: "manual"
          }))
          expect(imported.rejected).toBe(0)
          const report = yield* (yield* ProductImages).hashPending({ limit: 100, concurrency: 2 })
          expect(report).toEqual({ hashed: 1, failed: [] })
          // Nothing left to hash: a second run fetches nothing.
          expect((yield* (yield* ProductImages).hashPending({ limit: 100, concurrency: 2 })).hashed).toBe(0)
          return json(yield* upload(key, yield* Effect.promise(() => sharp(photo).resize(250).webp({ quality: 60 }).toBuffer().then((b) => new Uint8Array(b))))).data[0]
        }))
        expect(found.store.id).toBe(store.external_id)
        expect(found.products[0]).toMatchObject({ id: "imported-lamp", title: "Imported Lamp" })
      }))

    it.effect("visual search: the explorer's filters narrow the stores; the alias answers alike", () =>
      Effect.gen(function*() {
        const { api_key: key } = yield* account()
        const source = images[0]!
        const store = stores.find((s) => s.external_id === source.store_external_id)!
        const photo = yield* alteredPhoto(source.image)
        const elsewhere = yield* upload(key, photo, { country: stores.find((s) => s.country !== store.country)!.country, limit: "50" })
        expect(elsewhere.status).toBe(200)
        const found = json(elsewhere).data
        expect(found.length).toBeGreaterThan(0)
        expect(found.every((m: WorldRecord) => m.store.country !== store.country)).toBe(true)
        const few = json(yield* upload(key, photo, { limit: "2", theme: store.theme }))
        expect(few.data.length).toBeLessThanOrEqual(2)
        expect(few.data[0].store.id).toBe(store.external_id)
        const alias = yield* upload(key, photo, { limit: "1" }, "/api/store-explorer/visual-search")
        expect(json(alias).data.map((m: WorldRecord) => m.store.id)).toEqual([store.external_id])
      }))

    it.effect("visual search: a non-image or an over-size upload, a missing or refused URL, bad fields: 400 naming the field, credit kept (G4)", () =>
      Effect.gen(function*() {
        const { api_key: key, id } = yield* account()
        const format = "must be a JPEG, PNG, WebP or AVIF image (checked by its content)"
        const text = new TextEncoder().encode("this is not a picture, whatever its name says")
        // Over 10 MiB: the JPEG signature and then filler.
        const huge = new Uint8Array(10 * 1024 * 1024 + 1)
        huge.set([0xff, 0xd8, 0xff, 0xe0])
        const gif = yield* Effect.promise(() => sharp({ create: { width: 8, height: 8, channels: 3, background: "#ff0000" } }).gif().toBuffer())
        const refusals: Array<[Effect.Effect<Answer, never, any>, string]> = [
          [upload(key, text), `image: ${format}`],
          [upload(key, new Uint8Array(gif)), `image: ${format}`],
          [upload(key, huge), "image: must be at most 10485760 bytes (10 MiB)"],
          [upload(key, text, { min_products: "lots" }), "min_products: must be an integer from 0 to 10000000"],
          [post(key, visual, {}), "image_url is missing (or send a multipart form with the image file)"],
          [post(key, visual, { image_url: "http://127.0.0.1/secret.png" }), "image_url: address not allowed: only public internet addresses are fetched"],
          [post(key, visual, { image_url: "ftp://example.com/a.png" }), "image_url: must be an http(s) URL of at most 2048 characters"],
          [post(key, visual, { image_url: "http://localhost:1/x.png", limit: 51 }), "limit: must be an integer from 1 to 50"]
        ]
        for (const [request, error] of refusals) {
          const answer = yield* request
          expect([answer.status, answer.body]).toEqual([400, JSON.stringify({ success: false, error })])
        }
        const noFile = new FormData()
        noFile.append("country", "US")
        const missing = yield* call(visual, { method: "POST", headers: { "X-API-Key": key }, body: noFile })
        expect([missing.status, missing.body]).toEqual([400, `{"success":false,"error":"image is missing: send the photo as the multipart file field image"}`])
        expect((yield* balanceOf(id)).used).toBe(refusals.length + 1)
      }))

    it.effect("media: the catalog's product photos are drawn and served, never kept; no other path is", () =>
      Effect.gen(function*() {
        const dir = yield* MediaDir
        const name = images[1]!.image.slice("/media/stores/".length)
        const { url } = yield* TestServer
        const answer = yield* Effect.promise(async () => {
          const response = await fetch(`${url}/media/stores/${name}`)
          return { status: response.status, type: response.headers.get("content-type"), bytes: new Uint8Array(await response.arrayBuffer()) }
        })
        expect([answer.status, answer.type]).toEqual([200, "image/png"])
        const meta = yield* Effect.promise(() => sharp(answer.bytes).metadata())
        expect([meta.format, meta.width, meta.height]).toEqual(["png", 400, 400])
        // Drawn for the answer, not kept: requests do not grow the disk (issue 28).
        expect(existsSync(path.join(dir, "stores", name))).toBe(false)
        // A well-formed name the catalog does not hold is a 404, like any other.
        const [label] = name.split(".")
        for (const bad of ["..%2F..%2Fetc%2Fpasswd", "%2e%2e", "nope.png", "ABC.png", `${name}.tmp`, "x.svg", `0badf00d-${label}.png`]) {
          const refused = yield* call(`/media/stores/${bad}`)
          expect([bad, refused.status]).toEqual([bad, 404])
        }
        expect((yield* call("/media/stores/../../package.json")).status).toBe(404)
      }))

    it.effect("media: 1,000 random well-formed names are 404s; nothing is drawn or written, nothing fails (issue 28)", () =>
      Effect.gen(function*() {
        const dir = yield* MediaDir
        const { url } = yield* TestServer
        const before = yield* Effect.promise(() => readdir(dir, { recursive: true }))
        const names = Array.from({ length: 1_000 }, (_, i) => `${(0x10000000 + i * 7919).toString(16)}-signature-serum-${i}.png`)
        const statuses = yield* Effect.forEach(names, (name) =>
          Effect.promise(() => fetch(`${url}/media/stores/${name}`).then(async (r) => (await r.arrayBuffer(), r.status))), { concurrency: 16 })
        expect(new Set(statuses)).toEqual(new Set([404]))
        expect(yield* Effect.promise(() => readdir(dir, { recursive: true }))).toEqual(before)
      }))
  })
})
