import { Effect } from "effect"
import { InvalidRequest, type NotFound } from "../../kernel/Errors.js"
import { boundedWindowOf } from "../../kernel/Paging.js"
import { type ProductSort, StoreCatalog, type StoreFilters, type StoreSort } from "../catalog/StoreCatalog.js"
import { type ExplorerBody, filterParams, maxLanders, newestAds, productSorts, seriesDays, type StoreDetail, type StoreSearchPage, storeSorts } from "./Api.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"
import { isOneOf } from "../../kernel/Guards.js"

export type ExplorerAnswer = typeof StoreSearchPage.Type | typeof StoreDetail.Type

const narrow = "narrow the search with its filters"

/** The filters of a body, and the first one sent that a drill-down does not take. */
export const filtersOf = (body: StoreFilters): StoreFilters => {
  const fields = new Map<string, unknown>(Object.entries(body))
  return Object.fromEntries(Object.keys(filterParams).flatMap((name) => {
    const value = fields.get(name)
    return value === undefined ? [] : [[name, value]]
  }))
}

/** Ranges whose two ends were both sent must not be upside down (G11). */
export const checkRanges = (f: StoreFilters): Effect.Effect<void, InvalidRequest> => {
  const pairs = [
    ["min_products", "max_products"],
    ["min_revenue", "max_revenue"],
    ["min_visits", "max_visits"],
    ["min_ads", "max_ads"],
    ["launched_from", "launched_to"]
  ] as const
  for (const [low, high] of pairs) {
    const [a, b] = [f[low], f[high]]
    if (a !== undefined && b !== undefined && a > b) {
      return Effect.fail(new InvalidRequest({ error: `${low}: must not be above ${high}` }))
    }
  }
  return Effect.void
}

/**
 * The store explorer (issue 20; INTERPRETATIONS L4): a search with the explorer's filters and
 * sorts, or (a body with `id`) one store's drill-down. Input is checked before anything is read.
 */
export class StoreExplorer extends Effect.Service<StoreExplorer>()("adintel/StoreExplorer", {
  effect: Effect.gen(function*() {
    const catalog = yield* StoreCatalog

    const search = (body: ExplorerBody, base: string) =>
      Effect.gen(function*() {
        const sort = body.sort ?? "revenue"
        if (!isOneOf(storeSorts, sort)) {
          return yield* Effect.fail(new InvalidRequest({ error: `sort: must be one of ${storeSorts.join(", ")} (without id)` }))
        }
        const filters = filtersOf(body)
        yield* checkRanges(filters)
        const window = yield* boundedWindowOf(body, narrow)
        return yield* catalog.search(filters, sort satisfies StoreSort, window, base)
      })

    const detail = (id: string, body: ExplorerBody, base: string) =>
      Effect.gen(function*() {
        const [extra] = Object.keys(filtersOf(body))
        if (extra !== undefined) {
          return yield* Effect.fail(new InvalidRequest({ error: `${extra}: not taken with id (a drill-down takes page, page_size and sort)` }))
        }
        const sort = body.sort ?? "sales"
        if (!isOneOf(productSorts, sort)) {
          return yield* Effect.fail(new InvalidRequest({ error: `sort: must be one of ${productSorts.join(", ")} (with id)` }))
        }
        const window = yield* boundedWindowOf(body, "narrow the products with sort")
        const store = yield* catalog.find({ by: "id", value: id }, "Store not found")
        const [view] = yield* catalog.views([store.row], base)
        const { daily, landers, products, raw } = yield* Effect.all({
          products: catalog.products(store.row, sort satisfies ProductSort, window, base),
          daily: catalog.daily(store.row, seriesDays),
          raw: catalog.ads(store.row, newestAds),
          landers: catalog.landers(store.row, maxLanders)
        })
        return {
          store: view!,
          products,
          daily,
          ads: {
            total: raw.totals.reduce((n, t) => n + t.total, 0),
            running: raw.totals.reduce((n, t) => n + t.running, 0),
            by_library: raw.totals,
            newest: raw.recent
          },
          landers
        }
      })

    return {
      explore: Effect.fn("StoreExplorer.explore", serviceSpan)((body: ExplorerBody, base: string): Effect.Effect<ExplorerAnswer, InvalidRequest | NotFound> =>
        body.id === undefined
          ? Effect.map(search(body, base), (page) => ({ success: true as const, ...page }))
          : Effect.map(detail(body.id, body, base), (found) => ({ success: true as const, ...found })))
    }
  }),
  dependencies: [StoreCatalog.Default]
}) {}
