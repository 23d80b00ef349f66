import { Clock, Effect, Layer, Option } from "effect"
import { keysOf } from "../../kernel/Guards.js"
import type { InvalidRequest } from "../../kernel/Errors.js"
import { boundedWindowOf, type Page, pageOf, type PageWindow } from "../../kernel/Paging.js"
import { addDays, dayOf } from "../../kernel/UtcDay.js"
import { CatalogRepo, type CatalogQuery, type CatalogRow } from "./CatalogRepo.js"
import { type ExploreParams, shopEntities, type ShopEntity, type ShopRecordId, specOf } from "./Entities.js"
import { inMemoryCatalog, type CatalogWorld } from "./InMemoryCatalog.js"
import { lengthOf, metricsOf, type Period, selected } from "./Period.js"
import type { RecordOf } from "./Views.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/** The periods summed ahead (days up to yesterday): explore's default, and a week. */
export const rollupWindows: ReadonlyArray<number> = [7, 30]

/** A record as the catalog answers it: `id`, `region`, `period` and its own fields. */
export type View<E extends ShopEntity> =
  & {
    readonly id: ShopRecordId
    readonly region: string
    readonly period: { readonly date_from: string; readonly date_to: string; readonly metrics: Readonly<Record<string, number | null>> }
  }
  & RecordOf<E>

/** What a page of an entity's records is, once its request is checked. */
export interface PageSelection<E extends ShopEntity> extends CatalogQuery<E> {
  readonly window: PageWindow
  readonly sort: string
  readonly descending: boolean
}

type TrendingProduct = View<"products"> & { readonly growth: number; readonly current: number; readonly previous: number }
type FoundProduct = View<"products"> & { readonly relevance: number }

/** P2's bound names what narrows an explore. */
const narrow = "narrow the search with its filters"

/**
 * The short-video shop's catalog read model (issue 18): the records' views with their period
 * metrics and growth, found, sorted and paged; the daily series; the category tree; and the
 * rollups that hold the standard periods ahead. Explore, the detail pages and search read the
 * catalog through it, and only through it. Periods follow `Period.ts`; paging is P2's
 * (`kernel/Paging.ts`), bounded at `page × page_size` = 10,000.
 */
