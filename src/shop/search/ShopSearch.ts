import { Context, Effect, Option } from "effect"
import { boundedWindowOf } from "../../kernel/Paging.js"
import { defaultPeriodDays } from "../catalog/Entities.js"
import { lastDays } from "../catalog/Period.js"
import { ShopCatalog } from "../catalog/ShopCatalog.js"
import { ShopCountry } from "../account/ShopCountry.js"
import {
  defaultSuggestions,
  defaultTrendingDays,
  maxSuggestions,
  type SearchParams,
  type Suggestion,
  type SuggestionsParams,
  type SuggestionType,
  suggestionTypes,
  type TrendingParams
} from "./Api.js"
import { type ByType, type PrefixPatterns, type Reach, ShopSearchRepo } from "./ShopSearchRepo.js"
import type { AccountId } from "../../kernel/Ids.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/** P2's page, the same bound as explore's: offsets cost what they skip. */
const pagingOf = (params: { readonly page?: number | undefined; readonly page_size?: number | undefined }) =>
  boundedWindowOf(params, "narrow the search with its filters")

/** A space or ASCII punctuation: what a word starts after (a bracket expression of PostgreSQL's regular expressions). */
const separators = "[ !\"#$%&'()*+,./:;<=>?@\\[\\\\\\]^_`{|}~-]"

/**
 * What a prefix matches, its characters taken as typed. A prefix that itself starts with
 * punctuation ("@its", "(bl") marks its own word start, so it may come anywhere in a later
 * word; one with no letter or digit at all matches only at the start (a later "(" or "&" is
 * no word to complete, and no trigram index could find it).
 */
export const patternsOf = (prefix: string): PrefixPatterns => {
  const start = `${prefix.replace(/[\\%_]/g, "\\$&")}%`
  if (!/[\p{L}\p{N}]/u.test(prefix)) return { start, later: null }
  const escaped = prefix.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&")
  return { start, later: /^[\p{L}\p{N}]/u.test(prefix) ? `${separators}${escaped}` : `.${escaped}` }
}

/**
 * The strings of the two classes (starting with the prefix first), merged: within a class the
 * types take turns in `suggestionTypes` order, each giving its next most popular string.
 */
const interleave = (types: ReadonlyArray<SuggestionType>, classes: ReadonlyArray<ByType>, limit: number) => {
  const merged: Array<Suggestion> = []
  for (const byType of classes) {
    for (let rank = 0; rank < limit; rank++) {
      for (const type of types) {
        const suggestion = byType.get(type)?.[rank]
        if (suggestion !== undefined) merged.push(suggestion)
      }
    }
  }
  return merged.slice(0, limit)
}

/**
 * How far suggestions first read each type's rows in popularity order: a common prefix's
 * strings are all found there, and only a rarer prefix's need an index of all the type's rows
 * (see `suggestions`). A test lowers it to take the second way through a small world.
 */
export class SuggestionReach extends Context.Reference<SuggestionReach>()("adintel/ShopSearch/SuggestionReach", {
  defaultValue: (): Reach => ({ depth: 2_000, take: 5 * maxSuggestions })
}) {}

/**
 * Trending products, product search and autocomplete of the short-video shop (issue 5). Each
 * costs its 1 credit at the gateway and takes no daily search (G7 names explore and count
 * only); bad input is refused before any query runs.
 */
export class ShopSearch extends Effect.Service<ShopSearch>()("adintel/ShopSearch", {
  effect: Effect.gen(function*() {
    const repo = yield* ShopSearchRepo
    const catalog = yield* ShopCatalog
    const countries = yield* ShopCountry

    return {
      /**
       * Products by growth of `metric` over the last `days` days against the days before them;
       * only products with some of it in both windows (previous > 0 and current > 0).
       */
      trending: Effect.fn("ShopSearch.trending", serviceSpan)(function*(accountId: AccountId, params: TrendingParams) {
        const paging = yield* pagingOf(params)
        const region = yield* countries.resolve(accountId, params.country)
        const window = yield* lastDays(params.days ?? defaultTrendingDays)
        const page = yield* catalog.trending({ region, metric: params.metric ?? "gmv", window, categoryId: params.category_id }, paging)
        return { success: true as const, ...page }
      }),

      /** Products whose title matches `q`, best first; metrics over the 30 days up to yesterday. */
      search: Effect.fn("ShopSearch.search", serviceSpan)(function*(accountId: AccountId, params: SearchParams) {
        const paging = yield* pagingOf(params)
        const region = yield* countries.resolve(accountId, params.country)
        const period = yield* lastDays(defaultPeriodDays)
        return { success: true as const, ...(yield* catalog.titleSearch({ region, q: params.q, period }, paging)) }
      }),

      /**
       * Autocomplete strings for `prefix` (see `interleave`): those starting with it, then,
       * only when these are fewer than `limit`, those with a later word starting with it (a
       * statement each). Read from the strings summed ahead when they hold the 30 days up to
       * yesterday, else from the catalog itself: the same strings, found through its indexes.
       */
      suggestions: Effect.fn("ShopSearch.suggestions", serviceSpan)(function*(accountId: AccountId, params: SuggestionsParams) {
        const limit = params.limit ?? defaultSuggestions
        const window = yield* lastDays(defaultPeriodDays)
        const patterns = patternsOf(params.prefix)
        const types = suggestionTypes.filter((type) => params.types === undefined || params.types.includes(type))
        // Asked on every keystroke: the two lookups at once.
        const [region, summedTo] = yield* Effect.all([countries.resolve(accountId, params.country), repo.suggestionsDay], { concurrency: 2 })
        const classOf = Option.contains(summedTo, window.to)
          ? (starts: boolean) => repo.summedAhead(types, region, patterns, starts, limit)
          : yield* Effect.gen(function*() {
            // Categories' popularity is their 30-day GMV, summed ahead when the rollup holds.
            const rollup = yield* catalog.rollupFor("categories", window)
            const period = { from: window.from, to: window.to, ...(rollup === undefined ? {} : { rollup }) }
            const reach = yield* SuggestionReach
            return (starts: boolean) => repo.suggestions(types, region, period, patterns, starts, limit, reach)
          })
        const starting = yield* classOf(true)
        const enough = [...starting.values()].reduce((n, strings) => n + strings.length, 0) >= limit
        const later = enough || patterns.later === null ? [] : [yield* classOf(false)]
        return { success: true as const, data: interleave(types, [starting, ...later], limit) }
      })
    }
  }),
  dependencies: [ShopSearchRepo.Default, ShopCatalog.Default, ShopCountry.Default]
}) {}
