/**
 * `npm run bench:fanout` (issue 31, docs/SCALING.md "Simulating the fan-out"): what a sharded
 * corpus's fan-out costs a keyword search.
 * - On one PostgreSQL, simulated: the ads are copied into N native hash partitions (N = 4 and 16;
 *   N = 1 is the table itself), each with the search's own indexes, and the ad search repository
 *   itself runs against each (its `ads` found through the connection's `search_path`):
 *   PostgreSQL plans a per-partition search under a merge, as Citus plans a per-shard top-k
 *   under a merge on the coordinator.
 * - On a Citus cluster (`BENCH_DATABASES=citus`, issue 45), for real: the ads are copied into
 *   distributed tables of N shards (N = 1, 4 and 16 beside the service's own `ads`, 32 shards by
 *   default), and the same repository searches each.
 *
 * Prints, per N: p50 and p95 of the same keyword searches (two words of an ad's headline, a
 * country and `status=active`, sorted by relevance, one page), the rows the plans read per
 * search (EXPLAIN ANALYZE of the page's id-picking step, the part that fans out; on Citus every
 * shard's plan), with each p95 against N = 1's in the same run, and the database's CPU per
 * search (on Citus every node's together). One machine's cores are shared by every partition
 * and node, so this measures the cost of splitting, not the speed-up of spreading.
 */
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Layer, Option } from "effect"
import pg from "pg"
import { AdSearchRepo } from "../src/ads/library/AdSearchRepo.js"
import { type ScaleName, scales } from "../src/demo/World.js"
import { ReadSql } from "../src/platform/db/Replicas.js"
import { pgCpuMeter } from "./Figures.js"
import { eachBenchDatabase, importWorld, keywordsOf, percentile, runBench } from "./Scratch.js"

const scaleName = (process.env["BENCH_SCALE"] ?? "bench") as ScaleName
/** Keyword searches per N. */
const samples = Number(process.env["BENCH_SAMPLES"] ?? 200)
/** The shard or partition counts copied, beside the table itself (a partition of one on one PostgreSQL; its own shard count on Citus). */
const copiedCounts = [1, 4, 16] as const
const countries = ["US", "GB", "CA", "AU", "DE"]

/** A layout of the ads searched: N partitions or shards, under a schema of its own (`public`: the service's own `ads`). */
interface Layout {
  readonly n: number
  readonly schema: string
}

/** The layouts measured, fewest shards first: the service's own `ads` and the copies. */
const layoutsOf = async (client: pg.Client, citus: boolean): Promise<ReadonlyArray<Layout>> => {
  const own = citus
    ? Number((await client.query<{ n: string }>(`select count(*)::text as n from pg_dist_shard where logicalrelid = 'ads'::regclass`)).rows[0]!.n)
    : 1
  return [{ n: own, schema: "public" }, ...copiedCounts.filter((n) => n !== own).map((n) => ({ n, schema: `fanout_${n}` }))]
    .sort((a, b) => a.n - b.n)
}

/**
 * `ads` copied into `layout.n` hash partitions by id (one PostgreSQL), or into a distributed
 * table of `layout.n` shards by advertiser (Citus), under its schema, with the indexes a keyword
 * search uses.
 */
const copied = async (client: pg.Client, layout: Layout, citus: boolean) => {
  const { n, schema } = layout
  const columns = (await client.query<{ name: string }>(
    `select column_name as name from information_schema.columns
      where table_schema = 'public' and table_name = 'ads' and is_generated = 'NEVER' order by ordinal_position`
  )).rows.map((r) => pg.escapeIdentifier(r.name)).join(", ")
  await client.query(`drop schema if exists ${schema} cascade`)
  await client.query(`create schema ${schema}`)
  if (citus) {
    await client.query(`create table ${schema}.ads (like public.ads including defaults including generated)`)
    await client.query(`select create_distributed_table($1, 'advertiser_id', shard_count => $2, colocate_with => 'none')`, [`${schema}.ads`, n])
  } else {
    await client.query(`create table ${schema}.ads (like public.ads including defaults including generated) partition by hash (id)`)
    for (let i = 0; i < n; i++) {
      await client.query(`create table ${schema}.ads_${i} partition of ${schema}.ads for values with (modulus ${n}, remainder ${i})`)
    }
  }
  await client.query(`insert into ${schema}.ads (${columns}) select ${columns} from public.ads`)
  // The keyword search's indexes, as on `public.ads` (partitioned: one per partition; distributed: one per shard).
  for (const library of ["social", "pinboard", "clipapp", "search"]) {
    await client.query(`create index on ${schema}.ads using gin (search_vector, countries, status) where library = '${library}'`)
  }
  await client.query(`create index on ${schema}.ads (library, first_seen desc, id desc)`)
  // On Citus a key holds the distribution column.
  await client.query(`alter table ${schema}.ads add primary key (${citus ? "advertiser_id, id" : "id"})`)
  await client.query(`analyze ${schema}.ads`)
}

