/**
 * Where an imported ad's CPU goes (issue 29, item 6), printed by `npm run bench:data` at every
 * scale. The ads are imported as NDJSON bytes (what `POST /admin/import` and the CLI read) with
 * the import's process and PostgreSQL metered; then each piece is measured alone on the same
 * records: line parsing and schema validation in Node; in PostgreSQL, the write plan with
 * pre-validated batches, the full-text vector over the stored ads, and the write plan with the
 * ads' secondary indexes dropped (their upkeep is the difference). Figures are microseconds of
 * one core an ad; two cores bound the rate at 2,000,000 / (Node + PostgreSQL) ads a second.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Either, Schema, Stream } from "effect"
import { type Entity, entities, type Numbered } from "../src/ingest/Entities.js"
import { batchSizeOf, defaultLanes, Ingest, parseLine, recordDecoder } from "../src/ingest/Ingest.js"
import { adSearchVector, IngestRepo } from "../src/ingest/IngestRepo.js"
import { unboundedStatements } from "../src/platform/db/Database.js"
import { cpuSince, nodeCpuMeters, pgCpuMeter } from "./Figures.js"

/** Lines a chunk of the NDJSON stream carries. */
const linesPerChunk = 1_000
const encoder = new TextEncoder()

/** The records as NDJSON lines, `linesPerChunk` a chunk, made as they are read. */
function* ndjsonLines(records: Iterable<unknown>): Generator<Array<string>> {
  let lines: Array<string> = []
  for (const record of records) {
    lines.push(JSON.stringify(record))
    if (lines.length === linesPerChunk) {
      yield lines
      lines = []
    }
  }
  if (lines.length > 0) yield lines
}

/**
 * The same as bytes. Streamed one chunk a pull (`fromIteratorSucceed(…, 1)`): `fromIterable`
 * pulls 4,096 elements at once, here four million lines, and a million ads ran Node out of heap.
 */
function* ndjson(records: Iterable<unknown>): Generator<Uint8Array> {
  for (const lines of ndjsonLines(records)) yield encoder.encode(lines.join("\n") + "\n")
}

/** Microseconds of CPU this process (every thread) has used. */
const nodeCpu = () => {
  const { system, user } = process.cpuUsage()
  return user + system
}

/** What a metered piece of work cost: wall seconds, and CPU microseconds of Node and PostgreSQL (0 when its server is not local). */
interface Cost {
  readonly seconds: number
  readonly nodeUs: number
  readonly pgUs: number
}

const metered = <A, E, R>(pgCpu: (() => number) | undefined, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const node = nodeCpu()
    const pg = pgCpu?.() ?? 0
    const start = performance.now()
    const value = yield* effect
    const cost: Cost = { seconds: (performance.now() - start) / 1000, nodeUs: nodeCpu() - node, pgUs: ((pgCpu?.() ?? 0) - pg) * 1000 }
    return [value, cost] as const
  })

/**
 * The write plan alone: the ads emptied, then each batch of `batchSizeOf` records decoded with the
 * meters stopped and written, split over the lanes an import uses, with them running. Memory
 * stays at one batch. Answers the cost of the writes only.
 */
const writePlanAlone = (pgCpu: (() => number) | undefined, records: Iterable<unknown>) =>
  Effect.gen(function*() {
    const repo = yield* IngestRepo
    const sql = yield* SqlClient.SqlClient
    const entity: Entity<any> = entities.ads
    const lanes = entity.lanes ?? defaultLanes
    const decode = Schema.decodeUnknownSync(entity.schema)
    // Cascade: rows that refer to ads (saved ads, trend counts) go too; the database is a scratch
    // one. Only `ads`: emptied landers turned nearly every ad into a refused line.
    yield* Effect.orDie(sql.unsafe(`truncate ads cascade`))
    let line = 0
    let total: Cost = { seconds: 0, nodeUs: 0, pgUs: 0 }
    let batch: Array<Numbered<unknown>> = []
    const write = Effect.suspend(() => {
      const byLane = Array.from({ length: lanes }, (_, lane) => batch.filter((_, i) => i % lanes === lane))
      return metered(pgCpu, Effect.forEach(byLane, (b) => repo.transaction(entity.write(repo, b)), { concurrency: "unbounded", discard: true })).pipe(
        Effect.map(([, cost]) => {
          total = { seconds: total.seconds + cost.seconds, nodeUs: total.nodeUs + cost.nodeUs, pgUs: total.pgUs + cost.pgUs }
          batch = []
        })
      )
    })
    for (const record of records) {
      batch.push({ line: ++line, record: decode(record) })
      if (batch.length === batchSizeOf(repo.sharded)) yield* write
    }
    if (batch.length > 0) yield* write
    yield* repo.analyze(entity.tables)
    return { ads: line, ...total }
  })

/** Node's own pieces, timed alone on the same lines: parsing with the line checks, then validation. */
const nodePieces = (records: Iterable<unknown>) => {
  const decode = recordDecoder(entities.ads.schema)
  let parseMs = 0
  let validateMs = 0
  let n = 0
  for (const lines of ndjsonLines(records)) {
    let start = performance.now()
    const parsed = lines.map((line, i) => parseLine(line, i + 1))
    parseMs += performance.now() - start
    start = performance.now()
    for (const { value } of parsed) {
      if (Either.isLeft(value) || Either.isLeft(decode(value.right))) throw new Error("a generated ad did not validate")
    }
    validateMs += performance.now() - start
    n += lines.length
  }
  return { parseUs: (parseMs * 1000) / n, validateUs: (validateMs * 1000) / n }
}

const perAd = (us: number, ads: number) => us / ads
const fixed = (us: number) => us.toFixed(0).padStart(4)

