import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { pageOf } from "../src/kernel/Paging.js"
import { type ShopEntity, ShopRecordId } from "../src/shop/catalog/Entities.js"
import type { CatalogWorld, MemoryDay } from "../src/shop/catalog/InMemoryCatalog.js"
import { lastDays } from "../src/shop/catalog/Period.js"
import { ShopCatalog } from "../src/shop/catalog/ShopCatalog.js"

/**
 * The catalog read model's rules on its in-memory layer (no PostgreSQL): periods, growth,
 * sorts and P2 paging, the rollups' freshness and trending. The clock is a TestClock set to
 * 2024-03-10 (12:00 UTC): the default period is 2024-02-09..2024-03-09, the one before it
 * 2024-01-10..2024-02-08. The HTTP + PostgreSQL suites check the same answers from the SQL.
 */

const id = ShopRecordId.make
const day = (d: string, values: Record<string, number | null>): MemoryDay => ({ day: d, values })

const category = (external: string, region: string, daily: ReadonlyArray<MemoryDay>) => ({
  id: id(external),
  region,
  record: { name: `Category ${external}`, level: 1, parent_id: null },
  daily
})

const product = (external: string, daily: ReadonlyArray<MemoryDay>) => ({
  id: id(external),
  region: "US",
  record: {
    title: `Product ${external}`,
    shop: { id: "s1", name: "Shop 1" },
    category: { id: "c1", name: "Category 1" },
    price_min: 10,
    price_max: 12,
    currency: "USD",
    commission_rate: null,
    rating: null,
    reviews: null,
    launched_on: null,
    images: []
  },
  daily
})

const world: CatalogWorld = {
  categories: [
    // gmv 20 in the period, 10 before: growth 1; 3 units now, none before: no growth.
    category("a", "US", [day("2024-02-08", { gmv: 10, units: null }), day("2024-02-09", { gmv: 10, units: 3 }), day("2024-03-09", { gmv: 10 })]),
    // 5 now, 20 before: -0.75.
    category("b", "US", [day("2024-01-10", { gmv: 20 }), day("2024-02-20", { gmv: 5 })]),
    // 30 now, nothing before: no growth.
    category("c", "US", [day("2024-03-01", { gmv: 30 }), day("2024-03-10", { gmv: 1_000 })]),
    category("d", "GB", [day("2024-03-01", { gmv: 99 })]),
    // no series at all
    category("e", "US", [])
  ],
  shops: [{
    id: id("s1"),
    region: "US",
    record: { name: "Shop 1", shop_type: "brand", rating: null, followers: 130, main_category: null },
    // followers gained: the last known level minus the first, over the period's days
    daily: [day("2024-02-09", { followers: 100, gmv: 3 }), day("2024-02-10", { followers: null }), day("2024-03-09", { followers: 130, gmv: 7 })]
  }],
  products: [
    product("p1", [day("2024-02-28", { views: 100 }), day("2024-03-05", { views: 150 }), day("2024-03-09", { views: 50 })]),
    product("p2", [day("2024-02-27", { views: 100 }), day("2024-03-04", { views: 50 })]),
    product("p3", [day("2024-03-04", { views: 10 })]),
    product("p4", [day("2024-02-26", { views: 3 }), day("2024-03-03", { views: 10 })])
  ]
}

const testNow = Date.parse("2024-03-10T12:00:00Z")

/** A fresh in-memory catalog (its rollups' state included) at 2024-03-10. */
const onCatalog = <A, E>(effect: Effect.Effect<A, E, ShopCatalog>) =>
  TestClock.setTime(testNow).pipe(Effect.zipRight(effect), Effect.provide(ShopCatalog.layerTest(world)))

const pageOfEntity = (entity: ShopEntity, params: Record<string, unknown> = {}, region = "US") =>
  Effect.flatMap(ShopCatalog, (catalog) => Effect.flatMap(catalog.pageSelection(entity, region, params), catalog.page))

const idsOf = (page: { readonly data: ReadonlyArray<{ readonly id: string }> }) => page.data.map((r) => r.id)
const failureOf = <A, E extends { readonly error: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (e) => e.error)

