import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import {
  loadedSmallWorldServer,
  recordsOf,
  seriesOf,
  smallWorld,
  sumOver as sumOverDays,
  type WorldRecord
} from "./support/AdWorld.js"
import { account, balanceOf, call, keyHeader, signIn } from "./support/TestServer.js"

/** The small world (TestClock at 0: the default period is 1969-12-02..1969-12-31), brute-forced. */
type Rec = WorldRecord
const all = (entity: string) => recordsOf(entity as keyof typeof smallWorld.records)
const products = all("shop-products")
const videos = all("shop-videos")
const creators = all("shop-creators")
const [from, to] = ["1969-12-02", "1969-12-31"]
const sumOver = (subject: string, r: Rec, metric: string, start = from, end = to) => sumOverDays(subject, r, metric, start, end)
const close = (a: number | null, b: number | null) => (a === null || b === null ? a === b : Math.abs(a - b) < 0.01)

const prefix = "/api/v1/clipapp-shop"
const post = (key: string, path: string, body: unknown) =>
  Effect.map(
    call(`${prefix}/${path}`, { method: "POST", headers: { "X-API-Key": key, "content-type": "application/json" }, body: JSON.stringify(body) }),
    (a) => ({ ...a, json: JSON.parse(a.body) })
  )
const get = (key: string, path: string) => Effect.map(call(`${prefix}/${path}`, keyHeader(key)), (a) => ({ ...a, json: JSON.parse(a.body) }))
const idsOf = (json: { data: Array<{ id: string }> }) => json.data.map((r) => r.id).sort()

// A US product shown in videos, its shop, and a creator of one of those videos.
const product = products.find((p) => p.region === "US" && videos.some((v) => v.product_external_ids.includes(p.external_id)))!
const shopId = product.shop_external_id as string
const showing = videos.filter((v) => v.region === "US" && v.product_external_ids.includes(product.external_id))
const creatorId = showing[0]!.creator_external_id as string

