/**
 * `npm run bench:fanout` (issue 31, docs/SCALING.md "Simulating the fan-out"): what a sharded
 * corpus's fan-out costs a keyword search, simulated on one server. The ads are copied into N
 * native hash partitions (N = 4 and 16; N = 1 is the table itself), each with the search's own
 * indexes, and the ad search repository itself runs against each (its `ads` found through the
 * connection's `search_path`): PostgreSQL plans a per-partition search under a merge, as Citus
 * would plan a per-shard top-k under a merge on the coordinator.
 *
 * Prints, per N: p50 and p95 of the same keyword searches (two words of an ad's headline, a
 * country and `status=active`, sorted by relevance, one page), and the rows the plans read per
 * search (EXPLAIN ANALYZE of the page's id-picking step, the part that fans out), with each
 * p95 against N = 1's in the same run. One machine's cores are shared by every partition, so
 * this measures the cost of splitting, not the speed-up of spreading.
 */
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Layer, Option } from "effect"
import pg from "pg"
import { AdSearchRepo } from "../src/ads/library/AdSearchRepo.js"
import { type ScaleName, scales } from "../src/demo/World.js"
import { ReadSql } from "../src/platform/db/Replicas.js"
import { importWorld, keywordsOf, percentile, runBench, withBenchDatabase } from "./Scratch.js"

const scaleName = (process.env["BENCH_SCALE"] ?? "bench") as ScaleName
/** Keyword searches per N. */
const samples = Number(process.env["BENCH_SAMPLES"] ?? 200)
const partitionCounts = [1, 4, 16] as const
const countries = ["US", "GB", "CA", "AU", "DE"]


const schemaOf = (n: number) => (n === 1 ? "public" : `fanout_${n}`)

/** `ads` copied into `n` hash partitions by id under schema `fanout_<n>`, with the indexes a keyword search uses. */
const partitioned = async (client: pg.Client, n: number) => {
  const schema = schemaOf(n)
  const columns = (await client.query<{ name: string }>(
    `select column_name as name from information_schema.columns
      where table_schema = 'public' and table_name = 'ads' and is_generated = 'NEVER' order by ordinal_position`
  )).rows.map((r) => pg.escapeIdentifier(r.name)).join(", ")
  await client.query(`drop schema if exists ${schema} cascade`)
  await client.query(`create schema ${schema}`)
  await client.query(`create table ${schema}.ads (like public.ads including defaults including generated) partition by hash (id)`)
  for (let i = 0; i < n; i++) {
    await client.query(`create table ${schema}.ads_${i} partition of ${schema}.ads for values with (modulus ${n}, remainder ${i})`)
  }
  await client.query(`insert into ${schema}.ads (${columns}) select ${columns} from public.ads`)
  // The keyword search's indexes, as on `public.ads` (partitioned: one per partition).
  for (const library of ["social", "pinboard", "clipapp", "search"]) {
    await client.query(`create index on ${schema}.ads using gin (search_vector, countries, status) where library = '${library}'`)
  }
  await client.query(`create index on ${schema}.ads (library, first_seen desc, id desc)`)
  await client.query(`alter table ${schema}.ads add primary key (id)`)
  await client.query(`analyze ${schema}.ads`)
}

/** Rows the page's id-picking step reads: every scan node's actual rows, over all loops. */
const rowsRead = async (client: pg.Client, schema: string, q: string, country: string) => {
  const plan = (await client.query(`explain (analyze, format json)
    select a.id from ${schema}.ads a
     where a.library = 'social' and a.search_vector @@ websearch_to_tsquery('english', $1) and a.countries && $2::text[] and a.status = 'active'
     order by ts_rank(a.search_vector, websearch_to_tsquery('english', $1)) desc, a.id desc limit 21`, [q, [country]])).rows[0]["QUERY PLAN"][0].Plan
  let rows = 0
  const walk = (node: any) => {
    if (/Scan$/.test(node["Node Type"]) && !/Bitmap Index Scan/.test(node["Node Type"])) rows += node["Actual Rows"] * node["Actual Loops"]
    for (const child of node.Plans ?? []) walk(child)
  }
  walk(plan)
  return rows
}

/** The ad search repository over `schema`'s `ads` (then `public`'s other tables), read-only. */
const repositoryOn = (url: string, schema: string) =>
  AdSearchRepo.Default.pipe(Layer.provide(
    Layer.effect(ReadSql, PgClient.PgClient).pipe(Layer.provide(PgClient.layerFromPool({
      acquire: Effect.acquireRelease(
        Effect.sync(() => new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${schema},public -c default_transaction_read_only=on` })),
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

const main = () =>
  withBenchDatabase("fanout", async (url, _dir, loaded) => {
    console.log(`Fan-out of a keyword search, scale ${scaleName} (${scales[scaleName].ads.toLocaleString("en")} ads).`)
    if (!loaded) {
      await importWorld(url, { scale: scaleName, seed: 1, only: ["stores", "landers", "advertisers", "ads"] })
    }
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const total = Number((await client.query<{ n: string }>(`select count(*)::text as n from ads where library = 'social'`)).rows[0]!.n)
      const every = Math.max(1, Math.floor(total / samples))
      const picked = (await client.query<{ headline: string }>(
        `select headline from (select headline, row_number() over (order by id) as r from ads where library = 'social') t
          where r % $1 = 0 order by r limit $2`, [every, samples]
      )).rows.map((r) => keywordsOf(r.headline)).filter((q) => q.length > 0)
      if (picked.length === 0) throw new Error(`no social ad headline with a word of five letters in the ${scaleName} world`)
      for (const n of partitionCounts) {
        if (n > 1) {
          const started = performance.now()
          await partitioned(client, n)
          console.log(`  copied into ${n} hash partitions in ${((performance.now() - started) / 1000).toFixed(1)} s`)
        }
      }
      console.log("")
      console.log("partitions   n   p50 ms   p95 ms   p95 / N=1   rows read per search")
      let baseline = Number.NaN
      for (const n of partitionCounts) {
        const schema = schemaOf(n)
        const times = await Effect.runPromise(Effect.gen(function*() {
          // Warm: each search once, untimed.
          for (const [i, q] of picked.entries()) yield* search(q, countries[i % countries.length]!)
          const out: Array<number> = []
          for (const [i, q] of picked.entries()) out.push(yield* search(q, countries[i % countries.length]!))
          return out
        }).pipe(Effect.provide(repositoryOn(url, schema))))
        let rows = 0
        for (const [i, q] of picked.entries()) rows += await rowsRead(client, schema, q, countries[i % countries.length]!)
        const p95 = percentile(times, 95)
        if (n === 1) baseline = p95
        console.log(
          `${String(n).padStart(10)} ${String(times.length).padStart(3)} ${percentile(times, 50).toFixed(1).padStart(8)} ${p95.toFixed(1).padStart(8)}` +
            `   ${(p95 / baseline).toFixed(2).padStart(8)}x   ${Math.round(rows / picked.length).toLocaleString("en").padStart(12)}`
        )
      }
      for (const n of partitionCounts) if (n > 1) await client.query(`drop schema ${schemaOf(n)} cascade`)
    } finally {
      await client.end()
    }
  })

runBench(main)
