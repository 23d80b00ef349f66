import { Effect, Option } from "effect"
import { NotFound } from "../../kernel/Errors.js"
import type { CallerInfo } from "../../access/gateway/Api.js"
import { today, type UtcDay } from "../../kernel/UtcDay.js"
import { type ExploreParams, type ShopEntity, specOf } from "../catalog/Entities.js"
import { selected as selectedPeriod } from "../catalog/Period.js"
import { ShopCatalog, type View } from "../catalog/ShopCatalog.js"
import { ShopCountry } from "../account/ShopCountry.js"
import { type CategoryNode, type DetailList, type DetailPath, details, type DetailSelection, type DetailTabs, entityOf, type PagePath } from "./Api.js"
import { DetailRepo, type VisitType } from "./DetailRepo.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

const round = (n: number) => Math.round(n * 10_000) / 10_000

const visitTypeOf: Record<ShopEntity, VisitType> = {
  products: "product",
  shops: "shop",
  creators: "creator",
  videos: "video",
  categories: "category"
}

/** The days an answer is about, both included. */
interface Days {
  readonly from: UtcDay
  readonly to: UtcDay
}

/** What every detail answer about one record over a period starts with: `{ id, date_from, date_to, ... }`. */
export const about = (id: string, days: Days) => ({ id, date_from: days.from, date_to: days.to })

/** The days of a view's period metrics. */
const daysOf = (view: View<ShopEntity>): Days => ({ from: view.period.date_from, to: view.period.date_to })

/**
 * The detail pages (issue 5): a record's profile and period totals, its daily series, and its
 * lists, which are pages of another entity tied to it, all read from the catalog read model.
 * Details take no daily search (G7 names explore and count only); an unknown record is a 404
 * naming its type.
 */
