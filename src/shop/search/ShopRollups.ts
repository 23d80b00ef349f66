import { Clock, type Duration, Effect, Option, Schedule } from "effect"
import { lastDays } from "../catalog/Period.js"
import { ShopCatalog } from "../catalog/ShopCatalog.js"
import { defaultPeriodDays } from "../catalog/Entities.js"
import { ShopSearchRepo } from "./ShopSearchRepo.js"

/**
 * Keeps what the short-video shop sums ahead in step with the catalog: the catalog's rollups
 * (the standard windows' period metrics, through `ShopCatalog`) and the suggestions' strings
 * (this folder's own). Computed after the demo load and whenever they no longer hold (a new
 * day, an import), by a fiber that looks every few minutes. Until then explore sums the series
 * and suggestions read the catalog themselves, so answers never depend on these being there.
 * It sits with search, the one capability that holds both: the catalog knows nothing above it.
 */
export class ShopRollups extends Effect.Service<ShopRollups>()("adintel/ShopRollups", {
  effect: Effect.gen(function*() {
    const catalog = yield* ShopCatalog
    const search = yield* ShopSearchRepo

    /** Computes every window that does not hold the days up to yesterday; how many it computed. */
    const refreshStale = Effect.gen(function*() {
      let refreshed = yield* catalog.refreshStale
      const now = yield* Clock.currentTimeMillis
      const window = yield* lastDays(defaultPeriodDays)
      if (!Option.contains(yield* search.suggestionsDay, window.to)) {
        yield* search.refreshSuggestions(window.from, window.to, new Date(now))
        refreshed++
      }
      return refreshed
    })

    return {
      refreshStale,
      /** For as long as the server runs: a look every `every` (no span: it would never end). */
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
  dependencies: [ShopCatalog.Default, ShopSearchRepo.Default]
}) {}
