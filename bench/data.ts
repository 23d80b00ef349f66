/**
 * `npm run bench:data`: how fast data loads, and whether the main query shapes use their
 * indexes at scale. Loads a generated world (BENCH_SCALE, default bench: one million ads and
 * 200,000 products with 90 days of metrics) into a fresh embedded PostgreSQL through the
 * ingestion path, printing rows per second per entity next to the generator's own rate (the
 * baseline: what producing the records costs without a database), then runs EXPLAIN on the
 * query shapes the routes will use and reports the index each one uses. For ads (the entity
 * with a speed goal) it also reports the database's own ceiling: the same records, validated
 * beforehand, written again into an emptied table by the same write plan in the same number
 * of concurrent lanes, with no stream, parsing or validation in the way.
 */
import { SavedSearches } from "../src/ads/savedSearches/SavedSearches.js"
import { ImportEvents } from "../src/access/events/ImportEvents.js"
import { BrandDiffs } from "../src/ads/brands/BrandDiffs.js"
import { ConfigProvider, Effect, Layer, Redacted, Schema, Stream } from "effect"
import { SqlClient } from "@effect/sql"
import { TrendCounts } from "../src/ads/trends/TrendCounts.js"
import { IngestRepo } from "../src/ingest/IngestRepo.js"
import { type Entity, entities, type Numbered } from "../src/ingest/Entities.js"
import { batchSize, defaultLanes, Ingest } from "../src/ingest/Ingest.js"
import { entityNames } from "../src/ingest/Records.js"
import * as Database from "../src/platform/db/Database.js"
import { type ScaleName, scales, world } from "../src/demo/World.js"
import { runBench, withScratchDatabase } from "./Scratch.js"
import { explainShapes } from "./shapes.js"

const scaleName = (process.env["BENCH_SCALE"] ?? "bench") as ScaleName

/**
 * Records per second the write plan alone reaches: the table emptied, then each batch of
 * `batchSize` records decoded with the clock stopped and written, split over the lanes an
 * import uses, with the clock running. Memory stays at one batch.
 */
const databaseAlone = (name: "ads", records: Iterable<unknown>) =>
  Effect.gen(function*() {
    const repo = yield* IngestRepo
    const sql = yield* SqlClient.SqlClient
    const entity: Entity<any> = entities[name]
    const lanes = entity.lanes ?? defaultLanes
    const decode = Schema.decodeUnknownSync(entity.schema)
    // Cascade: rows that refer to the entity (saved ads, trend counts) go too; the database is a
    // scratch one. Only the entity's own table: its other tables (the ads' `landers`) are what
    // its records refer to, and emptied they turned nearly every ad into a refused line.
    yield* Effect.orDie(sql.unsafe(`truncate ${entity.tables[0]} cascade`))
    let line = 0
    let writing = 0
    let batch: Array<Numbered<unknown>> = []
    const write = Effect.suspend(() => {
      const byLane = Array.from({ length: lanes }, (_, lane) => batch.filter((_, i) => i % lanes === lane))
      const start = performance.now()
      return Effect.forEach(byLane, (b) => repo.transaction(entity.write(repo, b)), { concurrency: "unbounded", discard: true }).pipe(
        Effect.tap(() => {
          writing += performance.now() - start
          batch = []
        })
      )
    })
    for (const record of records) {
      batch.push({ line: ++line, record: decode(record) })
      if (batch.length === batchSize) yield* write
    }
    if (batch.length > 0) yield* write
    yield* repo.analyze(entity.tables)
    return line / (writing / 1000)
  })

const only = process.env["BENCH_ENTITIES"]?.split(",")

runBench(() =>
  withScratchDatabase("bench", async (url) => {
    const db = Database.clientLayer(Redacted.make(url)).pipe(
      Layer.tap((context) => Effect.provide(Database.migrate, context))
    )
    const generated = world({ scale: scales[scaleName], seed: 1, today: "2026-11-22" })
    console.log(`Scale ${scaleName}: ${JSON.stringify(scales[scaleName])}`)
    const program = Effect.gen(function*() {
      const ingest = yield* Ingest
      for (const entity of entityNames) {
        if (only && !only.includes(entity)) continue
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
        if (entity === "ads") {
          const ceiling = yield* databaseAlone(entity, generated.records[entity]())
          console.log(
            `${"".padEnd(26)} database alone ${ceiling.toFixed(0)}/s (writes of pre-validated batches): load is ${
              ((n / seconds) / ceiling).toFixed(2)
            } of it`
          )
        }
      }
      yield* explainShapes
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
