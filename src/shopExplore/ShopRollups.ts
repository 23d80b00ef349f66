import { Clock, type Duration, Effect, Schedule } from "effect"
import { shopEntities } from "./Entities.js"
import { ExploreRepo } from "./ExploreRepo.js"

/** The periods summed ahead (days up to yesterday): explore's default, and a week. */
export const rollupWindows = [7, 30] as const

const yesterdayOf = (now: number) => new Date(now - 86_400_000).toISOString().slice(0, 10)

/**
 * Keeps the explore rollups (the standard windows' period metrics) in step with the daily
 * series: computed after the demo load and whenever they no longer hold (a new day, a metrics
 * import), by a fiber that looks every few minutes. Until then explore sums the series itself,
 * so answers never depend on the rollups being there.
 */
export class ShopRollups extends Effect.Service<ShopRollups>()("adintel/ShopRollups", {
  effect: Effect.gen(function*() {
    const repo = yield* ExploreRepo

    /** Computes every window that does not hold the days up to yesterday; how many it computed. */
    const refreshStale = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const dayTo = yesterdayOf(now)
      let refreshed = 0
      for (const entity of shopEntities) {
        for (const days of rollupWindows) {
          if ((yield* repo.rollupDay(entity, days)) === dayTo) continue
          yield* repo.refreshRollup(entity, days, dayTo, new Date(now))
          refreshed++
        }
      }
      return refreshed
    })

    return {
      refreshStale,
      /** For as long as the server runs: a look every `every`. */
      keepFresh: (every: Duration.Duration) =>
        refreshStale.pipe(
          Effect.tap((n) => (n > 0 ? Effect.logInfo(`Short-video shop rollups computed: ${n}`) : Effect.void)),
          Effect.catchAllCause((cause) => Effect.logWarning("Short-video shop rollups not computed; explore sums the series", cause)),
          Effect.repeat(Schedule.spaced(every))
        )
    }
  }),
  dependencies: [ExploreRepo.Default]
}) {}
