/**
 * `npm run bench:data`: how fast data loads, and whether the main query shapes use their
 * indexes at scale. Loads a generated world (BENCH_SCALE, default bench: one million ads and
 * 200,000 products with 90 days of metrics) into a fresh embedded PostgreSQL through the
 * ingestion path, printing rows per second per entity next to the generator's own rate (the
 * baseline: what producing the records costs without a database), then runs EXPLAIN on the
 * query shapes the routes will use and reports the index each one uses.
 */
import { ConfigProvider, Effect, Layer, Redacted, Stream } from "effect"
import { Ingest } from "../src/catalog/Ingest.js"
import { entityNames } from "../src/catalog/records/index.js"
import * as Database from "../src/db/Database.js"
import { type ScaleName, scales, world } from "../src/demo/World.js"
import { runBench, withScratchDatabase } from "./Scratch.js"
import { explainShapes } from "./shapes.js"

const scaleName = (process.env["BENCH_SCALE"] ?? "bench") as ScaleName
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
      }
      yield* explainShapes
    })
    await Effect.runPromise(
      program.pipe(
        Effect.provide(Ingest.Default),
        Effect.provide(db),
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map())),
        Effect.orDie
      ) as Effect.Effect<void>
    )
  })
)
