import { Clock, type Duration, Effect, Schedule } from "effect"
import { ShopSearchRepo } from "../shopSearch/ShopSearchRepo.js"
import { defaultPeriodDays, shopEntities } from "./Entities.js"
import { ExploreRepo } from "./ExploreRepo.js"

/** The periods summed ahead (days up to yesterday): explore's default, and a week. */
export const rollupWindows = [7, 30] as const

const DAY = 86_400_000
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/**
 * Keeps what the short-video shop sums ahead in step with the catalog: the explore rollups
 * (the standard windows' period metrics) and the suggestions' strings (src/shopSearch/).
 * Computed after the demo load and whenever they no longer hold (a new day, an import), by a
 * fiber that looks every few minutes. Until then explore sums the series and suggestions read
 * the catalog themselves, so answers never depend on these being there.
 */
export class ShopRollups extends Effect.Service<ShopRollups>()("adintel/ShopRollups", {
  effect: Effect.gen(function*() {
    const repo = yield* ExploreRepo
    const search = yield* ShopSearchRepo

    /** Computes every window that does not hold the days up to yesterday; how many it computed. */
    const refreshStale = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const dayTo = dayOf(now - DAY)
      let refreshed = 0
      for (const entity of shopEntities) {
        for (const days of rollupWindows) {
          if ((yield* repo.rollupDay(entity, days)) === dayTo) continue
          yield* repo.refreshRollup(entity, days, dayTo, new Date(now))
          refreshed++
        }
      }
      if ((yield* search.suggestionsDay) !== dayTo) {
        yield* search.refreshSuggestions(dayOf(now - defaultPeriodDays * DAY), dayTo, new Date(now))
        refreshed++
      }
      return refreshed
    })

    return {
      refreshStale,
      /** For as long as the server runs: a look every `every`. */
      keepFresh: (every: Duration.Duration) =>
        refreshStale.pipe(
          Effect.tap((n) => (n > 0 ? Effect.logInfo(`Short-video shop rollups and suggestions computed: ${n}`) : Effect.void)),
          Effect.catchAllCause((cause) =>
            Effect.logWarning("Short-video shop rollups or suggestions not computed; explore and suggestions read the catalog", cause)
          ),
          Effect.repeat(Schedule.spaced(every))
        )
    }
  }),
  dependencies: [ExploreRepo.Default, ShopSearchRepo.Default]
}) {}