/**
 * Imports `records()` (the world's ads; called once per pass) as NDJSON, measures the pieces
 * that leave the ads stored, and answers the last piece: the write plan without the ads'
 * secondary indexes, which empties the ads and prints the profile. Run it once the stored ads
 * are no longer needed. Needs the ads' references (stores, landers, advertisers) loaded.
 */
export const adsImportProfile = (url: string, records: () => Iterable<unknown>) =>
  Effect.gen(function*() {
    const ingest = yield* Ingest
    const sql = yield* SqlClient.SqlClient
    const pgCpu = yield* Effect.promise(() => pgCpuMeter(url))

    // Baseline: generating the records and their NDJSON bytes, which the import's process also does.
    const [bytes, generate] = yield* metered(undefined, Effect.sync(() => {
      let n = 0
      for (const bytes of ndjson(records())) n += bytes.length
      return n
    }))
    const generateUs = generate.nodeUs
    const nodes = (yield* Effect.promise(() => nodeCpuMeters(url))) ?? []
    const byNode = cpuSince(nodes)
    const [report, load] = yield* metered(pgCpu, ingest.lines("ads", Stream.fromIteratorSucceed(ndjson(records()), 1)))
    const ads = report.accepted + report.rejected
    const loadRate = ads / load.seconds
    console.log(
      `${"ads".padEnd(16)} ${String(ads).padStart(9)} records  load ${loadRate.toFixed(0).padStart(7)}/s as NDJSON` +
        `  (generate and serialise alone ${(ads / (generateUs / 1e6)).toFixed(0)}/s, ${(bytes / ads).toFixed(0)} bytes a line)  ${load.seconds.toFixed(1)} s  rejected ${report.rejected}`
    )
    // On a Citus cluster (BENCH_DATABASES=citus), what the import cost each node.
    if (nodes.length > 1) {
      const spent = byNode()
      console.log(`${"".padEnd(26)} CPU an ad, by node: ${nodes.map((node, i) => `${node.name} ${perAd(spent[i]! * 1000, ads).toFixed(0)} µs`).join(", ")}`)
    }
    const importNode = perAd(load.nodeUs - generateUs, ads)
    const importPg = perAd(load.pgUs, ads)

    const { parseUs, validateUs } = nodePieces(records())
    const plan = yield* writePlanAlone(pgCpu, records())
    console.log(
      `${"".padEnd(26)} database alone ${(plan.ads / plan.seconds).toFixed(0)}/s (writes of pre-validated batches): load is ${
        (loadRate / (plan.ads / plan.seconds)).toFixed(2)
      } of it`
    )

    // The full-text vector over the stored ads, less reading the same text.
    const textOf = `coalesce(a.headline, '') || coalesce(v.name, '') || coalesce(a.description, '') || coalesce(a.body, '')`
    // (Past the service's statement timeout: a million vectors take longer.)
    const over = (expression: string) =>
      metered(pgCpu, Effect.orDie(sql.withTransaction(Effect.zipRight(
        unboundedStatements(sql),
        sql.unsafe(`select sum(length(${expression})) from ads a join advertisers v on v.id = a.advertiser_id`)
      ))))
    const [, read] = yield* over(textOf)
    const [, vector] = yield* over(adSearchVector("a.headline", "v.name", "a.description", "a.body"))
    const vectorUs = perAd(vector.pgUs - read.pgUs, plan.ads)

    // The write plan again without the ads' secondary indexes: their upkeep is the difference.
    return Effect.gen(function*() {
      const secondaryIndexes = Effect.orDie(sql<{ name: string; definition: string }>`
        select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition
          from pg_index i where i.indrelid = 'ads'::regclass and not i.indisunique and not i.indisprimary`)
      const secondary = yield* secondaryIndexes
      for (const index of secondary) yield* Effect.orDie(sql.unsafe(`drop index ${index.name}`))
      // (The plan empties the ads first: the drops above do not rebuild anything.)
      const bare = yield* writePlanAlone(pgCpu, records())
      yield* Effect.orDie(sql.unsafe(`truncate ads cascade`))
      for (const index of secondary) yield* Effect.orDie(sql.unsafe(index.definition))
      const restored = yield* secondaryIndexes
      if (restored.length !== secondary.length) return yield* Effect.die(new Error(`${restored.length} of the ads' ${secondary.length} secondary indexes came back`))

      const planPg = perAd(plan.pgUs, plan.ads)
      const indexesUs = planPg - perAd(bare.pgUs, bare.ads)
      const total = importNode + importPg
      console.log(`ads import, CPU µs an ad (one core; "alone": measured again by itself on the same ${ads} ads):`)
      console.log(
        `  Node       ${fixed(importNode)}  parse and line checks ${parseUs.toFixed(1)} alone, schema validation ${validateUs.toFixed(1)} alone, ` +
          `the rest ${(importNode - parseUs - validateUs).toFixed(1)} (lines, batches, hash, rows, driver, stream, GC)`
      )
      console.log(
        `  PostgreSQL ${fixed(importPg)}  the write plan ${planPg.toFixed(0)} alone: the full-text vector ${vectorUs.toFixed(1)} alone, ` +
          `the ${secondary.length} secondary indexes ${indexesUs.toFixed(0)} (the plan without them), the rest ${(planPg - vectorUs - indexesUs).toFixed(0)}; ` +
          `the import's other work ${(importPg - planPg).toFixed(0)}`
      )
      console.log(`  in all     ${fixed(total)}  at most ${(2e6 / total).toFixed(0)} ads/s on two cores (the import ran at ${loadRate.toFixed(0)}; 10,000 needs <= 200)`)
    })
  })