/** Rows the page's id-picking step reads: every scan node's actual rows, over all loops. */
const rowsRead = async (client: pg.Client, schema: string, q: string, country: string) => {
  const plan = (await client.query(`explain (analyze, format json)
    select a.id from ${schema}.ads a
     where a.library = 'social' and a.search_vector @@ websearch_to_tsquery('english', $1) and a.countries && $2::text[] and a.status = 'active'
     order by ts_rank(a.search_vector, websearch_to_tsquery('english', $1)) desc, a.id desc limit 21`, [q, [country]])).rows[0]["QUERY PLAN"][0].Plan
  let rows = 0
  // Every plan node, the shards' too: Citus puts each task's plan under "Distributed Query" (with
  // `citus.explain_all_tasks`, every task's). Its own Custom Scan is not a scan of rows.
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk)
    if (typeof value !== "object" || value === null) return
    const node = value as Record<string, unknown>
    const type = node["Node Type"]
    if (typeof type === "string" && /Scan$/.test(type) && !/Bitmap Index Scan|Custom Scan/.test(type)) {
      rows += Number(node["Actual Rows"]) * Number(node["Actual Loops"])
    }
    Object.values(node).forEach(walk)
  }
  walk(plan)
  return rows
}

/** The ad search repository over `schema`'s `ads` (then `public`'s other tables), read-only. */
const repositoryOn = (url: string, schema: string, settings: ReadonlyArray<string> = []) =>
  AdSearchRepo.Default.pipe(Layer.provide(
    Layer.effect(ReadSql, PgClient.PgClient).pipe(Layer.provide(PgClient.layerFromPool({
      acquire: Effect.acquireRelease(
        Effect.sync(() => new pg.Pool({ connectionString: url, max: 2, options: [`-c search_path=${schema},public -c default_transaction_read_only=on`, ...settings.map((setting) => `-c ${setting}`)].join(" ") })),
        (pool) => Effect.promise(() => pool.end())
      )
    })))
  ))

/** One keyword search through the repository: its time in ms. */
const search = (q: string, country: string) =>
  Effect.flatMap(AdSearchRepo, (repo) =>
    Effect.map(
      Effect.timed(repo.search({
        libraries: ["social"],
        filters: { q, country: [country], status: "active" },
        sort: "relevance",
        after: Option.none(),
        take: 21
      })),
      ([took]) => Duration.toMillis(took)
    ))

/** The searches through the repository on `schema` (each once untimed first): their times in ms, and the database's CPU ms for them all. */
const timedSearches = (url: string, schema: string, picked: ReadonlyArray<string>, cpu: (() => number) | undefined, settings: ReadonlyArray<string> = []) =>
  Effect.runPromise(Effect.gen(function*() {
    for (const [i, q] of picked.entries()) yield* search(q, countries[i % countries.length]!)
    const times: Array<number> = []
    const before = cpu?.()
    for (const [i, q] of picked.entries()) times.push(yield* search(q, countries[i % countries.length]!))
    return { times, cpuMs: before === undefined ? undefined : cpu!() - before }
  }).pipe(Effect.provide(repositoryOn(url, schema, settings))))

