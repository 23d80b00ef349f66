import { Clock, Effect } from "effect"
import { NotFound } from "../Errors.js"
import type { CallerInfo } from "../gateway/Api.js"
import { ShopCountry } from "../shop/ShopCountry.js"
import { entities, type ExploreParams, type ShopEntity } from "../shopExplore/Entities.js"
import { ExploreRepo } from "../shopExplore/ExploreRepo.js"
import { ShopExplore } from "../shopExplore/ShopExplore.js"
import { type CategoryNode, type DetailPath, details, type DetailSelection, type DetailSpec } from "./Api.js"
import { DetailRepo, type VisitType } from "./DetailRepo.js"

const round = (n: number) => Math.round(n * 10_000) / 10_000

const visitTypeOf: Record<ShopEntity, VisitType> = {
  products: "product",
  shops: "shop",
  creators: "creator",
  videos: "video",
  categories: "category"
}

/**
 * The detail pages (issue 5): a record's profile and period totals, its daily series, and its
 * lists, which are explore searches of another entity tied to it. Details take no daily
 * search (G7 names explore and count only); an unknown record is a 404 naming its type.
 */
export class ShopDetail extends Effect.Service<ShopDetail>()("adintel/ShopDetail", {
  effect: Effect.gen(function*() {
    const explore = yield* ShopExplore
    const repo = yield* ExploreRepo
    const extra = yield* DetailRepo
    const countries = yield* ShopCountry

    /** The record a request selects, its region and period; a 404 when it does not exist. */
    const notFound = (entity: ShopEntity) => new NotFound({ error: `${entities[entity].one} not found` })

    /** The region and period a request selects; `checked`: a 404 first when the record does not exist. */
    const selected = (entity: ShopEntity, caller: CallerInfo, selection: DetailSelection, checked = true) =>
      Effect.gen(function*() {
        const period = yield* explore.periodOf(selection)
        const region = yield* countries.resolve(caller.accountId, selection.country)
        if (checked && !(yield* repo.exists(entity, region, selection.id))) return yield* Effect.fail(notFound(entity))
        return { period, region, id: selection.id }
      })

    /** Counts an opening of a record's page (issue 5: the visit routes answer these counts). */
    const visited = (entity: ShopEntity, caller: CallerInfo, region: string, id: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        extra.visit(visitTypeOf[entity], entities[entity].table, region, id, caller.accountId, new Date(now).toISOString().slice(0, 10)))

    /** A page's profile: the record's explore row; opening it counts a visit. */
    const pageOf = (entity: ShopEntity, caller: CallerInfo, selection: DetailSelection) =>
      Effect.tap(profileOf(entity, caller, selection), (profile) => visited(entity, caller, profile.region, profile.id))

    const profileOf = (entity: ShopEntity, caller: CallerInfo, selection: DetailSelection) =>
      Effect.gen(function*() {
        // The row itself tells whether the record exists: no separate check.
        const { id, period, region } = yield* selected(entity, caller, selection, false)
        const { rows } = yield* repo.page({
          entity,
          region,
          params: {},
          period,
          only: id,
          sort: entities[entity].defaultSort,
          descending: true,
          limit: 1,
          offset: 0
        })
        const [row] = rows
        return row === undefined ? yield* Effect.fail(notFound(entity)) : row
      })

    const list = (path: DetailPath, sub: string, caller: CallerInfo, body: DetailSelection & ExploreParams) =>
      Effect.gen(function*() {
        const spec: DetailSpec = details[path]
        const { id, period, region } = yield* selected(spec.entity, caller, body)
        const tab = spec.lists[sub]!
        const { id: _id, ...params } = body
        return yield* explore.page(tab.entity, caller, params, {
          quota: false,
          fixed: {
            [tab.link]: id,
            country: region,
            ...(tab.newInPeriod ? { launched_from: period.from, launched_to: period.to } : {})
          }
        })
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
      hierarchy: (caller: CallerInfo, country: string | undefined) =>
        Effect.gen(function*() {
          const region = yield* countries.resolve(caller.accountId, country)
          return { success: true as const, data: tree(yield* extra.categories(region)) }
        }),

      layers: (caller: CallerInfo, country: string | undefined) =>
        Effect.gen(function*() {
          const rows = yield* extra.categories(yield* countries.resolve(caller.accountId, country))
          const levels = [...new Set(rows.map((r) => r.level))].sort()
          return { success: true as const, data: levels.map((level) => ({ level, categories: rows.filter((r) => r.level === level) })) }
        }),

      categorySummary: (caller: CallerInfo, selection: DetailSelection) =>
        Effect.gen(function*() {
          const profile = yield* pageOf("categories", caller, selection)
          const counts = yield* extra.categoryCounts(profile.region, selection.id)
          return { success: true as const, data: { profile, counts } }
        }),

      /** The categories under the same parent (or the other top ones), by period GMV. */
      siblings: (caller: CallerInfo, selection: DetailSelection) =>
        Effect.gen(function*() {
          const { id, region } = yield* selected("categories", caller, selection)
          const all = yield* extra.categories(region)
          const parent = all.find((c) => c.id === id)?.parent_id ?? null
          const page = yield* explore.page("categories", caller, { date_from: selection.date_from, date_to: selection.date_to }, {
            quota: false,
            fixed: { country: region, page_size: 100, ...(parent === null ? { level: ["1"] } : { parent_id: parent }) }
          })
          return { success: true as const, data: page.data.filter((c) => c.id !== id) }
        }),

      full: (path: DetailPath, caller: CallerInfo, body: DetailSelection & { readonly tabs?: ReadonlyArray<string> }) =>
        Effect.gen(function*() {
          const profile = yield* pageOf(details[path].entity, caller, body)
          const { tabs: wanted = [], ...selection } = body
          const tabs = yield* Effect.forEach(wanted, (tab) => Effect.map(list(path, tab, caller, selection), (page) => [tab, page] as const))
          return { success: true as const, data: { profile, tabs: Object.fromEntries(tabs) } }
        }),

      total: (path: DetailPath, caller: CallerInfo, selection: DetailSelection) =>
        Effect.map(profileOf(details[path].entity, caller, selection), (profile) => ({
          success: true as const,
          data: { id: profile.id, date_from: profile.period.date_from, date_to: profile.period.date_to, metrics: profile.period.metrics }
        })),

      /** Every day of the period; `salesTrend` adds 7-day averages of units and GMV (of the days within the period). */
      series: (entity: ShopEntity, kind: "history" | "salesTrend", caller: CallerInfo, selection: DetailSelection) =>
        Effect.gen(function*() {
          const { id, period, region } = yield* selected(entity, caller, selection)
          const rows = yield* repo.series(entity, region, id, period.from, period.to)
          const series = kind === "history" ? rows : rows.map((row, i) => {
            const week = rows.slice(Math.max(0, i - 6), i + 1)
            const average = (metric: string) => {
              const known = week.filter((r) => r[metric] !== null).map((r) => r[metric] as number)
              return known.length === 0 ? null : round(known.reduce((a, b) => a + b, 0) / known.length)
            }
            return { day: row.day, units: row.units, gmv: row.gmv, units_7d_avg: average("units"), gmv_7d_avg: average("gmv") }
          })
          return { success: true as const, data: { id, date_from: period.from, date_to: period.to, series } }
        }),

      list,

      /** A record's page visits per day over the period. */
      visitEvents: (entity: ShopEntity, caller: CallerInfo, selection: DetailSelection) =>
        Effect.gen(function*() {
          const { id, period, region } = yield* selected(entity, caller, selection)
          const series = yield* extra.visits(visitTypeOf[entity], entities[entity].table, region, id, period.from, period.to)
          return {
            success: true as const,
            data: {
              type: visitTypeOf[entity],
              id,
              date_from: period.from,
              date_to: period.to,
              visits: series.reduce((n, d) => n + d.visits, 0),
              series
            }
          }
        }),

      /** A product's visits, and what the accounts that opened it also opened. */
      otherVisits: (caller: CallerInfo, selection: DetailSelection) =>
        Effect.gen(function*() {
          const { id, period, region } = yield* selected("products", caller, selection)
          const [series, others, visitors] = yield* Effect.all([
            extra.visits("product", "shop_products", region, id, period.from, period.to),
            extra.otherProducts(region, id, period.from, period.to),
            extra.visitors("product", "shop_products", region, id, period.from, period.to)
          ], { concurrency: "unbounded" })
          return {
            success: true as const,
            data: {
              id,
              date_from: period.from,
              date_to: period.to,
              visits: series.reduce((n, d) => n + d.visits, 0),
              visitors,
              other_products: others
            }
          }
        }),

      profile: (entity: ShopEntity, caller: CallerInfo, selection: DetailSelection) =>
        Effect.map(pageOf(entity, caller, selection), (data) => ({ success: true as const, data })),

      shopSummary: (caller: CallerInfo, selection: DetailSelection) =>
        Effect.gen(function*() {
          const profile = yield* pageOf("shops", caller, selection)
          const { date_from: from, date_to: to } = profile.period
          const totals = yield* extra.shopExtra(profile.region, profile.id, from, to)
          return { success: true as const, data: { profile, totals: { id: profile.id, date_from: from, date_to: to, ...totals } } }
        }),

      /** The simple product list: explore's parameters and answer, without a daily search. */
      products: (caller: CallerInfo, params: ExploreParams) => explore.page("products", caller, params, { quota: false }),

      salesChannels: (caller: CallerInfo, selection: DetailSelection) =>
        Effect.gen(function*() {
          const profile = yield* profileOf("products", caller, selection)
          const { date_from: from, date_to: to, metrics } = profile.period
          const channels = yield* extra.productChannels(profile.region, profile.id, from, to)
          const of = (ads: boolean) => channels.find((c) => c.is_ad === ads) ?? { videos: 0, creators: 0, views: 0 }
          return {
            success: true as const,
            data: {
              id: profile.id,
              date_from: from,
              date_to: to,
              units: metrics.units ?? 0,
              gmv: metrics.gmv ?? 0,
              channels: ([["ads", true], ["creator_videos", false]] as const).map(([channel, ads]) => {
                const { creators, videos, views } = of(ads)
                return { channel, videos, creators, views }
              })
            }
          }
        }),

      videoMetrics: (caller: CallerInfo, selection: DetailSelection) =>
        Effect.map(profileOf("videos", caller, selection), (video) => {
          const m = video.period.metrics
          const views = m.views ?? null
          return {
            success: true as const,
            data: {
              id: video.id,
              date_from: video.period.date_from,
              date_to: video.period.date_to,
              metrics: m,
              engagement_rate: views === null || views === 0 ? null : round(((m.likes ?? 0) + (m.comments ?? 0) + (m.shares ?? 0)) / views)
            }
          }
        }),

      /** Products a video shows, or videos showing its products: explore lists tied to the video. */
      videoList: (caller: CallerInfo, selection: DetailSelection, what: "products" | "similar") =>
        Effect.gen(function*() {
          const { id, region } = yield* selected("videos", caller, selection)
          const { id: _id, ...period } = selection
          const page = what === "products"
            ? yield* explore.page("products", caller, period, { quota: false, fixed: { video_id: id, country: region, page_size: 100 } })
            : yield* explore.page("videos", caller, period, { quota: false, fixed: { similar_to: id, country: region, page_size: 20 } })
          return { success: true as const, data: page.data }
        }),

      shopExtra: (caller: CallerInfo, selection: DetailSelection) =>
        Effect.gen(function*() {
          const { id, period, region } = yield* selected("shops", caller, selection)
          const totals = yield* extra.shopExtra(region, id, period.from, period.to)
          return { success: true as const, data: { id, date_from: period.from, date_to: period.to, ...totals } }
        }),

      /** Paid (`selfPromotion`) or organic (`affiliate`) videos showing the shop's products. */
      shopStrategy: (caller: CallerInfo, selection: DetailSelection, ads: boolean) =>
        Effect.gen(function*() {
          const { id, period, region } = yield* selected("shops", caller, selection)
          const creators = yield* extra.shopStrategy(region, id, period.from, period.to, ads)
          return {
            success: true as const,
            data: {
              id,
              date_from: period.from,
              date_to: period.to,
              videos: creators.reduce((n, c) => n + c.videos, 0),
              creators: creators.length,
              views: creators.reduce((n, c) => n + c.views, 0),
              top_creators: creators.slice(0, 10).map((c) => ({ id: c.creator, handle: c.handle, videos: c.videos, views: c.views }))
            }
          }
        }),

      /** Views to units for a product; each creator's share estimated from their share of the creators' views. */
      conversion: (caller: CallerInfo, selection: DetailSelection) =>
        Effect.gen(function*() {
          const { id, period, region } = yield* selected("products", caller, selection)
          const { creators, totals } = yield* extra.conversion(region, id, period.from, period.to)
          const creatorViews = creators.reduce((n, c) => n + c.views, 0)
          const per1000 = (value: number) => (totals.views === 0 ? null : round((value / totals.views) * 1000))
          return {
            success: true as const,
            data: {
              id,
              date_from: period.from,
              date_to: period.to,
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
  dependencies: [DetailRepo.Default, ExploreRepo.Default]
}) {}
