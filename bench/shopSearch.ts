/**
 * `npm run bench:shop-search`: the short-video shop's suggestions, search and
 * trending at scale (BENCH_SCALE, default bench: 200,000 products, 5,000 shops, 20,000 creators,
 * 90 days of metrics). Loads the shop records through the ingestion path into an embedded
 * PostgreSQL (BENCH_DATA_DIR keeps it between runs, loaded once), then runs each route's
 * service call BENCH_RUNS times (default 15): the median and worst time of each, and every
 * statement it ran with the indexes it read, as run (EXPLAIN ANALYZE; BENCH_VERBOSE prints the
 * plans). Suggestions are asked on every keystroke: each should take a few milliseconds and no
 * statement of theirs may read a large table whole. BENCH_ROUTES=suggestions,search,trending
 * picks the routes (default all), BENCH_PREFIXES=s|ser the suggestions' prefixes. BENCH_DATABASE_URL:
 * a database that already holds the shop records (as `npm run bench:shop` leaves it), measured
 * as it is.
 */
import { SqlClient } from "@effect/sql"
import * as Statement from "@effect/sql/Statement"
import { Clock, ConfigProvider, Effect, Layer, Redacted, Schema, Stream } from "effect"
import { IngestRepo } from "../src/ingest/IngestRepo.js"
import { Ingest } from "../src/ingest/Ingest.js"
import * as Database from "../src/platform/db/Database.js"
import { ensureDatabase, startCluster } from "../src/platform/db/EmbeddedPostgres.js"
import { type ScaleName, scales, world } from "../src/demo/World.js"
import { AccountId } from "../src/kernel/Ids.js"
import { ShopRecordId } from "../src/shop/catalog/Entities.js"
import { ShopSearch } from "../src/shop/search/ShopSearch.js"
import { runBench, sumAhead, withScratchDatabase } from "./Scratch.js"

const scaleName = (process.env["BENCH_SCALE"] ?? "bench") as ScaleName
const runs = Number(process.env["BENCH_RUNS"] ?? 15)
/** Which routes to measure (BENCH_ROUTES=suggestions,search,trending; default all). */
const routes = process.env["BENCH_ROUTES"]?.split(",") ?? ["suggestions", "search", "trending"]
/**
 * The world's today; the service's clock is set to it, and what is summed ahead is computed for
 * it. A world kept in BENCH_DATA_DIR is loaded once and ages: its metrics end on its first day.
 */
const today = new Date().toISOString().slice(0, 10)
const shopEntities = ["shop-categories", "shop-shops", "shop-creators", "shop-products", "shop-metrics"] as const

/** The shop records of the world, once per database (`service_state` remembers it). */
const load = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const marker = `bench.shopSearch.${scaleName}`
  if ((yield* sql`select 1 from service_state where key = ${marker}`).length > 0) return
  const ingest = yield* Ingest
  const generated = world({ scale: scales[scaleName], seed: 1, today })
  for (const entity of shopEntities) {
    const t = performance.now()
    const report = yield* ingest.records(entity, Stream.fromIterable(generated.records[entity]()))
    console.log(`${entity.padEnd(16)} ${String(report.accepted).padStart(9)} loaded in ${((performance.now() - t) / 1000).toFixed(1)} s`)
  }
  yield* sql`analyze`
  yield* sql`insert into service_state (key, value, updated_at) values (${marker}, 'true', ${new Date()})`
}).pipe(Effect.orDie)

/** Effect's clock, reading the world's today (sleeping as usual). */
const clockAt = (day: string): Clock.Clock => {
  const millis = Date.parse(`${day}T12:00:00Z`)
  return Object.assign(Object.create(Clock.make()), { unsafeCurrentTimeMillis: () => millis, currentTimeMillis: Effect.succeed(millis) })
}

/** The statements an effect runs, as it runs them. */
const statementsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const seen: Array<readonly [string, ReadonlyArray<unknown>]> = []
    return effect.pipe(
      Statement.withTransformer((statement) => Effect.sync(() => (seen.push(statement.compile()), statement))),
      Effect.as(seen)
    )
  })

