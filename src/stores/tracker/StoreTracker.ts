import { Clock, Effect } from "effect"
import type { PlanName } from "../../access/gateway/Api.js"
import { InvalidRequest, type NotFound } from "../../kernel/Errors.js"
import { type Page, pageOf, windowOf } from "../../kernel/Paging.js"
import { type FoundStore, StoreCatalog, type StoreName } from "../catalog/StoreCatalog.js"
import type { StoreView } from "../catalog/Views.js"
import { trackerLimits } from "../Config.js"
import { maxNewProducts, maxTrackedDays, type StoreTarget, type TrackedQuery, type TrackedStore, StoreTrackingLimit } from "./Api.js"
import { StoreTrackerRepo } from "./StoreTrackerRepo.js"
import type { AccountId } from "../../kernel/Ids.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

export interface TrackerCounts {
  readonly tracked: number
  readonly limit: number
  readonly remaining: number
}

const planLabel = (plan: PlanName) => plan[0]!.toUpperCase() + plan.slice(1)

/** spec: INTERPRETATIONS G11: exactly one of the two names the store. */
const keyOf = (target: StoreTarget): Effect.Effect<StoreName, InvalidRequest> => {
  if (target.store_id !== undefined && target.domain !== undefined) {
    return Effect.fail(new InvalidRequest({ error: "domain: send store_id or domain, not both" }))
  }
  if (target.store_id !== undefined) return Effect.succeed({ by: "id", value: target.store_id })
  if (target.domain !== undefined) return Effect.succeed({ by: "domain", value: target.domain })
  return Effect.fail(new InvalidRequest({ error: "store_id or domain is missing" }))
}

/** The 404 says what was not found: an id, or a domain the catalog has no store for. */
const notFoundMessage = (key: StoreName) =>
  key.by === "id" ? "Store not found" : `Store not found: no store with the domain ${key.value} is in the catalog`

/**
 * The store tracker (issue 20; INTERPRETATIONS L3): per account, within the plan's limit
 * (`STORE_TRACKER_LIMITS`), exact under concurrency (StoreTrackerRepo.track).
 */
export class StoreTracker extends Effect.Service<StoreTracker>()("adintel/StoreTracker", {
  effect: Effect.gen(function*() {
    const repo = yield* StoreTrackerRepo
    const catalog = yield* StoreCatalog
    const limits = yield* Effect.orDie(trackerLimits)

    const counts = (account: AccountId, plan: PlanName): Effect.Effect<TrackerCounts> =>
      Effect.map(repo.count(account), (tracked) => ({ tracked, limit: limits[plan], remaining: Math.max(0, limits[plan] - tracked) }))

    const find = (target: StoreTarget): Effect.Effect<FoundStore, InvalidRequest | NotFound> =>
      Effect.flatMap(keyOf(target), (key) => catalog.find(key, notFoundMessage(key)))

    return {
      status: Effect.fn("StoreTracker.status", serviceSpan)(counts),

      track: Effect.fn("StoreTracker.track", serviceSpan)(function*(
        account: AccountId,
        plan: PlanName,
        target: StoreTarget,
        base: string
      ): Effect.fn.Return<TrackerCounts & { readonly store: StoreView }, InvalidRequest | NotFound | StoreTrackingLimit> {
        const store = yield* find(target)
        const now = new Date(yield* Clock.currentTimeMillis)
        const done = yield* repo.track(account, store.row, now, limits[plan])
        if (done === "full") {
          return yield* Effect.fail(new StoreTrackingLimit({
            error: `Store tracking limit reached: ${limits[plan]} stores on the ${planLabel(plan)} plan`
          }))
        }
        const [view] = yield* catalog.views([store.row], base)
        return { store: view!, ...(yield* counts(account, plan)) }
      }),

      untrack: Effect.fn("StoreTracker.untrack", serviceSpan)(function*(account: AccountId, plan: PlanName, target: StoreTarget): Effect.fn.Return<TrackerCounts, InvalidRequest | NotFound> {
        const store = yield* find(target)
        yield* repo.untrack(account, store.row)
        return yield* counts(account, plan)
      }),

      /** P2 page of the tracked stores with what happened since each was tracked. */
      stores: Effect.fn("StoreTracker.stores", serviceSpan)(function*(account: AccountId, query: TrackedQuery, base: string): Effect.fn.Return<Page<TrackedStore>> {
        const window = windowOf(query)
        const total = yield* repo.count(account)
        const rows = yield* repo.page(account, window)
        const views = yield* catalog.views(rows.map((r) => r.row), base)
        const data = yield* Effect.forEach(rows, (tracked, i) =>
          Effect.all({
            daily_sales: catalog.dailySince(tracked.row, tracked.tracked_day, maxTrackedDays),
            new_products: catalog.newProducts(tracked.row, tracked.tracked_day, maxNewProducts, base)
          }).pipe(Effect.map((since): TrackedStore => ({ store: views[i]!, tracked_at: tracked.tracked_at, ...since }))))
        return pageOf(window, data, total)
      })
    }
  }),
  dependencies: [StoreTrackerRepo.Default, StoreCatalog.Default]
}) {}
