import { Clock, Effect } from "effect"
import { InvalidRequest } from "../Errors.js"
import type { CallerInfo } from "../gateway/Api.js"
import { SearchQuota } from "../shop/SearchQuota.js"
import { ShopCountry } from "../shop/ShopCountry.js"
import {
  defaultPageSize,
  defaultPeriodDays,
  entities,
  type ExploreParams,
  maxPageWindow,
  maxPeriodDays,
  type ShopEntity
} from "./Entities.js"
import { type ExplorePlan, ExploreRepo, type Period } from "./ExploreRepo.js"
import { rollupWindows } from "./ShopRollups.js"

const DAY = 86_400_000
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const msOf = (day: string) => Date.parse(`${day}T00:00:00Z`)

/**
 * Explore and count of the short-video shop's entities (issue 5): one engine for all five.
 * A request's query string and body are merged, the body winning (P3); bad input is refused
 * before the daily search is taken (G7), so it never costs one.
 */
export class ShopExplore extends Effect.Service<ShopExplore>()("adintel/ShopExplore", {
  effect: Effect.gen(function*() {
    const repo = yield* ExploreRepo
    const quota = yield* SearchQuota
    const countries = yield* ShopCountry

    /** The period of the metrics: `date_from`..`date_to`, by default the 30 days up to yesterday. */
    const periodOf = (params: { readonly date_from?: string; readonly date_to?: string }): Effect.Effect<Period, InvalidRequest> =>
      Effect.gen(function*() {
        const today = msOf(dayOf(yield* Clock.currentTimeMillis))
        const to = params.date_to === undefined ? today - DAY : msOf(params.date_to)
        const from = params.date_from === undefined ? to - (defaultPeriodDays - 1) * DAY : msOf(params.date_from)
        if (from > to) return yield* Effect.fail(new InvalidRequest({ error: "date_from: must not be after date_to" }))
        const days = (to - from) / DAY + 1
        if (days > maxPeriodDays) {
          return yield* Effect.fail(new InvalidRequest({ error: `date_from: the period is at most ${maxPeriodDays} days` }))
        }
        return { from: dayOf(from), to: dayOf(to), previousFrom: dayOf(from - days * DAY), previousTo: dayOf(from - DAY) }
      })

    /** The rollup window that holds exactly this period, if it is computed up to its last day. */
    const rollupFor = (entity: ShopEntity, period: Period) =>
      Effect.gen(function*() {
        const days = Math.round((msOf(period.to) - msOf(period.from)) / DAY) + 1
        if (!(rollupWindows as ReadonlyArray<number>).includes(days)) return undefined
        return (yield* repo.rollupDay(entity, days)) === period.to ? days : undefined
      })

    const planOf = (entity: ShopEntity, caller: CallerInfo, params: ExploreParams): Effect.Effect<ExplorePlan, InvalidRequest> =>
      Effect.gen(function*() {
        const period = yield* periodOf(params)
        const region = yield* countries.resolve(caller.accountId, params.country)
        const rollup = yield* rollupFor(entity, period)
        return { entity, region, params, period, ...(rollup === undefined ? {} : { rollup }) }
      })

    /** P3: the query string's parameters, then the body's over them. */
    const merged = (query: ExploreParams, body: ExploreParams | undefined): ExploreParams => ({ ...query, ...body })

    /**
     * One P2 page of an entity. `quota`: whether it is an explore search (G7) or a detail page's
     * list, which takes none; `fixed`: parameters the route sets over the caller's.
     */
    const page = (
      entity: ShopEntity,
      caller: CallerInfo,
      given: ExploreParams,
      options: { readonly quota: boolean; readonly fixed?: ExploreParams }
    ) =>
        Effect.gen(function*() {
          const params = { ...given, ...options.fixed }
          const page = params.page ?? 1
          const pageSize = params.page_size ?? defaultPageSize
          if (page * pageSize > maxPageWindow) {
            return yield* Effect.fail(new InvalidRequest({
              error: `page: at most ${Math.floor(maxPageWindow / pageSize)} for page_size ${pageSize}; narrow the search with its filters`
            }))
          }
          const plan = yield* planOf(entity, caller, params)
          if (options.quota) yield* quota.consume(caller)
          const { rows, total } = yield* repo.page({
            ...plan,
            sort: params.sort ?? entities[entity].defaultSort,
            descending: params.order !== "asc",
            limit: pageSize,
            offset: (page - 1) * pageSize
          })
          return { success: true as const, data: rows, total, page, page_size: pageSize }
        })

    return {
      page,
      periodOf,
      planOf,

      explore: (entity: ShopEntity, caller: CallerInfo, query: ExploreParams, body?: ExploreParams) =>
        page(entity, caller, merged(query, body), { quota: true }),

      count: (entity: ShopEntity, caller: CallerInfo, query: ExploreParams, body?: ExploreParams) =>
        Effect.gen(function*() {
          const plan = yield* planOf(entity, caller, merged(query, body))
          yield* quota.consume(caller)
          return { success: true as const, total: yield* repo.count(plan) }
        })
    }
  }),
  dependencies: [ExploreRepo.Default, ShopCountry.Default]
}) {}