describe("short-video shop detail pages (shop-detail, creator-detail, product-detail)", () => {
  layer(loadedSmallWorldServer())((it) => {
    it.effect("product-detail: profile with period totals, the tabs asked for; the GET forms answer the same", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const answer = yield* post(api_key, "product-detail", { id: product.external_id, tabs: ["video/queryList", "creator/queryList"] })
        expect(answer.status).toBe(200)
        expect(answer.json.data.profile).toMatchObject({ id: product.external_id, title: product.title, shop: { id: shopId } })
        expect(close(answer.json.data.profile.period.metrics.gmv, sumOver("product", product, "gmv"))).toBe(true)
        expect(idsOf(answer.json.data.tabs["video/queryList"])).toEqual(showing.map((v) => v.external_id).sort())
        expect(idsOf(answer.json.data.tabs["creator/queryList"])).toEqual([...new Set(showing.map((v) => v.creator_external_id))].sort())
        const byGet = yield* get(api_key, `product-details?id=${product.external_id}`)
        const byPath = yield* get(api_key, `product-detail/${product.external_id}`)
        expect(byGet.json.data.profile).toEqual(answer.json.data.profile)
        expect(byPath.json.data.profile).toEqual(answer.json.data.profile)
        expect(byPath.json.data.tabs).toEqual({})
        // S4: the legacy dashboard paths, under a browser session
        const email = "detail-legacy@example.com"
        yield* account({ email, password: "correct horse battery" })
        const session = yield* signIn(email, "correct horse battery")
        for (const path of [`/api/product-detail/${product.external_id}`, `/api/clipapp-shop/product-detail/${product.external_id}`]) {
          const legacy = yield* call(path, { headers: session })
          expect([path, legacy.status, JSON.parse(legacy.body).data.profile]).toEqual([path, 200, answer.json.data.profile])
        }
        const legacyPost = yield* call("/api/product-detail/total", {
          method: "POST",
          headers: { ...session, "content-type": "application/json" },
          body: JSON.stringify({ id: product.external_id })
        })
        expect(legacyPost.status).toBe(200)
        expect((yield* call(`/api/product-detail/${product.external_id}`)).status).toBe(401)
      }))

    it.effect("totals and daily series agree with the generated series", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const total = yield* post(api_key, "product-detail/total", { id: product.external_id, date_from: "1969-12-20", date_to: "1969-12-31" })
        expect(total.json.data).toMatchObject({ id: product.external_id, date_from: "1969-12-20", date_to: "1969-12-31" })
        expect(close(total.json.data.metrics.units, sumOver("product", product, "units", "1969-12-20", "1969-12-31"))).toBe(true)
        const history = yield* post(api_key, "product-detail/history", { id: product.external_id, date_from: "1969-12-20", date_to: "1969-12-31" })
        expect(history.status, history.body).toBe(200)
        expect(history.json.data.series).toHaveLength(12)
        const points = seriesOf("product", "US", product.external_id)
        for (const day of history.json.data.series) {
          const point = points.find((p) => p.day === day.day)
          expect([day.day, day.units]).toEqual([day.day, point?.units ?? null])
        }
        const trend = yield* post(api_key, "product-detail/salesTrend", { id: product.external_id })
        const days = trend.json.data.series as Array<{ units: number | null; units_7d_avg: number | null }>
        expect(days).toHaveLength(30)
        const last7 = days.slice(-7).map((d) => d.units).filter((u): u is number => u !== null)
        expect(days.at(-1)!.units_7d_avg).toBeCloseTo(last7.reduce((a, b) => a + b, 0) / last7.length, 3)
        const creatorHistory = yield* post(api_key, "creator-detail/history", { id: creatorId })
        expect(Object.keys(creatorHistory.json.data.series[0]).sort()).toEqual(["day", "followers", "gmv", "likes", "views"])
      }))

    it.effect("lists are explore searches tied to the record: paged and sorted, no daily search taken", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "basic" })
        const before = (yield* get(api_key, "credits")).json.credits_remaining
        const shopProducts = products.filter((p) => p.region === "US" && p.shop_external_id === shopId)
        const listed = yield* post(api_key, "shop-detail/product/queryList", { id: shopId, page_size: 100, sort: "price", order: "asc" })
        expect(listed.json.total).toBe(shopProducts.length)
        const prices = listed.json.data.map((p: { price_min: number }) => p.price_min)
        expect(prices).toEqual([...prices].sort((a: number, b: number) => a - b))
        const creatorVideos = yield* post(api_key, "creator-detail/video/queryList", { id: creatorId, page_size: 100 })
        expect(idsOf(creatorVideos.json)).toEqual(videos.filter((v) => v.region === "US" && v.creator_external_id === creatorId).map((v) => v.external_id).sort())
        const shopVideos = videos.filter((v) => v.region === "US" && v.product_external_ids.some((p: string) => shopProducts.some((s) => s.external_id === p)))
        expect((yield* post(api_key, "shop-detail/searchVideos", { id: shopId, page_size: 100 })).json.total).toBe(shopVideos.length)
        const cooperating = new Set(shopVideos.map((v) => v.creator_external_id))
        expect((yield* post(api_key, "shop-detail/searchCooperativeCreators", { id: shopId, page_size: 100 })).json.total).toBe(cooperating.size)
        expect((yield* post(api_key, "creator-detail/searchShopList", { id: creatorId })).json.data.map((s: { id: string }) => s.id)).toContain(shopId)
        // the link is the route's own: it cannot be sent
        const sent = yield* post(api_key, "shop-detail/product/queryList", { id: shopId, shop_id: "shop-9" })
        expect([sent.status, sent.json.error]).toEqual([400, "shop_id: unknown parameter"])
        expect((yield* get(api_key, "credits")).json.credits_remaining).toBe(before)
      }))

    it.effect("the shop's extra totals, sales strategy and a product's conversion agree with the records", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const shopProducts = products.filter((p) => p.region === "US" && p.shop_external_id === shopId)
        const inPeriod = (v: Rec) => v.published_at.slice(0, 10) >= from && v.published_at.slice(0, 10) <= to
        const shopVideos = videos.filter((v) => v.region === "US" && inPeriod(v) && v.product_external_ids.some((p: string) => shopProducts.some((s) => s.external_id === p)))
        const extra = yield* post(api_key, "shop-detail/extraTotal", { id: shopId })
        expect(extra.json.data).toMatchObject({
          id: shopId,
          products: shopProducts.length,
          products_with_sales: shopProducts.filter((p) => (sumOver("product", p, "units") ?? 0) > 0).length,
          new_products: shopProducts.filter((p) => p.launched_on !== null && p.launched_on >= from && p.launched_on <= to).length,
          videos: shopVideos.length,
          creators: new Set(shopVideos.map((v) => v.creator_external_id)).size
        })
        const paid = yield* post(api_key, "shop-detail/salesStrategy/selfPromotion", { id: shopId })
        const organic = yield* post(api_key, "shop-detail/salesStrategy/affiliate", { id: shopId })
        expect(paid.json.data.videos).toBe(shopVideos.filter((v) => v.is_ad).length)
        expect(organic.json.data.videos).toBe(shopVideos.filter((v) => !v.is_ad).length)
        const conversion = yield* post(api_key, "product-detail/creator/getConversionRadio", { id: product.external_id })
        const views = sumOver("product", product, "views") ?? 0
        expect(close(conversion.json.data.views, views)).toBe(true)
        expect(conversion.json.data.units_per_1000_views).toBeCloseTo(views === 0 ? 0 : ((sumOver("product", product, "units") ?? 0) / views) * 1000, 3)
        expect(conversion.json.data.creators.map((c: { id: string }) => c.id).sort()).toEqual([...new Set(showing.map((v) => v.creator_external_id))].sort())
      }))

    it.effect("categories: tree, layers, summary, history, siblings and top lists of a subtree", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const categories = all("shop-categories").filter((c) => c.region === "US")
        const tree = yield* get(api_key, "categories/hierarchy")
        const count = (nodes: Array<{ children: Array<unknown> }>): number => nodes.reduce((n, c) => n + 1 + count(c.children as any), 0)
        expect(count(tree.json.data)).toBe(categories.length)
        expect(tree.json.data.map((c: { id: string }) => c.id).sort()).toEqual(categories.filter((c) => c.level === 1).map((c) => c.external_id).sort())
        const layers = yield* get(api_key, "categories/layers?country=GB")
        expect(layers.json.data.map((l: { level: number; categories: Array<unknown> }) => [l.level, l.categories.length])).toEqual(
          [1, 2, 3].map((level) => [level, all("shop-categories").filter((c) => c.region === "GB" && c.level === level).length])
        )
        const top = categories.find((c) => c.level === 1)!
        const inside = (id: string): Array<string> => [id, ...categories.filter((c) => c.parent_external_id === id).flatMap((c) => inside(c.external_id))]
        const subtree = new Set(inside(top.external_id))
        const summary = yield* get(api_key, `categories/summary?id=${top.external_id}`)
        expect(summary.json.data.counts).toEqual({
          products: products.filter((p) => p.region === "US" && subtree.has(p.category_external_id)).length,
          shops: all("shop-shops").filter((s) => s.region === "US" && subtree.has(s.main_category_external_id)).length,
          creators: creators.filter((c) => c.region === "US" && c.category_external_ids.some((id: string) => subtree.has(id))).length,
          subcategories: subtree.size - 1
        })
        const history = yield* get(api_key, `categories/history?id=${top.external_id}&date_from=1969-12-30`)
        expect(history.json.data.series.map((d: { day: string }) => d.day)).toEqual(["1969-12-30", "1969-12-31"])
        const siblings = yield* get(api_key, `categories/siblings?id=${top.external_id}`)
        expect(siblings.json.data.map((c: { id: string }) => c.id).sort()).toEqual(
          categories.filter((c) => c.level === 1 && c.external_id !== top.external_id).map((c) => c.external_id).sort()
        )
        const ranked = yield* post(api_key, "categories/top-products", { id: top.external_id, page_size: 5 })
        expect(ranked.json.total).toBe(products.filter((p) => p.region === "US" && subtree.has(p.category_external_id)).length)
        const gmv = ranked.json.data.map((p: { period: { metrics: { gmv: number | null } } }) => p.period.metrics.gmv ?? -1)
        expect(gmv).toEqual([...gmv].sort((a: number, b: number) => b - a))
        expect((yield* post(api_key, "categories/top-shops", { id: top.external_id })).status).toBe(200)
        expect((yield* post(api_key, "categories/top-creators", { id: top.external_id })).status).toBe(200)
        expect((yield* get(api_key, "categories/summary?id=cat-nope")).body).toBe(`{"success":false,"error":"Category not found"}`)
      }))

    it.effect("records by id: shops summary and details, products list, a video's metrics, products and similar videos, histories", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "basic" })
        const before = (yield* get(api_key, "credits")).json.credits_remaining
        const summary = yield* get(api_key, `shops/summary?id=${shopId}`)
        expect(summary.json.data.profile.id).toBe(shopId)
        expect(summary.json.data.totals.products).toBe(products.filter((p) => p.region === "US" && p.shop_external_id === shopId).length)
        const details = yield* get(api_key, `shops/details?id=${shopId}`)
        expect((yield* get(api_key, `shop-details?id=${shopId}`)).json).toEqual(details.json)
        expect(details.json.data).toEqual(summary.json.data.profile)
        const listed = yield* get(api_key, "products?country=GB&page_size=100")
        expect(listed.json.total).toBe(products.filter((p) => p.region === "GB").length)
        const video = showing[0]!
        const metrics = yield* get(api_key, `videos/${video.external_id}/metrics`)
        const views = sumOver("video", video, "views")
        expect(close(metrics.json.data.metrics.views, views)).toBe(true)
        const engagement = ["likes", "comments", "shares"].reduce((n, m) => n + (sumOver("video", video, m) ?? 0), 0)
        expect(metrics.json.data.engagement_rate).toBeCloseTo(views ? engagement / views : 0, 3)
        expect((yield* get(api_key, `videos/${video.external_id}`)).json.data.creator.id).toBe(video.creator_external_id)
        expect(idsOf((yield* get(api_key, `videos/${video.external_id}/products`)).json)).toEqual([...video.product_external_ids].sort())
        const similar = videos.filter((v) => v.region === "US" && v.external_id !== video.external_id && v.product_external_ids.some((p: string) => video.product_external_ids.includes(p)))
        expect((yield* get(api_key, `videos/${video.external_id}/similar`)).json.data.length).toBe(Math.min(20, similar.length))
        expect((yield* get(api_key, `videos/${video.external_id}/history?date_from=1969-12-25`)).json.data.series).toHaveLength(7)
        expect((yield* get(api_key, `creators/${creatorId}/history`)).json.data.series).toHaveLength(30)
        const channels = yield* get(api_key, `products/${product.external_id}/sales-channel`)
        expect(channels.json.data.channels.map((c: { channel: string }) => c.channel)).toEqual(["ads", "creator_videos"])
        expect(close(channels.json.data.units, sumOver("product", product, "units") ?? 0)).toBe(true)
        expect((yield* get(api_key, "videos/video-nope")).body).toBe(`{"success":false,"error":"Video not found"}`)
        expect((yield* get(api_key, "videos/bad.id")).body).toBe(`{"success":false,"error":"Invalid id"}`)
        expect((yield* get(api_key, "credits")).json.credits_remaining).toBe(before)
      }))

    it.effect("visits: opening a page counts, per record and day, across accounts; the others its visitors opened", () =>
      Effect.gen(function*() {
        const [a, b] = [yield* account({ plan: "premium" }), yield* account({ plan: "premium" })]
        const other = products.find((p) => p.region === "US" && p.external_id !== product.external_id)!
        const today = "1970-01-01"
        const window = `date_from=${today}&date_to=${today}`
        // earlier tests opened this product too: compare with what they left
        const earlier = (yield* get(a.api_key, `detail-visit-events?type=product&id=${product.external_id}&${window}`)).json.data
        const before = earlier.visits as number
        const visitorsBefore = earlier.series[0].visitors as number
        yield* post(a.api_key, "product-detail", { id: product.external_id })
        yield* get(a.api_key, `product-detail/${product.external_id}`)
        yield* get(b.api_key, `product-details?id=${product.external_id}`)
        yield* post(a.api_key, "product-detail", { id: other.external_id })
        // totals and lists are not page openings
        yield* post(b.api_key, "product-detail/total", { id: product.external_id })
        const events = yield* get(a.api_key, `detail-visit-events?type=product&id=${product.external_id}&${window}`)
        expect(events.json.data).toMatchObject({ type: "product", id: product.external_id, visits: before + 3 })
        expect(events.json.data.series).toEqual([{ day: today, visits: before + 3, visitors: visitorsBefore + 2 }])
        const others = yield* get(b.api_key, `product-other-visits?id=${product.external_id}&${window}`)
        expect(others.json.data).toMatchObject({ visits: before + 3, visitors: visitorsBefore + 2 })
        expect(others.json.data.other_products).toContainEqual({ id: other.external_id, title: other.title, visits: 1, visitors: 1 })
        const category = all("shop-categories").find((c) => c.region === "US")!
        yield* get(a.api_key, `categories/summary?id=${category.external_id}`)
        const categoryEvents = yield* get(a.api_key, `category-visit-events?id=${category.external_id}&${window}`)
        expect(categoryEvents.json.data.visits).toBeGreaterThanOrEqual(1)
        const missing = yield* get(a.api_key, `detail-visit-events?id=${product.external_id}`)
        expect([missing.status, missing.json.error]).toEqual([400, "type is missing"])
        const noId = yield* get(a.api_key, "categories/summary")
        expect([noId.status, noId.json.error]).toEqual([400, "id is missing"])
      }))

    it.effect("unknown records are 404s naming their type; bad input 400; every call 1 credit", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const cases: Array<[string, unknown, number, string]> = [
          ["product-detail", { id: "product-nope" }, 404, "Product not found"],
          ["shop-detail/total", { id: "shop-nope" }, 404, "Shop not found"],
          ["creator-detail/video/queryList", { id: "creator-nope" }, 404, "Creator not found"],
          ["product-detail", { id: product.external_id, country: "GB" }, 404, "Product not found"],
          ["product-detail", {}, 400, "id is missing"],
          ["product-detail", { id: product.external_id, tabs: ["nope"] }, 400, "tabs.0: must be one of creator/queryList, searchCreators, video/queryList, searchVideos"],
          ["shop-detail/history", { id: shopId, date_from: "1969-12-31", date_to: "1969-12-01" }, 400, "date_from: must not be after date_to"],
          ["creator-detail/total", { id: creatorId, colour: "red" }, 400, "colour: unknown parameter"]
        ]
        for (const [path, body, status, error] of cases) {
          const answer = yield* post(api_key, path, body)
          expect([path, answer.status, answer.body]).toEqual([path, status, JSON.stringify({ success: false, error })])
        }
        expect((yield* balanceOf(id)).used).toBe(cases.length)
        expect(creators.length).toBeGreaterThan(0)
      }))
  })
})