describe("the shop catalog read model (in memory)", () => {
  it.effect("the default period is the 30 days up to yesterday, by the clock; the period before it is as long", () =>
    onCatalog(Effect.gen(function*() {
      const catalog = yield* ShopCatalog
      expect((yield* catalog.query("categories", "US", {})).period).toEqual({
        from: "2024-02-09",
        to: "2024-03-09",
        previousFrom: "2024-01-10",
        previousTo: "2024-02-08"
      })
      yield* TestClock.adjust("1 day")
      expect((yield* catalog.query("categories", "US", {})).period.to).toBe("2024-03-10")
    })))

  it.effect("date_from alone runs to yesterday, date_to alone starts 29 days before it; at most 366 days, never backwards", () =>
    onCatalog(Effect.gen(function*() {
      const catalog = yield* ShopCatalog
      const periodOf = (params: Record<string, string>) => Effect.map(catalog.query("categories", "US", params), (q) => q.period)
      expect(yield* periodOf({ date_from: "2024-03-01" })).toEqual({
        from: "2024-03-01",
        to: "2024-03-09",
        previousFrom: "2024-02-21",
        previousTo: "2024-02-29"
      })
      expect(yield* periodOf({ date_to: "2024-01-31" })).toEqual({
        from: "2024-01-02",
        to: "2024-01-31",
        previousFrom: "2023-12-03",
        previousTo: "2024-01-01"
      })
      expect((yield* periodOf({ date_from: "2023-03-10", date_to: "2024-03-09" })).previousTo).toBe("2023-03-09")
      expect(yield* failureOf(periodOf({ date_from: "2023-03-09", date_to: "2024-03-09" }))).toBe("date_from: the period is at most 366 days")
      expect(yield* failureOf(periodOf({ date_from: "2024-03-09", date_to: "2024-03-01" }))).toBe("date_from: must not be after date_to")
    })))

  it.effect("a view holds each metric over the period, then its growth against the period before, to 4 decimals", () =>
    onCatalog(Effect.gen(function*() {
      const page = yield* pageOfEntity("categories")
      expect(page.data.find((c) => c.id === "a")).toEqual({
        id: "a",
        region: "US",
        period: { date_from: "2024-02-09", date_to: "2024-03-09", metrics: { gmv: 20, units: 3, gmv_growth: 1, units_growth: null } },
        name: "Category a",
        level: 1,
        parent_id: null
      })
      expect(page.data.find((c) => c.id === "b")?.period.metrics).toEqual({ gmv: 5, units: null, gmv_growth: -0.75, units_growth: null })
      expect(page.data.find((c) => c.id === "e")?.period.metrics).toEqual({ gmv: null, units: null, gmv_growth: null, units_growth: null })
      const shop = yield* pageOfEntity("shops")
      expect(shop.data[0]?.period.metrics).toEqual({
        gmv: 10,
        units: null,
        followers_gained: 30,
        gmv_growth: null,
        units_growth: null,
        followers_gained_growth: null
      })
      const third = yield* pageOfEntity("categories", { date_from: "2024-02-09", date_to: "2024-02-09" })
      // 10 on 2024-02-09 against 10 on 2024-02-08, and 3 units against none
      expect(third.data.find((c) => c.id === "a")?.period.metrics).toEqual({ gmv: 10, units: 3, gmv_growth: 0, units_growth: null })
    })))

  it.effect("pages are sorted by the entity's default metric, by growth or by a column, nulls last either way, ties by load order", () =>
    onCatalog(Effect.gen(function*() {
      expect(idsOf(yield* pageOfEntity("categories"))).toEqual(["c", "a", "b", "e"])
      expect(idsOf(yield* pageOfEntity("categories", { order: "asc" }))).toEqual(["b", "a", "c", "e"])
      expect(idsOf(yield* pageOfEntity("categories", { sort: "gmv_growth" }))).toEqual(["a", "b", "e", "c"])
      expect(idsOf(yield* pageOfEntity("categories", { sort: "gmv_growth", order: "asc" }))).toEqual(["b", "a", "c", "e"])
      expect(idsOf(yield* pageOfEntity("categories", { sort: "name", order: "asc" }))).toEqual(["a", "b", "c", "e"])
      expect(idsOf(yield* pageOfEntity("categories", {}, "GB"))).toEqual(["d"])
      expect(idsOf(yield* pageOfEntity("categories", { min_gmv: 6, max_gmv: 25 }))).toEqual(["a"])
    })))

  it.effect("P2: page and page_size (default 20) slice the one order, the total on every page; page × page_size is at most 10,000", () =>
    onCatalog(Effect.gen(function*() {
      const first = yield* pageOfEntity("categories", { page_size: 3 })
      const second = yield* pageOfEntity("categories", { page: 2, page_size: 3 })
      expect([idsOf(first), first.total, first.page, first.page_size]).toEqual([["c", "a", "b"], 4, 1, 3])
      expect([idsOf(second), second.total, second.page, second.page_size]).toEqual([["e"], 4, 2, 3])
      const whole = yield* pageOfEntity("categories")
      expect([whole.page, whole.page_size, whole.data.length]).toEqual([1, 20, 4])
      expect((yield* pageOfEntity("categories", { page: 100, page_size: 100 })).data).toEqual([])
      expect(yield* failureOf(pageOfEntity("categories", { page: 101, page_size: 100 }))).toBe(
        "page: at most 100 for page_size 100; narrow the search with its filters"
      )
      // the bound comes before the period: a request wrong in both is told about paging
      expect(yield* failureOf(pageOfEntity("categories", { page: 501, page_size: 20, date_from: "2024-03-09", date_to: "2024-03-01" }))).toBe(
        "page: at most 500 for page_size 20; narrow the search with its filters"
      )
    })))

  it.effect("a profile is one record's view over a period; a record another region holds is none", () =>
    onCatalog(Effect.gen(function*() {
      const catalog = yield* ShopCatalog
      const { period } = yield* catalog.query("categories", "US", {})
      const profile = yield* catalog.profile("categories", "US", id("b"), period)
      expect(profile._tag === "Some" ? profile.value.period.metrics.gmv_growth : "none").toBe(-0.75)
      expect((yield* catalog.profile("categories", "US", id("d"), period))._tag).toBe("None")
      expect([yield* catalog.exists("categories", "GB", id("d")), yield* catalog.exists("categories", "US", id("d"))]).toEqual([true, false])
    })))

  it.effect("a series has every day of the period, null where the record has nothing", () =>
    onCatalog(Effect.gen(function*() {
      const catalog = yield* ShopCatalog
      const { period } = yield* catalog.query("categories", "US", { date_from: "2024-02-08", date_to: "2024-02-10" })
      expect(yield* catalog.series("categories", "US", id("a"), period)).toEqual([
        { day: "2024-02-08", values: { gmv: 10, units: null } },
        { day: "2024-02-09", values: { gmv: 10, units: 3 } },
        { day: "2024-02-10", values: { gmv: null, units: null } }
      ])
    })))

  it.effect("rollups hold a standard period (7 or 30 days up to yesterday) until the day changes", () =>
    onCatalog(Effect.gen(function*() {
      const catalog = yield* ShopCatalog
      const rollupOf = (params: Record<string, string>) => Effect.map(catalog.query("categories", "US", params), (q) => q.rollup)
      expect(yield* rollupOf({})).toBeUndefined()
      expect(yield* catalog.refreshStale).toBe(10)
      expect(yield* catalog.refreshStale).toBe(0)
      expect(yield* rollupOf({})).toBe(30)
      expect(yield* rollupOf({ date_from: "2024-03-03" })).toBe(7)
      expect(yield* rollupOf({ date_from: "2024-03-01" })).toBeUndefined()
      expect(yield* rollupOf({ date_to: "2024-03-08" })).toBeUndefined()
      yield* TestClock.adjust("1 day")
      expect(yield* rollupOf({})).toBeUndefined()
      expect(yield* catalog.refreshStale).toBe(10)
      expect(yield* rollupOf({})).toBe(30)
    })))

  it.effect("trending ranks products by growth over the window against the one before; only those with some of it in both", () =>
    onCatalog(Effect.gen(function*() {
      const catalog = yield* ShopCatalog
      // 2024-03-03..2024-03-09 against 2024-02-25..2024-03-02
      const window = yield* lastDays(7)
      const paging = { page: 1, pageSize: 20, limit: 20, offset: 0 }
      const page = yield* catalog.trending({ region: "US", metric: "views", window, categoryId: undefined }, paging)
      expect(page.data.map((p) => [p.id, p.growth, p.current, p.previous])).toEqual([
        ["p4", 2.3333, 10, 3],
        ["p1", 1, 200, 100],
        ["p2", -0.5, 50, 100]
      ])
      expect({ ...page, data: [] }).toEqual(pageOf(paging, [], 3))
      expect(page.data[1]?.period).toEqual({
        date_from: "2024-03-03",
        date_to: "2024-03-09",
        metrics: { gmv: null, units: null, views: 200, gmv_growth: null, units_growth: null, views_growth: 1 }
      })
    })))
})
