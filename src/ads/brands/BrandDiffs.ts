import { Duration, Effect } from "effect"
import type { Fragment } from "@effect/sql/Statement"
import { ImportEvents } from "../../access/events/ImportEvents.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"
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

/**
 * The tracked brands' diffs of an import (issue 32; INTERPRETATIONS H3): `brand.ads_new` and
 * `brand.ads_stopped` per account tracking the brand, once per import. Each batch's diffs are
 * kept pending in its transaction (`ImportEvents`); the import's end tells them, counts summed
 * and the newest 100 ads named.
 */
export class BrandDiffs extends Effect.Service<BrandDiffs>()("adintel/BrandDiffs", {
  effect: Effect.gen(function*() {
    const repo = yield* BrandsRepo
    const imports = yield* ImportEvents
    return {
      /**
       * Call it in the batch's transaction: the diffs are kept pending with the ads, or neither.
       * Answers the batch's own diffs (a batch outside an import is told at once).
       */
      batch: Effect.fn("BrandDiffs.batch", serviceSpan)((ads: WrittenAds, at: Date): Effect.Effect<{ added: ReadonlyArray<BrandDiff>; stopped: ReadonlyArray<BrandDiff> }> =>
        imports.inBatch((importId) =>
          Effect.gen(function*() {
            const pending = (source: Fragment) => imports.pendingFrom(importId, source, at)
            const added = yield* repo.newAds(ads.inserted, pending)
            const stopped = yield* repo.stoppedAds(ads.written, ads.inactivated, Duration.toMillis(stoppedBehind), pending)
            return { added, stopped }
          }), at))
    }
  }),
  dependencies: [BrandsRepo.Default, ImportEvents.Default]
}) {}