/** BENCH_VERBOSE: each statement's plan, as EXPLAIN ANALYZE shows it. */
const verbose = process.env["BENCH_VERBOSE"] !== undefined

/**
 * The indexes a statement reads, and the tables it reads whole, as run (EXPLAIN ANALYZE: a
 * part of the plan PostgreSQL skipped, "never executed", reads nothing); its planning time.
 */
const planOf = (text: string, params: ReadonlyArray<unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql.unsafe<{ "QUERY PLAN": string }>(`explain (analyze, timing off, buffers off) ${text}`, params as Array<any>), (rows) => {
      const lines = rows.map((r) => r["QUERY PLAN"])
      if (verbose) console.log(lines.map((line) => `        ${line}`).join("\n"))
      const ran = lines.filter((line) => !line.includes("never executed")).join("\n")
      const indexes = [...new Set([...ran.matchAll(/(?:Index Scan|Index Only Scan|Bitmap Index Scan) (?:Backward )?(?:using|on) (\w+)/g)].map((m) => m[1]!))]
      const whole = [...new Set([...ran.matchAll(/Seq Scan on (\w+)/g)].map((m) => m[1]!))]
      const planning = Number(/Planning Time: ([\d.]+)/.exec(lines.join("\n"))?.[1] ?? 0)
      return { indexes, whole, planning }
    }))

const large = new Set(["shop_products", "shop_creators", "shop_product_daily", "shop_creator_daily"])

const measure = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>, show?: (a: A) => string) =>
  Effect.gen(function*() {
    const first = yield* effect
    const statements = yield* statementsOf(effect)
    const times: Array<number> = []
    for (let i = 0; i < runs; i++) {
      const t = performance.now()
      yield* effect
      times.push(performance.now() - t)
    }
    times.sort((a, b) => a - b)
    const plans = yield* Effect.forEach(statements, ([text, params]) => planOf(text, params))
    const indexes = [...new Set(plans.flatMap((p) => p.indexes))]
    const whole = [...new Set(plans.flatMap((p) => p.whole))].filter((t) => large.has(t))
    console.log(
      `  ${name.padEnd(52)} median ${times[Math.floor(times.length / 2)]!.toFixed(1).padStart(7)} ms  worst ${times.at(-1)!.toFixed(1).padStart(7)} ms` +
        `  ${statements.length} statement(s), planned in ${plans.reduce((n, p) => n + p.planning, 0).toFixed(1)} ms; indexes: ${indexes.join(", ") || "none"}${whole.length > 0 ? `; READS WHOLE ${whole.join(", ")}` : ""}`
    )
    if (show !== undefined) console.log(`      ${show(first)}`)
    return { median: times[Math.floor(times.length / 2)]!, whole: whole.length }
  })

const account = Schema.decodeUnknownSync(AccountId)("00000000-0000-0000-0000-000000000000")

const program = Effect.gen(function*() {
  const search = yield* ShopSearch
  if (routes.includes("suggestions")) yield* suggestions(search)
  if (routes.includes("search")) yield* searches(search)
  if (routes.includes("trending")) yield* trending(search)
}).pipe(Effect.withClock(clockAt(today)))

