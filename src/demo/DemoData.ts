import { Chunk, Clock, Effect, Stream } from "effect"
import { siblingModule, threadOf } from "../platform/Threads.js"
import type { Drawing } from "./CreativeThread.js"
import { CreativeHasher } from "../ads/library/CreativeHasher.js"
import { ShopRollups } from "../shop/search/ShopRollups.js"
import { Ingest, type IngestReport } from "../ingest/Ingest.js"
import { type EntityName, entityNames } from "../ingest/Records.js"
import { StoredTranscripts } from "../transcripts/StoredTranscripts.js"
import { DemoRepo } from "./DemoRepo.js"
import { ProductImages } from "../stores/visual/ProductImages.js"
import { type ScaleName, scales, world } from "./World.js"
import { serviceSpan } from "../platform/telemetry/Tracing.js"

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
  /**
   * Run beside the drawing of the creatives, once the ads are stored (the count of their
   * trends): the creatives are drawn on a thread of their own, so the main thread is free.
   */
  readonly besideCreatives?: Effect.Effect<void>
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
      loaded: Effect.withSpan(repo.loaded, "DemoData.loaded", serviceSpan),
      load: Effect.fn("DemoData.load", serviceSpan)(function*({ besideCreatives = Effect.void, only = entityNames, onProgress = () => Effect.void, scale, seed }: DemoOptions) {
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
        // The demo's creatives are drawn, not fetched: hashed from their pixels, as the hasher
        // would, on a thread of their own (two batches ahead of the writes); beside them,
        // `besideCreatives`.
        const drawCreatives = Effect.scoped(Effect.gen(function*() {
          const thread = yield* threadOf<Drawing, BigInt64Array>(siblingModule(import.meta.url, "CreativeThread"))
          yield* Stream.fromIterable(generated.creatives()).pipe(
            Stream.grouped(2_000),
            Stream.mapEffect((batch) => {
              const drawing = Chunk.toReadonlyArray(batch)
              return Effect.map(
                thread.run({ seeds: drawing.map((c) => c.seed), noises: drawing.map((c) => c.noise) }),
                (hashes) => drawing.map(({ external_id, library, media_url }, i) => ({
                  library,
                  externalId: external_id,
                  hashes: { phash: hashes[2 * i]!, dhash: hashes[2 * i + 1]! },
                  mediaUrl: media_url
                }))
              )
            }, { concurrency: 2 }),
            Stream.runForEach((drawn) =>
              creatives.record(drawn, now).pipe(Effect.zipRight(Effect.suspend(() => {
                before += drawn.length
                return onProgress({ entity: "creatives", done: before, total })
              }))))
          )
        })).pipe(Effect.orDie)
        yield* Effect.all([chosen.includes("ads") ? drawCreatives : Effect.void, besideCreatives], { concurrency: 2, discard: true })
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
