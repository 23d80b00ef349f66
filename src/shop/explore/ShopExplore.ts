import { Effect } from "effect"
import type { CallerInfo } from "../../access/gateway/Api.js"
import type { ExploreParams, ShopEntity } from "../catalog/Entities.js"
import { ShopCatalog } from "../catalog/ShopCatalog.js"
import { SearchQuota } from "../account/SearchQuota.js"
import { ShopCountry } from "../account/ShopCountry.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/** P3: the query string's parameters, then the body's over them. */
const merged = (query: ExploreParams, body: ExploreParams | undefined): ExploreParams => ({ ...query, ...body })

/**
 * Explore and count of the short-video shop's entities (issue 5): one engine for all five, over
 * the catalog read model. A request's query string and body are merged, the body winning (P3);
 * bad input is refused before the daily search is taken (G7), so it never costs one.
 */
export class ShopExplore extends Effect.Service<ShopExplore>()("adintel/ShopExplore", {
  effect: Effect.gen(function*() {
    const catalog = yield* ShopCatalog
    const quota = yield* SearchQuota
    const countries = yield* ShopCountry

    return {
      explore: Effect.fn("ShopExplore.explore", serviceSpan)(function*<E extends ShopEntity>(entity: E, caller: CallerInfo, query: ExploreParams, body?: ExploreParams) {
        const params = merged(query, body)
        const region = yield* countries.resolve(caller.accountId, params.country)
        const selection = yield* catalog.pageSelection(entity, region, params)
        yield* quota.consume(caller)
        return { success: true as const, ...(yield* catalog.page(selection)) }
      }),

      count: Effect.fn("ShopExplore.count", serviceSpan)(function*(entity: ShopEntity, caller: CallerInfo, query: ExploreParams, body?: ExploreParams) {
        const params = merged(query, body)
        const region = yield* countries.resolve(caller.accountId, params.country)
        const selection = yield* catalog.query(entity, region, params)
        yield* quota.consume(caller)
        return { success: true as const, total: yield* catalog.count(selection) }
      })
    }
  }),
  dependencies: [ShopCatalog.Default, SearchQuota.Default, ShopCountry.Default]
}) {}
