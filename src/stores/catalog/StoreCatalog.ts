import { Clock, Effect, Option } from "effect"
import { NotFound } from "../../kernel/Errors.js"
import { idOf, StoreId, type StoreRow } from "../../kernel/Ids.js"
import { type Page, pageOf, type PageWindow } from "../../kernel/Paging.js"
import { absoluteImage } from "../media/MediaPath.js"
import {
  type DailyRowData,
  type ProductRowData,
  type ProductSort,
  StoreCatalogRepo,
  type StoreFilters,
  type StoreKey,
  type StoreRowData,
  type StoreSort,
  type Window
} from "./StoreCatalogRepo.js"
import type { DailyPoint, Estimate, StoreProductView, StoreView } from "./Views.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

export type { ProductSort, StoreFilters, StoreRow, StoreSort, Window }

const DAY = 86_400_000
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places

/** A figure that may be unknown: `"unknown"`, never 0 (issue 20). */
export const estimate = (value: number | null, places = 2): Estimate => (value === null ? "unknown" : round(value, places))

/** The windows estimates are computed over, ending yesterday (UTC). */
export const windowAt = (millis: number): Window => {
  const today = Math.floor(millis / DAY) * DAY
  return { today: isoDay(today), from30: isoDay(today - 30 * DAY), from60: isoDay(today - 60 * DAY) }
}

/** How a request names a store, as sent: its id, or its domain (lowercase). */
export interface StoreName {
  readonly by: "id" | "domain"
  readonly value: string
}

/** A store found by a request, before its view is read. */
export interface FoundStore {
  readonly row: StoreRow
  readonly id: StoreId
}

/** The key a request's name is looked up by: its id branded on the way in (one that cannot be an id names nothing). */
const keyOf = (name: StoreName, notFound: NotFound): Effect.Effect<StoreKey, NotFound> =>
  name.by === "id"
    ? Effect.map(idOf(StoreId, notFound)(name.value), (value) => ({ by: "id", value }))
    : Effect.succeed({ by: "domain", value: name.value })

/**
 * The hosted stores' read model (issue 20), one typed service for the tracker, the explorer
 * and the visual search: stores as answers show them (estimates, running ads, best sellers),
 * searches with the explorer's filters and sorts, a store's products, daily series, ads and
 * landers. Time comes from `Clock`: estimates end yesterday.
 */
