/**
 * `npm run bench:data`: how fast data loads, and whether the main query shapes use their
 * indexes at scale. Loads a generated world (BENCH_SCALE, default bench: one million ads and
 * 200,000 products with 90 days of metrics) into a fresh embedded PostgreSQL through the
 * ingestion path, printing rows per second per entity next to the generator's own rate (the
 * baseline: what producing the records costs without a database), then runs EXPLAIN on the
 * query shapes the routes will use and reports the index each one uses. Ads (the entity with
 * a speed goal) are imported as NDJSON bytes, and their import profile (`importProfile.ts`)
 * says where each microsecond of an ad goes, with the database's own ceiling: the same records,
 * validated beforehand, written again into an emptied table by the same write plan in the same
 * number of concurrent lanes, with no stream, parsing or validation in the way.
 * `BENCH_DATABASES=single,citus` (issue 45) loads one PostgreSQL, then a Citus coordinator and two
 * workers, in one run: the ads' line then gives each node's CPU an ad.
 */
import { SavedSearches } from "../src/ads/savedSearches/SavedSearches.js"
import { ImportEvents } from "../src/access/events/ImportEvents.js"
import { BrandDiffs } from "../src/ads/brands/BrandDiffs.js"
import { ConfigProvider, Effect, Layer, Redacted, Stream } from "effect"
import { TrendCounts } from "../src/ads/trends/TrendCounts.js"
import { IngestRepo } from "../src/ingest/IngestRepo.js"
import { Ingest } from "../src/ingest/Ingest.js"
import { entityNames } from "../src/ingest/Records.js"
import * as Database from "../src/platform/db/Database.js"
import { type ScaleName, scales, world } from "../src/demo/World.js"
import { adsImportProfile } from "./importProfile.js"
import { eachBenchDatabase, runBench } from "./Scratch.js"
import { explainShapes } from "./shapes.js"

const scaleName = (process.env["BENCH_SCALE"] ?? "bench") as ScaleName

const only = process.env["BENCH_ENTITIES"]?.split(",")

runBench(() =>
  eachBenchDatabase("bench", async (url) => {
    const db = Database.clientLayer(Redacted.make(url)).pipe(
      Layer.tap((context) => Effect.provide(Database.migrate, context))
    )
    const generated = world({ scale: scales[scaleName], seed: 1, today: "2026-11-22" })
    console.log(`Scale ${scaleName}: ${JSON.stringify(scales[scaleName])}`)
    const program = Effect.gen(function*() {
      const ingest = yield* Ingest
      // The ads' import profile ends by emptying the ads: it runs after the query shapes.
      let adsProfileEnd: Effect.Effect.Success<ReturnType<typeof adsImportProfile>> | undefined
      for (const entity of entityNames) {
        if (only && !only.includes(entity)) continue
        if (entity === "ads") {
          adsProfileEnd = yield* adsImportProfile(url, () => generated.records.ads())
          continue
        }
        // Baseline: generating the records alone.
        let t = performance.now()
        let n = 0
        for (const _ of generated.records[entity]()) n++
        const generateSeconds = (performance.now() - t) / 1000
        t = performance.now()
        const report = yield* ingest.records(entity, Stream.fromIterable(generated.records[entity]()))
        const seconds = (performance.now() - t) / 1000
        console.log(
          `${entity.padEnd(16)} ${String(n).padStart(9)} records  load ${(n / seconds).toFixed(0).padStart(7)}/s` +
            `  (generate alone ${(n / generateSeconds).toFixed(0)}/s)  ${seconds.toFixed(1)} s  rejected ${report.rejected}`
        )
      }
      yield* explainShapes
      if (adsProfileEnd) yield* adsProfileEnd
    })
    await Effect.runPromise(
      program.pipe(
        // One TrendCounts for the import and the write-plan ceiling, which writes ads as `Ingest` does.
        Effect.provide(Ingest.DefaultWithoutDependencies.pipe(Layer.provideMerge(Layer.mergeAll(IngestRepo.Default, TrendCounts.Default, SavedSearches.Default, BrandDiffs.Default, ImportEvents.Default)))),
        Effect.provide(db),
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map())),
        Effect.orDie
      ) as Effect.Effect<void>
    )
  })
)