const suggestions = (search: ShopSearch) =>
  Effect.gen(function*() {
  console.log(`\nSuggestions (types all, limit 10, US; ${runs} runs each):`)
  const prefixes = (process.env["BENCH_PREFIXES"]?.split("|")) ?? ["s", "se", "ser", "serum", "Vitamin C", "vitamin c serum (bl", "z", "zq", "q", "x", "@", "@its", "glow", "premium", "2-pack", "bundle", "mat", "(bl", "zzzz"]
  let slow = 0
  for (const prefix of prefixes) {
    const r = yield* measure(
      `prefix ${JSON.stringify(prefix)}`,
      search.suggestions(account, { prefix, country: "US" }),
      (answer) => answer.data.slice(0, 5).map((s) => `${s.type}: ${s.text}`).join(" | ")
    )
    if (r.median > 50 || r.whole > 0) slow++
  }
  // What bench/shop.ts asks: the first three letters of product titles, one after another.
  const titles = Array.from(world({ scale: scales[scaleName], seed: 1, today }).records["shop-products"](), (p) => (p as { title: string }).title)
  const threes = [...new Set(titles.filter((_, i) => i % 397 === 0).map((t) => t.slice(0, 3)))]
  const each: Array<number> = []
  for (const prefix of threes) {
    for (let i = 0; i < runs; i++) {
      const t = performance.now()
      yield* search.suggestions(account, { prefix, country: "US" })
      each.push(performance.now() - t)
    }
  }
  each.sort((a, b) => a - b)
  console.log(`  ${`3-letter title prefixes (${threes.length}: ${threes.join(", ")})`.slice(0, 52).padEnd(52)} median ${each[Math.floor(each.length / 2)]!.toFixed(1).padStart(7)} ms  p95 ${each[Math.floor(each.length * 0.95)]!.toFixed(1).padStart(7)} ms`)
  for (const prefix of ["s", "ser", "zq"]) {
    yield* measure(`prefix ${JSON.stringify(prefix)}, products only, limit 20`, search.suggestions(account, { prefix, country: "US", types: ["products"], limit: 20 }))
  }
  console.log(slow === 0 ? "  Every prefix answered within 50 ms from indexes." : `  ${slow} prefix(es) slower than 50 ms or reading a large table whole.`)

  })

const searches = (search: ShopSearch) =>
  Effect.gen(function*() {
  console.log(`\nSearch (US, page_size 20):`)
  for (const q of ["serum", "vitamin c serum", "yoga mat black", "juicer", "premium resistance band set bundle", "bundle", "zzzz"]) {
    yield* measure(`q ${JSON.stringify(q)}`, search.search(account, { q, country: "US" }))
  }
  yield* measure(`q "serum", page 50 of 20`, search.search(account, { q: "serum", country: "US", page: 50 }))

  })

const trending = (search: ShopSearch) =>
  Effect.gen(function*() {
  console.log(`\nTrending (US, page_size 20):`)
  for (const metric of ["gmv", "units", "views"] as const) {
    for (const days of [7, 30, 90]) {
      yield* measure(`${metric} over ${days} days`, search.trending(account, { metric, days, country: "US" }))
    }
  }
  yield* measure(`gmv over 7 days, in a level-1 category`, search.trending(account, { country: "US", category_id: ShopRecordId.make("cat-US-beauty") }))
  })

const withDatabase = async (use: (url: string) => Promise<void>) => {
  const existing = process.env["BENCH_DATABASE_URL"]
  if (existing !== undefined) return use(existing)
  const dir = process.env["BENCH_DATA_DIR"]
  if (dir === undefined) return withScratchDatabase("shopsearch", use)
  const cluster = await startCluster({ dataDir: dir, persistent: true })
  await ensureDatabase(cluster.adminUrl, "shopsearch")
  try {
    await use(cluster.urlFor("shopsearch"))
  } finally {
    await cluster.stop()
  }
}

runBench(() =>
  withDatabase(async (url) => {
    const db = Database.clientLayer(Redacted.make(url)).pipe(Layer.tap((context) => Effect.provide(Database.migrate, context)))
    const run = <A, E>(effect: Effect.Effect<A, E, Ingest | IngestRepo | ShopSearch | SqlClient.SqlClient>) =>
      Effect.runPromise(
        effect.pipe(
          Effect.provide(Layer.mergeAll(Ingest.Default, IngestRepo.Default, ShopSearch.Default).pipe(Layer.provideMerge(db))),
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map())),
          Effect.orDie
        ) as Effect.Effect<A>
      )
    console.log(`Scale ${scaleName}: ${JSON.stringify(scales[scaleName])}`)
    if (process.env["BENCH_DATABASE_URL"] === undefined) await run(load)
    const summed = await sumAhead(url)
    console.log(`Rollups and suggestions summed ahead: ${summed.computed} computed in ${summed.seconds.toFixed(1)} s`)
    await run(program)
  })
)