export class ShopDetail extends Effect.Service<ShopDetail>()("adintel/ShopDetail", {
  effect: Effect.gen(function*() {
    const catalog = yield* ShopCatalog
    const extra = yield* DetailRepo
    const countries = yield* ShopCountry

    const notFound = (entity: ShopEntity) => new NotFound({ error: `${specOf(entity).one} not found` })

    /** The region and period a request selects; `checked`: a 404 first when the record does not exist. */
    const selected = (entity: ShopEntity, caller: CallerInfo, selection: DetailSelection, checked = true) =>
      Effect.gen(function*() {
        const period = yield* selectedPeriod(selection)
        const region = yield* countries.resolve(caller.accountId, selection.country)
        if (checked && !(yield* catalog.exists(entity, region, selection.id))) return yield* Effect.fail(notFound(entity))
        return { period, region, id: selection.id }
      })

    /** Counts an opening of a record's page (issue 5: the visit routes answer these counts). */
    const visited = (entity: ShopEntity, caller: CallerInfo, view: View<ShopEntity>) =>
      Effect.flatMap(today, (day) => extra.visit(visitTypeOf[entity], specOf(entity).table, view.region, view.id, caller.accountId, day))

    const profileOf = <E extends ShopEntity>(entity: E, caller: CallerInfo, selection: DetailSelection) =>
      Effect.gen(function*() {
        // The row itself tells whether the record exists: no separate check.
        const { id, period, region } = yield* selected(entity, caller, selection, false)
        const profile = yield* catalog.profile(entity, region, id, period)
        return Option.isSome(profile) ? profile.value : yield* Effect.fail(notFound(entity))
      })

    /** A page's profile: the record's view; opening it counts a visit. */
    const pageOf = <E extends ShopEntity>(entity: E, caller: CallerInfo, selection: DetailSelection) =>
      Effect.tap(profileOf(entity, caller, selection), (profile) => visited(entity, caller, profile))

    /** A page of `entity` for a detail route: explore's parameters and answer, `fixed` over the caller's; no daily search. */
    const listed = <E extends ShopEntity>(entity: E, caller: CallerInfo, given: ExploreParams, fixed: ExploreParams) =>
      Effect.gen(function*() {
        const params = { ...given, ...fixed }
        const region = yield* countries.resolve(caller.accountId, params.country)
        const page = yield* catalog.page(yield* catalog.pageSelection(entity, region, params))
        return { success: true as const, ...page }
      })

    /** A list of a detail page: a page of the list's entity tied to the page's record. */
    const list = <E extends ShopEntity>(path: DetailPath, tab: DetailList<E>, caller: CallerInfo, body: DetailSelection & ExploreParams) =>
      Effect.gen(function*() {
        const { id, period, region } = yield* selected(details[path].entity, caller, body)
        const { id: _id, ...params } = body
        return yield* listed(tab.entity, caller, params, {
          [tab.link]: id,
          country: region,
          ...(tab.newInPeriod ? { launched_from: period.from, launched_to: period.to } : {})
        })
      })

    /** A page of `entity` tied to a video (`tie`: the parameters that tie it), the video's period. */
    const videoList = <E extends ShopEntity>(entity: E, caller: CallerInfo, selection: DetailSelection, tie: (id: string) => ExploreParams) =>
      Effect.gen(function*() {
        const { id, region } = yield* selected("videos", caller, selection)
        const { id: _id, ...period } = selection
        const page = yield* listed(entity, caller, period, { ...tie(id), country: region })
        return { success: true as const, data: page.data }
      })

    /** The region's categories as a tree, children in name order. */
    const tree = (rows: ReadonlyArray<{ id: string; name: string; level: number; parent_id: string | null }>) => {
      const node = (row: (typeof rows)[number]): CategoryNode => ({
        id: row.id,
        name: row.name,
        level: row.level,
        children: rows.filter((r) => r.parent_id === row.id).map(node)
      })
      return rows.filter((r) => r.parent_id === null).map(node)
    }

    return {
      list: Effect.fn("ShopDetail.list", serviceSpan)(list),

      hierarchy: Effect.fn("ShopDetail.hierarchy", serviceSpan)(function*(caller: CallerInfo, country: string | undefined) {
        const region = yield* countries.resolve(caller.accountId, country)
        return { success: true as const, data: tree(yield* catalog.categories(region)) }
      }),

      layers: Effect.fn("ShopDetail.layers", serviceSpan)(function*(caller: CallerInfo, country: string | undefined) {
        const rows = yield* catalog.categories(yield* countries.resolve(caller.accountId, country))
        const levels = [...new Set(rows.map((r) => r.level))].sort()
        return { success: true as const, data: levels.map((level) => ({ level, categories: rows.filter((r) => r.level === level) })) }
      }),

      categorySummary: Effect.fn("ShopDetail.categorySummary", serviceSpan)(function*(caller: CallerInfo, selection: DetailSelection) {
        const profile = yield* pageOf("categories", caller, selection)
        const counts = yield* catalog.categoryCounts(profile.region, selection.id)
        return { success: true as const, data: { profile, counts } }
      }),

      /** The categories under the same parent (or the other top ones), by period GMV. */
      siblings: Effect.fn("ShopDetail.siblings", serviceSpan)(function*(caller: CallerInfo, selection: DetailSelection) {
        const { id, region } = yield* selected("categories", caller, selection)
        const all = yield* catalog.categories(region)
        const parent = all.find((c) => c.id === id)?.parent_id ?? null
        const page = yield* listed("categories", caller, { date_from: selection.date_from, date_to: selection.date_to }, {
          country: region,
          page_size: 100,
          ...(parent === null ? { level: ["1"] } : { parent_id: parent })
        })
        return { success: true as const, data: page.data.filter((c) => c.id !== id) }
      }),

      full: Effect.fn("ShopDetail.full", serviceSpan)(function*<P extends PagePath>(path: P, caller: CallerInfo, body: DetailSelection & { readonly tabs?: ReadonlyArray<string> | undefined }) {
        const profile = yield* pageOf(entityOf(path), caller, body)
        const { tabs: wanted = [], ...selection } = body
        const lists: Readonly<Record<string, DetailList>> = details[path].lists
        const tabs = yield* Effect.forEach(wanted, (tab) => Effect.map(list(path, lists[tab]!, caller, selection), (page) => [tab, page] as const))
        // (`as`: the lists asked for are known at run time; each page is of its list's entity, which `lists[tab]` types as any entity's.)
        return { success: true as const, data: { profile, tabs: Object.fromEntries(tabs) as DetailTabs<P> } }
      }),

      total: Effect.fn("ShopDetail.total", serviceSpan)((path: PagePath, caller: CallerInfo, selection: DetailSelection) =>
        Effect.map(profileOf(details[path].entity, caller, selection), (profile) => ({
          success: true as const,
          data: { ...about(profile.id, daysOf(profile)), metrics: profile.period.metrics }
        }))),

      /** Every day of the period; `salesTrend` adds 7-day averages of units and GMV (of the days within the period). */
      series: Effect.fn("ShopDetail.series", serviceSpan)(function*(entity: ShopEntity, kind: "history" | "salesTrend", caller: CallerInfo, selection: DetailSelection) {
        const { id, period, region } = yield* selected(entity, caller, selection)
        const rows = yield* catalog.series(entity, region, id, period)
        const series = kind === "history" ? rows.map((row) => ({ day: row.day, ...row.values })) : rows.map((row, i) => {
          const week = rows.slice(Math.max(0, i - 6), i + 1)
          const average = (metric: string) => {
            const known = week.map((r) => r.values[metric]).filter((v): v is number => typeof v === "number")
            return known.length === 0 ? null : round(known.reduce((a, b) => a + b, 0) / known.length)
          }
          return { day: row.day, units: row.values.units ?? null, gmv: row.values.gmv ?? null, units_7d_avg: average("units"), gmv_7d_avg: average("gmv") }
        })
        return { success: true as const, data: { ...about(id, period), series } }
      }),

      /** A record's page visits per day over the period. */
      visitEvents: Effect.fn("ShopDetail.visitEvents", serviceSpan)(function*(entity: ShopEntity, caller: CallerInfo, selection: DetailSelection) {
        const { id, period, region } = yield* selected(entity, caller, selection)
        const series = yield* extra.visits(visitTypeOf[entity], specOf(entity).table, region, id, period.from, period.to)
        return {
          success: true as const,
          data: { type: visitTypeOf[entity], ...about(id, period), visits: series.reduce((n, d) => n + d.visits, 0), series }
        }
      }),

      /** A product's visits, and what the accounts that opened it also opened. */
      otherVisits: Effect.fn("ShopDetail.otherVisits", serviceSpan)(function*(caller: CallerInfo, selection: DetailSelection) {
        const { id, period, region } = yield* selected("products", caller, selection)
        const [series, others, visitors] = yield* Effect.all([
          extra.visits("product", "shop_products", region, id, period.from, period.to),
          extra.otherProducts(region, id, period.from, period.to),
          extra.visitors("product", "shop_products", region, id, period.from, period.to)
        ], { concurrency: "unbounded" })
        return {
          success: true as const,
          data: { ...about(id, period), visits: series.reduce((n, d) => n + d.visits, 0), visitors, other_products: others }
        }
      }),

      profile: Effect.fn("ShopDetail.profile", serviceSpan)(<E extends ShopEntity>(entity: E, caller: CallerInfo, selection: DetailSelection) =>
        Effect.map(pageOf(entity, caller, selection), (data) => ({ success: true as const, data }))),

      shopSummary: Effect.fn("ShopDetail.shopSummary", serviceSpan)(function*(caller: CallerInfo, selection: DetailSelection) {
        const profile = yield* pageOf("shops", caller, selection)
        const period = daysOf(profile)
        const totals = yield* extra.shopExtra(profile.region, profile.id, period.from, period.to)
        return { success: true as const, data: { profile, totals: { ...about(profile.id, period), ...totals } } }
      }),

      /** The simple product list: explore's parameters and answer, without a daily search. */
      products: Effect.fn("ShopDetail.products", serviceSpan)((caller: CallerInfo, params: ExploreParams) => listed("products", caller, params, {})),

      salesChannels: Effect.fn("ShopDetail.salesChannels", serviceSpan)(function*(caller: CallerInfo, selection: DetailSelection) {
        const profile = yield* profileOf("products", caller, selection)
        const period = daysOf(profile)
        const { metrics } = profile.period
        const channels = yield* extra.productChannels(profile.region, profile.id, period.from, period.to)
        const of = (ads: boolean) => channels.find((c) => c.is_ad === ads) ?? { videos: 0, creators: 0, views: 0 }
        return {
          success: true as const,
          data: {
            ...about(profile.id, period),
            units: metrics.units ?? 0,
            gmv: metrics.gmv ?? 0,
            channels: ([["ads", true], ["creator_videos", false]] as const).map(([channel, ads]) => {
              const { creators, videos, views } = of(ads)
              return { channel, videos, creators, views }
            })
          }
        }
      }),

      videoMetrics: Effect.fn("ShopDetail.videoMetrics", serviceSpan)((caller: CallerInfo, selection: DetailSelection) =>
        Effect.map(profileOf("videos", caller, selection), (video) => {
          const m = video.period.metrics
          const views = m.views ?? null
          return {
            success: true as const,
            data: {
              ...about(video.id, daysOf(video)),
              metrics: m,
              engagement_rate: views === null || views === 0 ? null : round(((m.likes ?? 0) + (m.comments ?? 0) + (m.shares ?? 0)) / views)
            }
          }
        })),

      /** The products a video shows (at most 100), with their period metrics. */
      videoProducts: Effect.fn("ShopDetail.videoProducts", serviceSpan)((caller: CallerInfo, selection: DetailSelection) =>
        videoList("products", caller, selection, (id) => ({ video_id: id, page_size: 100 }))),

      /** Other videos showing a product the video shows (at most 20). */
      videoSimilar: Effect.fn("ShopDetail.videoSimilar", serviceSpan)((caller: CallerInfo, selection: DetailSelection) =>
        videoList("videos", caller, selection, (id) => ({ similar_to: id, page_size: 20 }))),

      shopExtra: Effect.fn("ShopDetail.shopExtra", serviceSpan)(function*(caller: CallerInfo, selection: DetailSelection) {
        const { id, period, region } = yield* selected("shops", caller, selection)
        const totals = yield* extra.shopExtra(region, id, period.from, period.to)
        return { success: true as const, data: { ...about(id, period), ...totals } }
      }),

      /** Paid (`selfPromotion`) or organic (`affiliate`) videos showing the shop's products. */
      shopStrategy: Effect.fn("ShopDetail.shopStrategy", serviceSpan)(function*(caller: CallerInfo, selection: DetailSelection, ads: boolean) {
        const { id, period, region } = yield* selected("shops", caller, selection)
        const creators = yield* extra.shopStrategy(region, id, period.from, period.to, ads)
        return {
          success: true as const,
          data: {
            ...about(id, period),
            videos: creators.reduce((n, c) => n + c.videos, 0),
            creators: creators.length,
            views: creators.reduce((n, c) => n + c.views, 0),
            top_creators: creators.slice(0, 10).map((c) => ({ id: c.creator, handle: c.handle, videos: c.videos, views: c.views }))
          }
        }
      }),

      /** Views to units for a product; each creator's share estimated from their share of the creators' views. */
      conversion: Effect.fn("ShopDetail.conversion", serviceSpan)(function*(caller: CallerInfo, selection: DetailSelection) {
        const { id, period, region } = yield* selected("products", caller, selection)
        const { creators, totals } = yield* extra.conversion(region, id, period.from, period.to)
        const creatorViews = creators.reduce((n, c) => n + c.views, 0)
        const per1000 = (value: number) => (totals.views === 0 ? null : round((value / totals.views) * 1000))
        return {
          success: true as const,
          data: {
            ...about(id, period),
            ...totals,
            units_per_1000_views: per1000(totals.units),
            gmv_per_1000_views: per1000(totals.gmv),
            creators: creators.map((c) => ({
              id: c.creator,
              handle: c.handle,
              videos: c.videos,
              views: c.views,
              estimated_units: creatorViews === 0 ? null : round((totals.units * c.views) / creatorViews),
              estimated_gmv: creatorViews === 0 ? null : round((totals.gmv * c.views) / creatorViews)
            }))
          }
        }
      })
    }
  }),
  dependencies: [ShopCatalog.Default, DetailRepo.Default, ShopCountry.Default]
}) {}