/** A line of figures: its label, n, p50 and p95, the p95 against N = 1's, `middle`, and the CPU ms a search. */
const figures = (label: string, times: ReadonlyArray<number>, baseline: number, cpuMs: number | undefined, middle = "") => {
  const p95 = percentile(times, 95)
  return `${label} ${String(times.length).padStart(3)} ${percentile(times, 50).toFixed(1).padStart(8)} ${p95.toFixed(1).padStart(8)}` +
    `   ${(p95 / baseline).toFixed(2).padStart(8)}x${middle}   ${cpuMs === undefined ? "-".padStart(17) : (cpuMs / times.length).toFixed(2).padStart(17)}`
}

/**
 * Citus's settings that bear on the fan-out's constant, tried on the service's own `ads`: the
 * connections a session keeps to each worker between statements (default 1: a search over 16
 * shards of a worker opens more and closes them), and the connections a statement may use per
 * worker (default 16; 1 runs a worker's tasks one after another on one).
 */
const citusSettings = [
  ["as configured", []],
  ["citus.max_cached_conns_per_worker = 16", ["citus.max_cached_conns_per_worker=16"]],
  ["citus.max_adaptive_executor_pool_size = 1", ["citus.max_adaptive_executor_pool_size=1"]]
] as const

const main = () =>
  eachBenchDatabase("fanout", async (url, _dir, loaded) => {
    console.log(`Fan-out of a keyword search, scale ${scaleName} (${scales[scaleName].ads.toLocaleString("en")} ads).`)
    if (!loaded) {
      await importWorld(url, { scale: scaleName, seed: 1, only: ["stores", "landers", "advertisers", "ads"] })
    }
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const citus = (await client.query(`select 1 from pg_extension where extname = 'citus'`)).rows.length > 0
      // EXPLAIN ANALYZE on Citus: every shard's plan, not one of them.
      if (citus) await client.query(`set citus.explain_all_tasks to on`)
      const total = Number((await client.query<{ n: string }>(`select count(*)::text as n from ads where library = 'social'`)).rows[0]!.n)
      const every = Math.max(1, Math.floor(total / samples))
      const picked = (await client.query<{ headline: string }>(
        `select headline from (select headline, row_number() over (order by id) as r from ads where library = 'social') t
          where r % $1 = 0 order by r limit $2`, [every, samples]
      )).rows.map((r) => keywordsOf(r.headline)).filter((q) => q.length > 0)
      if (picked.length === 0) throw new Error(`no social ad headline with a word of five letters in the ${scaleName} world`)
      const layouts = await layoutsOf(client, citus)
      const unit = citus ? "shards" : "partitions"
      for (const layout of layouts) {
        if (layout.schema === "public") continue
        const started = performance.now()
        await copied(client, layout, citus)
        const into = citus ? `a distributed table of ${layout.n} shard${layout.n === 1 ? "" : "s"}` : `${layout.n} hash partitions`
        console.log(`  copied into ${into} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
      }
      const cpu = await pgCpuMeter(url)
      console.log("")
      console.log(`${unit.padStart(10)}   n   p50 ms   p95 ms   p95 / N=1   rows read per search   CPU ms per search`)
      let baseline = Number.NaN
      for (const { n, schema } of layouts) {
        const { times, cpuMs } = await timedSearches(url, schema, picked, cpu)
        let rows = 0
        for (const [i, q] of picked.entries()) rows += await rowsRead(client, schema, q, countries[i % countries.length]!)
        if (n === 1) baseline = percentile(times, 95)
        console.log(figures(String(n).padStart(10), times, baseline, cpuMs, `   ${Math.round(rows / picked.length).toLocaleString("en").padStart(20)}`))
      }
      if (citus) {
        const own = layouts.find((layout) => layout.schema === "public")!
        console.log("")
        console.log(`${`the service's ads (${own.n} shards), with`.padEnd(45)} n   p50 ms   p95 ms   p95 / N=1   CPU ms per search`)
        for (const [label, settings] of citusSettings) {
          const { times, cpuMs } = await timedSearches(url, "public", picked, cpu, settings)
          console.log(figures(label.padEnd(43), times, baseline, cpuMs))
        }
      }
      for (const { schema } of layouts) if (schema !== "public") await client.query(`drop schema ${schema} cascade`)
    } finally {
      await client.end()
    }
  })

runBench(main)
