import { Clock, Effect, Option } from "effect"
import { InvalidRequest, NotFound } from "../../kernel/Errors.js"
import { boundedWindowOf, type Page, pageOf, windowOf } from "../../kernel/Paging.js"
import { type ExploreBody, type FavoriteLander, type FavoritesQuery, type Lander, maxLanderFavorites, type ToggleBody } from "./Api.js"
import { LandersRepo } from "./LandersRepo.js"
import type { AccountId } from "../../kernel/Ids.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

const notFound = new NotFound({ error: "Lander not found" })
const full = new InvalidRequest({ error: `Lander favorites are limited to ${maxLanderFavorites} per account` })

/** Ranges sent backwards name their lower end (G11). */
const backwards = (body: ExploreBody): string | undefined => {
  const pairs = [
    ["first_seen_from", body.first_seen_from, body.first_seen_to, "first_seen_to"],
    ["last_seen_from", body.last_seen_from, body.last_seen_to, "last_seen_to"],
    ["min_ads", body.min_ads, body.max_ads, "max_ads"],
    ["min_price", body.min_price, body.max_price, "max_price"]
  ] as const
  for (const [name, low, high, other] of pairs) {
    if (low !== undefined && high !== undefined && low > high) return `${name}: must not be greater than ${other}`
  }
  return undefined
}

/**
 * The lander library (issue 20, INTERPRETATIONS L1): explore with full text, filters and
 * sorts, and the account's favorite landers. Bad input is refused before any query runs.
 */
export class Landers extends Effect.Service<Landers>()("adintel/Landers", {
  effect: Effect.gen(function*() {
    const repo = yield* LandersRepo

    return {
      explore: Effect.fn("Landers.explore", serviceSpan)(function*(body: ExploreBody): Effect.fn.Return<Page<Lander>, InvalidRequest> {
        const sort = body.sort ?? (body.q === undefined ? "newest" : "relevance")
        if (sort === "relevance" && body.q === undefined) return yield* Effect.fail(new InvalidRequest({ error: "sort: relevance needs q" }))
        const wrong = backwards(body)
        if (wrong !== undefined) return yield* Effect.fail(new InvalidRequest({ error: wrong }))
        const window = yield* boundedWindowOf(body, "narrow the search with its filters")
        const { landers, total } = yield* repo.explore(body, sort, window)
        return pageOf(window, landers, total)
      }),

      favorites: Effect.fn("Landers.favorites", serviceSpan)((account: AccountId, query: FavoritesQuery): Effect.Effect<Page<FavoriteLander>> => {
        const window = windowOf(query)
        return Effect.map(repo.favorites(account, window), ({ landers, total }) => pageOf(window, landers, total))
      }),

      /** The state after the toggle; an unknown lander is a 404, one over the cap a 400. */
      toggle: Effect.fn("Landers.toggle", serviceSpan)(function*(account: AccountId, { id }: ToggleBody): Effect.fn.Return<boolean, NotFound | InvalidRequest> {
        const lander = yield* Effect.flatMap(repo.find(id), Option.match({ onNone: () => Effect.fail(notFound), onSome: Effect.succeed }))
        const now = new Date(yield* Clock.currentTimeMillis)
        const outcome = yield* repo.toggle(account, lander, now, maxLanderFavorites)
        if (outcome === "full") return yield* Effect.fail(full)
        return outcome === "added"
      })
    }
  }),
  dependencies: [LandersRepo.Default]
}) {}