export class ShopCatalog extends Effect.Service<ShopCatalog>()("adintel/ShopCatalog", {
  effect: Effect.gen(function*() {
    const repo = yield* CatalogRepo

    /** A row as its view: the period's metrics, then each one's growth against the period before. */
    const viewOf = <E extends ShopEntity>(entity: E, period: Period) => {
      const names = keysOf(specOf(entity).metrics)
      return (row: CatalogRow<E>): View<E> =>
        Object.assign({
          id: row.id,
          region: row.region,
          period: { date_from: period.from, date_to: period.to, metrics: metricsOf(names, row.current, row.previous) }
        }, row.record)
    }

    /** The rollup window that holds exactly this period, if it is computed up to its last day. */
    const rollupFor = (entity: ShopEntity, period: Period): Effect.Effect<number | undefined> => {
      const days = lengthOf(period)
      if (!rollupWindows.includes(days)) return Effect.succeed(undefined)
      return Effect.map(repo.rollupDay(entity, days), (day) => (Option.contains(day, period.to) ? days : undefined))
    }

    /** The records of `entity` a request selects in `region`: its filters, its period, the rollup holding it. */
    const query = <E extends ShopEntity>(entity: E, region: string, params: ExploreParams): Effect.Effect<CatalogQuery<E>, InvalidRequest> =>
      Effect.gen(function*() {
        const period = yield* selected(params)
        const rollup = yield* rollupFor(entity, period)
        return { entity, region, params, period, ...(rollup === undefined ? {} : { rollup }) }
      })

    /** A checked page request: P2's bound first, then the query; sorted by the entity's default metric unless asked. */
    const pageSelection = <E extends ShopEntity>(entity: E, region: string, params: ExploreParams): Effect.Effect<PageSelection<E>, InvalidRequest> =>
      Effect.gen(function*() {
        const window = yield* boundedWindowOf(params, narrow)
        const selection = yield* query(entity, region, params)
        return { ...selection, window, sort: params.sort ?? specOf(entity).defaultSort, descending: params.order !== "asc" }
      })

    /** The page a selection is. */
    const page = <E extends ShopEntity>(selection: PageSelection<E>): Effect.Effect<Page<View<E>>> =>
      Effect.map(
        repo.page({ ...selection, limit: selection.window.limit, offset: selection.window.offset }),
        ({ rows, total }) => pageOf(selection.window, rows.map(viewOf(selection.entity, selection.period)), total)
      )

    /** Computes every rollup that does not hold the days up to yesterday; how many it computed. */
    const refreshStale = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const dayTo = addDays(dayOf(now), -1)
      let refreshed = 0
      for (const entity of shopEntities) {
        for (const days of rollupWindows) {
          if (Option.contains(yield* repo.rollupDay(entity, days), dayTo)) continue
          yield* repo.refreshRollup(entity, days, dayTo, new Date(now))
          refreshed++
        }
      }
      return refreshed
    })

    return {
      query: Effect.fn("ShopCatalog.query", serviceSpan)(query),
      pageSelection: Effect.fn("ShopCatalog.pageSelection", serviceSpan)(pageSelection),
      page: Effect.fn("ShopCatalog.page", serviceSpan)(page),
      count: Effect.fn("ShopCatalog.count", serviceSpan)((selection: CatalogQuery): Effect.Effect<number> => repo.count(selection)),
      rollupFor: Effect.fn("ShopCatalog.rollupFor", serviceSpan)(rollupFor),
      refreshStale,

      /** One record's view over a period; none when the region holds no such record. */
      profile: Effect.fn("ShopCatalog.profile", serviceSpan)(<E extends ShopEntity>(entity: E, region: string, id: ShopRecordId, period: Period): Effect.Effect<Option.Option<View<E>>> =>
        Effect.map(
          repo.page({ entity, region, params: {}, period, only: id, sort: specOf(entity).defaultSort, descending: true, limit: 1, offset: 0 }),
          ({ rows }) => Option.map(Option.fromNullable(rows[0]), viewOf(entity, period))
        )),

      exists: Effect.fn("ShopCatalog.exists", serviceSpan)((entity: ShopEntity, region: string, id: ShopRecordId): Effect.Effect<boolean> => repo.exists(entity, region, id)),

      /** A record's daily series over the period: every day, each metric column of its daily table. */
      series: Effect.fn("ShopCatalog.series", serviceSpan)((entity: ShopEntity, region: string, id: ShopRecordId, period: Period) => repo.series(entity, region, id, period.from, period.to)),

      categories: Effect.fn("ShopCatalog.categories", serviceSpan)(repo.categories),
      categoryCounts: Effect.fn("ShopCatalog.categoryCounts", serviceSpan)(repo.categoryCounts),

      /**
       * Products by growth of `metric` over `window` against the days before it; only products
       * with some of it in both (previous > 0 and current > 0).
       */
      trending: Effect.fn("ShopCatalog.trending", serviceSpan)(function*(
        options: { readonly region: string; readonly metric: "gmv" | "units" | "views"; readonly window: Period; readonly categoryId: ShopRecordId | undefined },
        paging: PageWindow
      ): Effect.fn.Return<Page<TrendingProduct>> {
        const rollup = yield* rollupFor("products", options.window)
        const { rows, total } = yield* repo.trending({
          ...options,
          limit: paging.limit,
          offset: paging.offset,
          ...(rollup === undefined ? {} : { rollup })
        })
        const view = viewOf("products", options.window)
        return pageOf(paging, rows.map((t) => ({ ...view(t.row), growth: Math.round(t.growth * 10_000) / 10_000, current: t.current, previous: t.previous })), total)
      }),

      /** Products whose title matches `q`, best first, with their metrics over `period`. */
      titleSearch: Effect.fn("ShopCatalog.titleSearch", serviceSpan)((options: { readonly region: string; readonly q: string; readonly period: Period }, paging: PageWindow): Effect.Effect<Page<FoundProduct>> =>
        Effect.map(repo.titleSearch({ ...options, limit: paging.limit, offset: paging.offset }), ({ rows, total }) => {
          const view = viewOf("products", options.period)
          return pageOf(paging, rows.map((m) => ({ ...view(m.row), relevance: m.relevance })), total)
        }))
    }
  }),
  dependencies: [CatalogRepo.Default]
}) {
  /** The same rules over a world held in memory: no PostgreSQL, deterministic (see `InMemoryCatalog.ts`). */
  static readonly layerTest = (world: CatalogWorld) =>
    ShopCatalog.DefaultWithoutDependencies.pipe(Layer.provide(Layer.succeed(CatalogRepo, inMemoryCatalog(world))))
}
