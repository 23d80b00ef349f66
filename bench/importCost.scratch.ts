import { Effect, Layer, Redacted, ConfigProvider, Stream } from "effect"
import { withScratchDatabase } from "./Scratch.js"
import * as Database from "../src/platform/db/Database.js"
import { Ingest } from "../src/ingest/Ingest.js"
import { IngestRepo } from "../src/ingest/IngestRepo.js"
import { TrendCounts } from "../src/ads/trends/TrendCounts.js"
import { TrendsRepo } from "../src/ads/trends/TrendsRepo.js"
import { scales, world } from "../src/demo/World.js"
import { SqlClient } from "@effect/sql"

const N = Number(process.env.N ?? 4000)
withScratchDatabase("importcost", async (url) => {
  const g = world({ scale: scales.demo, seed: 1, today: "2026-11-25" })
  const db = Database.clientLayer(Redacted.make(url)).pipe(Layer.tap((c) => Effect.provide(Database.migrate, c)))
  const noop = Layer.succeed(TrendCounts, TrendCounts.make({ record: () => Effect.void, countUncounted: () => Effect.succeed(0) }))
  const run = (withTrends: boolean) => Effect.gen(function*() {
    const ingest = yield* Ingest
    const sql = yield* SqlClient.SqlClient
    yield* sql`truncate ads cascade`; yield* sql`truncate trend_daily`; yield* sql`truncate trend_terms`
    const ads = [...g.records.ads()].slice(0, N)
    const t = performance.now()
    const r = yield* ingest.records("ads", Stream.fromIterable(ads))
    console.log(withTrends ? "with trends   " : "without trends", ((performance.now() - t) / 1000).toFixed(1), "s", Math.round(N / ((performance.now() - t) / 1000)), "ads/s", r.rejected)
  })
  const withT = Ingest.DefaultWithoutDependencies.pipe(Layer.provide([IngestRepo.Default, TrendCounts.Default]))
  const fakeRepo = Layer.effect(TrendsRepo, Effect.gen(function*() { const real = yield* TrendsRepo; return TrendsRepo.make({ ...real, apply: () => Effect.void }) })).pipe(Layer.provide(TrendsRepo.Default))
  const withoutT = process.env.JSONLY
    ? Ingest.DefaultWithoutDependencies.pipe(Layer.provide([IngestRepo.Default, TrendCounts.DefaultWithoutDependencies.pipe(Layer.provide(fakeRepo))]))
    : Ingest.DefaultWithoutDependencies.pipe(Layer.provide([IngestRepo.Default, noop]))
  await Effect.gen(function*() {
    const ingest = yield* Ingest
    for (const e of ["stores", "landers", "advertisers"] as const) yield* ingest.records(e, Stream.fromIterable(g.records[e]()))
  }).pipe(Effect.provide(withT), Effect.provide(db), Effect.withConfigProvider(ConfigProvider.fromMap(new Map())), Effect.orDie, Effect.runPromise)
  for (let i = 0; i < 2; i++) {
    await run(false).pipe(Effect.provide(withoutT), Effect.provide(db), Effect.orDie, Effect.runPromise)
    await run(true).pipe(Effect.provide(withT), Effect.provide(db), Effect.orDie, Effect.runPromise)
  }
}).catch((e) => { console.error(e); process.exit(1) })
