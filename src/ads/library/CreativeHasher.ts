import { Clock, Effect } from "effect"
import { ImageFeatures, toSigned64 } from "../../platform/media/ImageFeatures.js"
import { RemoteMedia } from "../../platform/media/RemoteMedia.js"
import { type CreativeOf, SimilarityRepo } from "./SimilarityRepo.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

export interface HashOptions {
  /** Creatives to process at most in this run. */
  readonly limit: number
  /** Fetches in flight at once. */
  readonly concurrency: number
  /** Also try again the creatives an earlier run could not fetch or read. */
  readonly retryFailed: boolean
  readonly onProgress?: (progress: HashReport) => Effect.Effect<void>
}

export interface HashReport {
  readonly hashed: number
  readonly failed: number
}

/** The largest creative fetched; a bigger one is recorded as failed. */
export const maxCreativeBytes = 15 * 1024 * 1024
const batch = 200

/**
 * Perceptual hashes of imported ads' creatives, for image similarity (magic-ai): each ad's
 * first image, or its video's thumbnail, fetched through `RemoteMedia` (the same SSRF rules as
 * any user-supplied URL: a crawled URL is not trusted either) and hashed by `ImageFeatures`.
 * A creative that cannot be fetched or read is recorded with its reason and skipped by later
 * runs; a changed URL is hashed again.
 */
export class CreativeHasher extends Effect.Service<CreativeHasher>()("adintel/CreativeHasher", {
  effect: Effect.gen(function*() {
    const repo = yield* SimilarityRepo
    const media = yield* RemoteMedia
    const images = yield* ImageFeatures
    return {
      /** Stores hashes computed elsewhere, as hashing would (the demo draws its creatives rather than fetch them). */
      record: Effect.fn("CreativeHasher.record", serviceSpan)((creatives: ReadonlyArray<CreativeOf>, at: Date) => repo.saveHashes(creatives, at)),

      hashPending: Effect.fn("CreativeHasher.hashPending", serviceSpan)(function*({ concurrency, limit, onProgress = () => Effect.void, retryFailed }: HashOptions) {
        let report: HashReport = { hashed: 0, failed: 0 }
        let after = "0"
        while (report.hashed + report.failed < limit) {
          const pending = yield* repo.pendingCreatives(after, Math.min(batch, limit - report.hashed - report.failed), retryFailed)
          if (pending.length === 0) break
          after = pending[pending.length - 1]!.id
          yield* Effect.forEach(pending, (ad) =>
            Effect.gen(function*() {
              const fetched = yield* media.fetch(ad.media_url, { maxBytes: maxCreativeBytes, accept: ["image/"] })
              return yield* images.hash(fetched.bytes)
            }).pipe(
              Effect.matchEffect({
                onFailure: (error) =>
                  Effect.flatMap(Clock.currentTimeMillis, (now) => repo.saveFailure(ad.id, ad.media_url, error.reason, new Date(now))).pipe(
                    Effect.tap(() => (report = { ...report, failed: report.failed + 1 }))
                  ),
                onSuccess: (hashes) =>
                  Effect.flatMap(Clock.currentTimeMillis, (now) =>
                    repo.saveHashes([{
                      library: ad.library,
                      externalId: ad.external_id,
                      hashes: { phash: toSigned64(hashes.phash), dhash: toSigned64(hashes.dhash) },
                      mediaUrl: ad.media_url
                    }], new Date(now))).pipe(Effect.tap(() => (report = { ...report, hashed: report.hashed + 1 })))
              }),
              Effect.zipRight(Effect.suspend(() => onProgress(report)))
            ), { concurrency, discard: true })
        }
        return report
      })
    }
  }),
  dependencies: [SimilarityRepo.Default, RemoteMedia.Default, ImageFeatures.Default]
}) {}