export class StoreCatalog extends Effect.Service<StoreCatalog>()("adintel/StoreCatalog", {
  effect: Effect.gen(function*() {
    const repo = yield* StoreCatalogRepo
    const window = Effect.map(Clock.currentTimeMillis, windowAt)

    const view = (base: string) => (r: StoreRowData): StoreView => {
      const image = absoluteImage(base)
      const bestSellers = r.best.length > 0
        ? r.best.map((b) => ({
          id: b.id,
          title: b.title,
          price: b.price,
          currency: b.currency,
          image_url: b.image_url === null ? null : image(b.image_url),
          url: b.url,
          estimated_sales_30d: estimate(b.units, 0)
        }))
        // No products imported: the store record's own best sellers, with nothing estimated.
        : r.record_best.slice(0, 3).map((b) => ({
          id: null,
          title: b.title,
          price: b.price ?? null,
          currency: b.currency ?? null,
          image_url: b.image_url ?? null,
          url: b.url ?? null,
          estimated_sales_30d: "unknown" as const
        }))
      return {
        id: r.id,
        domain: r.domain,
        name: r.name,
        platform: r.platform,
        theme: r.theme,
        apps: r.apps,
        country: r.country,
        currency: r.currency,
        language: r.language,
        product_count: r.product_count,
        launch_date: r.launch_date,
        monthly_visits: r.monthly_visits === null ? null : Math.round(r.monthly_visits),
        estimated_daily_sales: estimate(r.units30),
        estimated_daily_revenue: estimate(r.rev30),
        estimated_revenue_30d: estimate(r.rev30 === null ? null : r.rev30 * 30),
        growth_30d: r.rev30 !== null && r.revprev !== null && r.revprev > 0 ? round(r.rev30 / r.revprev - 1, 4) : null,
        ads_running: r.ads_running,
        best_sellers: bestSellers,
        social_links: r.social_links
      }
    }

    const views = (rows: ReadonlyArray<StoreRow>, base: string, w: Window) =>
      Effect.map(repo.stores(rows, w), (found) => found.map(view(base)))

    const productView = (base: string) => (p: ProductRowData): StoreProductView => ({
      id: p.id,
      title: p.title,
      price: p.price,
      compare_at_price: p.compare_at_price,
      currency: p.currency,
      images: p.images.map(absoluteImage(base)),
      url: p.url,
      product_type: p.product_type,
      published_on: p.published_on,
      estimated_sales_30d: estimate(p.units, 0),
      estimated_revenue_30d: estimate(p.revenue),
      inventory: p.inventory
    })

    const dailyView = (d: DailyRowData): DailyPoint => ({
      day: d.day,
      units: estimate(d.units, 0),
      revenue: estimate(d.revenue),
      observed_products: d.observed_products,
      new_products: d.new_products
    })

    return {
      window,

      /** The store a request names, or a 404 with `message`. */
      find: Effect.fn("StoreCatalog.find", serviceSpan)((name: StoreName, message: string): Effect.Effect<FoundStore, NotFound> => {
        const notFound = new NotFound({ error: message })
        return Effect.flatMap(
          Effect.flatMap(keyOf(name, notFound), repo.find),
          Option.match({ onNone: () => Effect.fail(notFound), onSome: Effect.succeed })
        )
      }),

      /** Stores by row, in the order given, as answers show them. */
      views: Effect.fn("StoreCatalog.views", serviceSpan)((rows: ReadonlyArray<StoreRow>, base: string) => Effect.flatMap(window, (w) => views(rows, base, w))),

      /** Stores by row, as answers show them, looked up by row (a row no longer there is absent). */
      viewsByRow: Effect.fn("StoreCatalog.viewsByRow", serviceSpan)((rows: ReadonlyArray<StoreRow>, base: string): Effect.Effect<ReadonlyMap<StoreRow, StoreView>> =>
        Effect.flatMap(window, (w) =>
          Effect.map(repo.stores(rows, w), (found) => new Map(found.map((r) => [r.row, view(base)(r)]))))),

      /** One P2 page of the stores matching, in the sort's order. */
      search: Effect.fn("StoreCatalog.search", serviceSpan)(function*(filters: StoreFilters, sort: StoreSort, page: PageWindow, base: string): Effect.fn.Return<Page<StoreView>> {
        const w = yield* window
        const found = yield* repo.search(filters, sort, w, { limit: page.limit, offset: page.offset })
        // A page past the last has no row to carry the total: counted on its own.
        const total = found[0]?.total ?? (page.offset === 0 ? 0 : yield* repo.count(filters, w))
        return pageOf(page, yield* views(found.map((f) => f.row), base, w), total)
      }),

      /** Every store matching the filters (for the visual search), by row. */
      matching: Effect.fn("StoreCatalog.matching", serviceSpan)((filters: StoreFilters) => Effect.flatMap(window, (w) => repo.matching(filters, w))),

      products: Effect.fn("StoreCatalog.products", serviceSpan)(function*(store: StoreRow, sort: ProductSort, page: PageWindow, base: string): Effect.fn.Return<Page<StoreProductView>> {
        const w = yield* window
        const { data, total } = yield* repo.products(store, sort, w, { limit: page.limit, offset: page.offset })
        return pageOf(page, data.map(productView(base)), total)
      }),

      /** The last `days` days up to yesterday, one point each, oldest first. */
      daily: Effect.fn("StoreCatalog.daily", serviceSpan)(function*(store: StoreRow, days: number): Effect.fn.Return<ReadonlyArray<DailyPoint>> {
        const w = yield* window
        const today = Date.parse(`${w.today}T00:00:00Z`)
        return (yield* repo.daily(store, isoDay(today - days * DAY), isoDay(today - DAY))).map(dailyView)
      }),

      /** The points from `from` (a day) up to yesterday, at most `days` of the latest. */
      dailySince: Effect.fn("StoreCatalog.dailySince", serviceSpan)(function*(store: StoreRow, from: string, days: number): Effect.fn.Return<ReadonlyArray<DailyPoint>> {
        const w = yield* window
        const today = Date.parse(`${w.today}T00:00:00Z`)
        const start = Math.max(Date.parse(`${from}T00:00:00Z`), today - days * DAY)
        return start >= today ? [] : (yield* repo.daily(store, isoDay(start), isoDay(today - DAY))).map(dailyView)
      }),

      /** The products published since `since` (a day), newest first: how many, and the first `limit`. */
      newProducts: Effect.fn("StoreCatalog.newProducts", serviceSpan)((store: StoreRow, since: string, limit: number, base: string) =>
        Effect.map(repo.newProducts(store, since, limit), (rows) => ({
          count: rows[0]?.total ?? 0,
          data: rows.map(({ total: _total, ...p }) => ({ ...p, image_url: p.image_url === null ? null : absoluteImage(base)(p.image_url) }))
        }))),

      ads: Effect.fn("StoreCatalog.ads", serviceSpan)(repo.ads),
      landers: Effect.fn("StoreCatalog.landers", serviceSpan)(repo.landers),
      productImage: absoluteImage
    }
  }),
  dependencies: [StoreCatalogRepo.Default]
}) {}
