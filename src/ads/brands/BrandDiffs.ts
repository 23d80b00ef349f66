import { Duration, Effect } from "effect"
import { AccountEvents } from "../../access/events/AccountEvents.js"
import { traced } from "../../platform/telemetry/Tracing.js"
import { type BrandDiff, BrandsRepo } from "./BrandsRepo.js"

/**
 * An active ad of a tracked brand counts as stopped when the crawl saw the brand this much
 * after the ad was last seen (SPEC-NOTES, "Brand diffs").
 */
export const stoppedBehind = Duration.days(2)

/** What one import batch wrote of the ads: by row id. */
export interface WrittenAds {
  /** Stored for the first time. */
  readonly inserted: ReadonlyArray<string>
  /** Inserted or changed. */
  readonly written: ReadonlyArray<string>
  /** Active before the batch, inactive after it. */
  readonly inactivated: ReadonlyArray<string>
}

const eventsOf = (type: "brand.ads_new" | "brand.ads_stopped", diffs: ReadonlyArray<BrandDiff>) =>
  diffs.map((d) => ({ accountId: d.account_id, type, data: { brand_id: d.brand_id, count: d.count, ad_ids: d.ad_ids } }))

/**
 * The tracked brands' diffs of an import batch (issue 32; INTERPRETATIONS H3): `brand.ads_new`
 * and `brand.ads_stopped` per account tracking the brand, recorded in the batch's transaction.
 */
export class BrandDiffs extends Effect.Service<BrandDiffs>()("adintel/BrandDiffs", {
  effect: Effect.gen(function*() {
    const repo = yield* BrandsRepo
    const events = yield* AccountEvents
    return traced("BrandDiffs", {
      /** Call it in the batch's transaction: the events are kept with the ads, or neither. */
      batch: (ads: WrittenAds, at: Date) =>
        Effect.gen(function*() {
          const added = yield* repo.newAds(ads.inserted)
          const stopped = yield* repo.stoppedAds(ads.written, ads.inactivated, Duration.toMillis(stoppedBehind))
          yield* events.emit([...eventsOf("brand.ads_new", added), ...eventsOf("brand.ads_stopped", stopped)], at)
          return { added, stopped }
        })
    })
  }),
  dependencies: [BrandsRepo.Default, AccountEvents.Default]
}) {}
