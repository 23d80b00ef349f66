import { Chunk, Clock, Effect, Stream } from "effect"
import { CreativeHasher } from "../ads/library/CreativeHasher.js"
import { ShopRollups } from "../shop/search/ShopRollups.js"
import { Ingest, type IngestReport } from "../ingest/Ingest.js"
import { type EntityName, entityNames } from "../ingest/Records.js"
import { dHashFrom32, pHashOfPixels, syntheticCreative, toSigned64 } from "../platform/media/ImageFeatures.js"
import { StoredTranscripts } from "../transcripts/StoredTranscripts.js"
import { DemoRepo } from "./DemoRepo.js"
import { ProductImages } from "../stores/visual/ProductImages.js"
import { type ScaleName, scales, world } from "./World.js"

export interface DemoProgress {
  /** What is being loaded: an entity, or the ads' creatives (drawn and hashed, one per ad with media). */
  readonly entity: EntityName | "creatives"
  /** Records written so far, over all entities, and how many there will be. */
  readonly done: number
  readonly total: number
}

export interface DemoOptions {
  readonly scale: ScaleName
  readonly seed: number
  readonly onProgress?: (progress: DemoProgress) => Effect.Effect<void>
  /** Load only these entities (benchmarks of one route family); all when absent. */
  readonly only?: ReadonlyArray<EntityName>
}

/**
 * Loads a generated world through the ingestion path, entity by entity in reference order.
 * Idempotent like any import: a load that was cut off is finished by running it again.
 */
export class DemoData extends Effect.Service<DemoData>()("adintel/DemoData", {
  effect: Effect.gen(function*() {
    const ingest = yield* Ingest
    const repo = yield* DemoRepo
    const creatives = yield* CreativeHasher
    const rollups = yield* ShopRollups
    const transcripts = yield* StoredTranscripts
    const productImages = yield* ProductImages
    return {
      loaded: repo.loaded,
      load: ({ only = entityNames, onProgress = () => Effect.void, scale, seed }: DemoOptions) =>
        Effect.gen(function*() {
          const now = new Date(yield* Clock.currentTimeMillis)
          const today = now.toISOString().slice(0, 10)
          const generated = world({ scale: scales[scale], seed, today })
          const chosen = entityNames.filter((name) => only.includes(name))
          // The creatives count as one per ad: the ads without media are passed over unseen.
          const total = chosen.reduce((n, name) => n + generated.counts[name], 0) + (chosen.includes("ads") ? generated.counts.ads : 0)
          let before = 0
          const reports: Partial<Record<EntityName, IngestReport>> = {}
          for (const entity of chosen) {
            reports[entity] = yield* ingest.records(entity, Stream.fromIterable(generated.records[entity]()), (p) =>
              onProgress({ entity, done: before + p.lines, total }))
            before += generated.counts[entity]
            if (reports[entity]!.rejected > 0) {
              return yield* Effect.dieMessage(`The demo ${entity} were refused: ${JSON.stringify(reports[entity]!.errors.slice(0, 3))}`)
            }
          }
          // The demo's creatives are drawn, not fetched: hashed from their pixels, as the hasher would.
          if (chosen.includes("ads")) yield* Stream.fromIterable(generated.creatives()).pipe(
            Stream.map(({ external_id, library, media_url, noise, seed }) => {
              const pixels = syntheticCreative(seed, { noise })
              return {
                library,
                externalId: external_id,
                hashes: { phash: toSigned64(pHashOfPixels(pixels)), dhash: toSigned64(dHashFrom32(pixels)) },
                mediaUrl: media_url
              }
            }),
            Stream.grouped(2_000),
            Stream.runForEach((batch) =>
              creatives.record(Chunk.toReadonlyArray(batch), now).pipe(Effect.zipRight(Effect.suspend(() => {
                before += Chunk.size(batch)
                return onProgress({ entity: "creatives", done: before, total })
              }))))
          )
          if (chosen.includes("ads")) yield* transcripts.seed([...generated.transcripts()], now)
          // Hosted stores' product images are drawn and indexed for visual search (not at the bench scales: its benchmark indexes its own).
          if (chosen.includes("store-products") && (scale === "small" || scale === "demo")) yield* productImages.index(generated.storeImages())
          // Explore's standard periods, summed ahead once the series are in.
          if (chosen.includes("shop-metrics")) yield* rollups.refreshStale
          yield* onProgress({ entity: "shop-metrics", done: total, total })
          // A partial world (a benchmark's) is not the demo: first start would skip loading the rest.
          if (chosen.length === entityNames.length) yield* repo.markLoaded({ scale, seed, today }, now)
          return reports as Record<EntityName, IngestReport>
        })
    }
  }),
  dependencies: [DemoRepo.Default, Ingest.Default, CreativeHasher.Default, ShopRollups.Default, StoredTranscripts.Default, ProductImages.Default]
}) {}
