import { SqlClient } from "@effect/sql"
import { ConfigProvider, Duration, Effect, Layer, Redacted } from "effect"
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { copyFile, mkdtemp, open, readdir, readFile, rm } from "node:fs/promises"
import * as http from "node:http"
import * as net from "node:net"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Accounts } from "../src/access/accounts/Accounts.js"
import { AppConfig } from "../src/platform/AppConfig.js"
import * as Database from "../src/platform/db/Database.js"
import { databaseMode } from "../src/platform/db/mode/DatabaseMode.js"
import type { ReadSql, ReadYourWrites } from "../src/platform/db/Replicas.js"
import { type DemoOptions, DemoData } from "../src/demo/DemoData.js"
import { Ingest } from "../src/ingest/Ingest.js"
import { type Cluster, ensureDatabase, startCluster } from "../src/platform/db/EmbeddedPostgres.js"
import { ShopRollups } from "../src/shop/search/ShopRollups.js"
import { progressLine } from "../src/platform/Progress.js"
import { citusCluster, citusInstalled } from "../test/support/CitusCluster.js"

/** What every benchmark server and its accounts share. */
export const secret = "bench-key-encryption-secret-0123456789"

/**
 * What an interrupted benchmark (Ctrl-C, SIGTERM) undoes before it exits, newest first: its
 * server, its PostgreSQL, its directory. Without it they outlived it (a million-ad world is
 * 6.5 GB in the temporary directory, and two processes).
 */
const undo = new Set<() => Promise<unknown>>()
let interrupted = false
/** Registers `cleanup` for an interruption; the function returned forgets it (the work ended by itself). */
export const onInterrupt = (cleanup: () => Promise<unknown>) => {
  undo.add(cleanup)
  return () => undo.delete(cleanup)
}
for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  process.once(signal, () => {
    interrupted = true
    console.error(`\n${signal}: stopping the benchmark's server and database…`)
    const cleanups = [...undo].reverse()
    undo.clear()
    void cleanups.reduce((done, cleanup) => done.then(cleanup).catch(() => undefined), Promise.resolve<unknown>(undefined))
      .then(() => process.exit(code))
  })
}

/** A fresh directory under the system's temporary one, removed with everything in it after `use`. */
export const withTempDir = async <A>(name: string, use: (dir: string) => Promise<A>): Promise<A> => {
  const dir = await mkdtemp(path.join(tmpdir(), `adintel-${name}-`))
  const remove = () => rm(dir, { recursive: true, force: true })
  const forget = onInterrupt(remove)
  try {
    return await use(dir)
  } catch (error) {
    // The servers' logs outlive a failed run (not its databases: a million ads are gigabytes).
    const kept = await mkdtemp(path.join(tmpdir(), `adintel-${name}-failed-`))
    const logs = (await readdir(dir)).filter((file) => file.endsWith(".log"))
    await Promise.all(logs.map((file) => copyFile(path.join(dir, file), path.join(kept, file))))
    if (logs.length > 0) console.error(`The run failed; its logs are kept in ${kept}`)
    throw error
  } finally {
    forget()
    await remove()
  }
}

/** The scratch clusters by their databases' URLs: what `BENCH_REPLICA` makes a replica of. */
const scratchClusters = new Map<string, { readonly cluster: Cluster; readonly dir: string; readonly database: string }>()

/**
 * `BENCH_ADMIN_URL`: a running PostgreSQL (a URL with the right to create databases) that holds
 * the scratch database instead of an embedded cluster started for the run, and `BENCH_TEMPLATE`
 * an already migrated database there to clone it from. The test run passes its own cluster and
 * template (test/support/Benchmark.ts), so that a benchmark at the small scale spends its time on
 * what it measures, not on `initdb`. The PostgreSQL CPU figures are then the whole server's.
 * Not with `BENCH_REPLICA`, which copies the scratch database's cluster.
 */
const sharedServer = () => process.env["BENCH_REPLICA"] === "1" ? undefined : process.env["BENCH_ADMIN_URL"]

/** A database made on `adminUrl`'s server (a clone of `BENCH_TEMPLATE` when set), dropped after `use`. */
const withDatabaseOn = <A>(adminUrl: string, name: string, use: (url: string, dir: string) => Promise<A>): Promise<A> =>
  withTempDir(name, async (dir) => {
    const { default: pg } = await import("pg")
    const database = `bench_${randomBytes(6).toString("hex")}`
    const template = process.env["BENCH_TEMPLATE"]
    const admin = async (statement: string) => {
      const client = new pg.Client({ connectionString: adminUrl })
      await client.connect()
      try {
        await client.query(statement)
      } finally {
        await client.end()
      }
    }
    const drop = () => admin(`drop database if exists ${pg.escapeIdentifier(database)} with (force)`)
    await admin(`create database ${pg.escapeIdentifier(database)}${template === undefined ? "" : ` template ${pg.escapeIdentifier(template)}`}`)
    const forget = onInterrupt(drop)
    const url = new URL(adminUrl)
    url.pathname = `/${database}`
    try {
      return await use(url.toString(), dir)
    } finally {
      forget()
      await drop()
    }
  })

/**
 * A fresh embedded PostgreSQL with one database, removed after `use` whatever happens (or a
 * database on `BENCH_ADMIN_URL`'s server, see `sharedServer`).
 */
export const withScratchDatabase = <A>(name: string, use: (url: string, dir: string) => Promise<A>): Promise<A> => {
  const shared = sharedServer()
  return shared === undefined ? withEmbeddedDatabase(name, use) : withDatabaseOn(shared, name, use)
}

const withEmbeddedDatabase = <A>(name: string, use: (url: string, dir: string) => Promise<A>): Promise<A> =>
  withTempDir(name, async (dir) => {
    const cluster = await startCluster({ dataDir: dir, persistent: false })
    const forget = onInterrupt(() => cluster.stop())
    const url = cluster.urlFor(name)
    try {
      await ensureDatabase(cluster.adminUrl, name)
      scratchClusters.set(url, { cluster, dir, database: name })
      return await use(url, dir)
    } finally {
      forget()
      await stopReplica(url)
      scratchClusters.delete(url)
      await cluster.stop()
    }
  })

const replicas = new Map<string, Cluster>()

/**
 * `BENCH_REPLICA=1` (issue 31): a streaming replica of the scratch database's cluster, started
 * once (after the world is loaded: the server's first start) and caught up before it is used;
 * the server gets it as `DATABASE_REPLICA_URLS`. Not for `BENCH_DATABASE_URL`, whose cluster
 * another process runs.
 */
const replicaOf = async (url: string): Promise<string | undefined> => {
  if (process.env["BENCH_REPLICA"] !== "1") return undefined
  const scratch = scratchClusters.get(url)
  if (scratch === undefined) throw new Error("BENCH_REPLICA needs a scratch database (unset BENCH_DATABASE_URL)")
  let replica = replicas.get(url)
  if (replica === undefined) {
    replica = await startCluster({ dataDir: path.join(scratch.dir, "replica"), persistent: false, replicaOf: scratch.cluster })
    replicas.set(url, replica)
    onInterrupt(() => stopReplica(url))
    await caughtUp(scratch.cluster.adminUrl, replica.adminUrl)
    console.log("  a streaming replica serves the research reads (BENCH_REPLICA=1, DATABASE_REPLICA_URLS)")
  }
  return replica.urlFor(scratch.database)
}

const stopReplica = async (url: string) => {
  const replica = replicas.get(url)
  replicas.delete(url)
  await replica?.stop()
}

/** Waits until the replica has replayed what the primary has written so far. */
const caughtUp = async (primaryUrl: string, replicaUrl: string) => {
  const { default: pg } = await import("pg")
  const [primary, replica] = [new pg.Client({ connectionString: primaryUrl }), new pg.Client({ connectionString: replicaUrl })]
  await Promise.all([primary.connect(), replica.connect()])
  try {
    const { rows: [{ lsn }] } = await primary.query<{ lsn: string }>("select pg_current_wal_lsn()::text as lsn")
    for (let i = 0; ; i++) {
      const { rows: [{ done }] } = await replica.query<{ done: boolean }>("select pg_last_wal_replay_lsn() >= $1::pg_lsn as done", [lsn])
      if (done) return
      if (i > 6_000) throw new Error("the replica did not catch up in 10 minutes")
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  } finally {
    await Promise.all([primary.end(), replica.end()])
  }
}

/**
 * The database a benchmark measures: `BENCH_DATABASE_URL` when set (a world loaded earlier, to
 * measure again without loading; `loaded` is true), else a fresh scratch one to load.
 */
export const withBenchDatabase = <A>(name: string, use: (url: string, dir: string, loaded: boolean) => Promise<A>): Promise<A> => {
  const existing = process.env["BENCH_DATABASE_URL"]
  return existing === undefined
    ? withScratchDatabase(name, (url, dir) => use(url, dir, false))
    : withTempDir(name, (dir) => use(existing, dir, true))
}

/** The scratch Citus clusters `withCitusDatabase` started: each node's name and URL, by the coordinator's database URL. */
const citusNodes = new Map<string, ReadonlyArray<readonly [name: string, url: string]>>()

/** The servers that hold the database at `url`: a scratch Citus cluster's nodes, coordinator first, else its one server. */
export const serversOf = (url: string): ReadonlyArray<readonly [name: string, url: string]> => citusNodes.get(url) ?? [["PostgreSQL", url]]

/**
 * A fresh Citus cluster on this machine (issue 45): a coordinator and two workers of Debian's
 * PostgreSQL 15 with Citus (test/support/CitusCluster.ts), stopped and removed after `use`
 * whatever happens, interrupted too. `use` gets the coordinator's database.
 */
const withCitusDatabase = <A>(name: string, use: (url: string, dir: string) => Promise<A>): Promise<A> => {
  if (!citusInstalled()) throw new Error("BENCH_DATABASES=citus: Citus is not installed here (Debian's postgresql-15 with Citus; .ci/run installs it)")
  return withTempDir(name, (dir) =>
    Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const { coordinator, workers } = yield* citusCluster(path.join(dir, "nodes"))
      // Interrupted (Ctrl-C, SIGTERM), the nodes stop too: the scope that would stop them does not close.
      yield* Effect.acquireRelease(
        Effect.sync(() => onInterrupt(() => Promise.all([coordinator, ...workers].map((node) => node.stop())))),
        (forget) => Effect.sync(forget)
      )
      const url = coordinator.adminUrl
      citusNodes.set(url, [["coordinator", url], ...workers.map((worker, i) => [`worker ${i + 1}`, worker.adminUrl] as const)])
      return yield* Effect.ensuring(Effect.promise(() => use(url, dir)), Effect.sync(() => citusNodes.delete(url)))
    }))))
}

const databaseKinds = ["single", "citus"] as const

/**
 * `BENCH_DATABASES` (issue 45): the databases a benchmark measures, one after the other in one
 * run, so that their figures compare: `single` (one PostgreSQL, as `withBenchDatabase` gives
 * it) and `citus` (a fresh coordinator and two workers); `fallback` when unset.
 */
export const benchDatabases = (fallback = "single") => {
  const names = (process.env["BENCH_DATABASES"] ?? fallback).split(",").map((name) => name.trim())
  for (const name of names) {
    if (!(databaseKinds as ReadonlyArray<string>).includes(name)) throw new Error(`BENCH_DATABASES: ${JSON.stringify(name)} is neither single nor citus`)
  }
  return names as ReadonlyArray<typeof databaseKinds[number]>
}

/** What `eachBenchDatabase` prints above each database's figures. */
const headings = {
  single: "One PostgreSQL",
  citus: "Citus: a coordinator and two workers on this machine (CPU figures: every node's together)"
} as const

/**
 * Runs `use` on each database `BENCH_DATABASES` names (`benchDatabases`), each headed by what it
 * is when there are several or it is a cluster. A cluster is always fresh (`loaded` false).
 */
export const eachBenchDatabase = async (
  name: string,
  use: (url: string, dir: string, loaded: boolean) => Promise<void>,
  fallback = "single"
) => {
  const databases = benchDatabases(fallback)
  for (const database of databases) {
    if (databases.length > 1 || database === "citus") console.log(`\n== ${headings[database]} ==`)
    if (database === "citus") await withCitusDatabase(name, (url, dir) => use(url, dir, false))
    else await withBenchDatabase(name, use)
  }
}

/** Runs a benchmark's main function; a failure prints and exits 1 (unless the benchmark was interrupted). */
export const runBench = (main: () => Promise<void>) =>
  main().catch((error) => {
    // Interrupted: its requests failed as its server stopped; the interruption exits.
    if (interrupted) return
    console.error(error)
    process.exit(1)
  })

/** A free loopback port. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })

/** Premium accounts made straight in the database (migrating it first); their clear keys. */
export const createAccounts = (url: string, count: number) =>
  Effect.gen(function*() {
    // A database may be measured again (BENCH_DATABASE_URL): each run's accounts are its own.
    const run = Date.now().toString(36)
    const accounts = yield* Accounts
    return yield* Effect.forEach(
      Array.from({ length: count }, (_, i) => i),
      (i) => Effect.map(accounts.create({ email: `bench-${run}-${i}@example.com`, plan: "premium" }), (a) => a.api_key),
      { concurrency: 8 }
    )
  }).pipe(
    Effect.provide(Accounts.Default),
    Effect.provide(AppConfig.layer),
    Effect.provide(Database.clientLayer(Redacted.make(url)).pipe(Layer.tap((c) => Effect.provide(Database.migrate, c)))),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["KEY_ENCRYPTION_SECRET", secret]]))),
    Effect.orDie,
    Effect.runPromise
  )

/**
 * Whether the server answers `/health`, on a connection closed after it. Through `fetch` the
 * connection stayed in its pool: a benchmark that then worked for 5 s without yielding (drawing
 * its queries from a large world) sent its first request on a socket the server had closed
 * meanwhile, and got "other side closed" (the 1M and 10M runs' "no answer" at warm-up).
 */
const answersHealth = (port: number) =>
  new Promise<boolean>((resolve) => {
    http.get({ host: "127.0.0.1", port, path: "/health", agent: false }, (response) => {
      response.resume()
      resolve(response.statusCode === 200)
    }).on("error", () => resolve(false))
  })

/**
 * The server as its own process, started on a free loopback port, once it answers `/health`:
 * its pid, port and `stop`. Its log goes to a file (a pipe the busy load generator drains late
 * would block the server's writes and measure the harness instead). A port is free when probed and may be taken before the server binds it (another
 * test's connection, a replica): a start that fails with EADDRINUSE is tried again on another
 * port, up to five times.
 */
export const startServer = async (url: string, logFile: string, env: Record<string, string> = {}) => {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort()
    const started = await startServerOn(url, port, logFile, env, attempt < 5)
    if (started !== "port taken") return { ...started, port }
  }
}

/**
 * How the server is started: as `npm start` does (scripts/run.mjs), or, when this script runs
 * from a compiled tree (its own file is `.js`: the test run's, test/support/CompiledTree.ts), that
 * tree's `src/main.js`.
 */
const serverEntry = () =>
  import.meta.url.endsWith(".js") ? [fileURLToPath(new URL("../src/main.js", import.meta.url))] : ["scripts/run.mjs", "src/main.ts"]

/** The service on `port`, or "port taken" when `retry` and it could not bind it. */
const startServerOn = async (url: string, port: number, logFile: string, env: Record<string, string>, retry: boolean) => {
  // BENCH_PROFILE_DIR=dir writes a CPU profile of the server there.
  const profile = process.env["BENCH_PROFILE_DIR"]
  const flags = profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : []
  const log = await open(logFile, "w")
  const replica = await replicaOf(url)
  const child = spawn(process.execPath, [...flags, ...serverEntry()], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(port),
      KEY_ENCRYPTION_SECRET: secret,
      DEMO_ACCOUNT: "false",
      ...(replica === undefined ? {} : { DATABASE_REPLICA_URLS: replica }),
      ...env
    },
    stdio: ["ignore", log.fd, log.fd]
  })
  let exited = false
  let stopping = false
  let starting = true
  child.once("exit", (code, signal) => {
    exited = true
    if (stopping || starting) return
    // A server that goes away mid-benchmark: say how, with the end of its log (removed with the
    // run's directory), so a request that gets no answer can be read against it.
    void readFile(logFile, "utf8").then((text) =>
      console.error(`The server exited (${signal ?? `code ${code}`}); the end of its log:\n${text.split("\n").slice(-40).join("\n")}`))
  })
  const stop = () =>
    new Promise<void>((done) => {
      stopping = true
      forget()
      if (exited) return void log.close().then(() => done())
      // A server still answering an interrupted benchmark's requests is not waited for long.
      const late = setTimeout(() => child.kill("SIGKILL"), 5_000)
      child.once("exit", () => {
        clearTimeout(late)
        void log.close().then(() => done())
      })
      child.kill("SIGINT")
    })
  const forget = onInterrupt(stop)
  for (let i = 0; ; i++) {
    if (exited) {
      const text = await readFile(logFile, "utf8")
      if (retry && text.includes("EADDRINUSE")) {
        forget()
        await log.close()
        return "port taken" as const
      }
      console.error(`The server exited while starting; the end of its log:\n${text.split("\n").slice(-40).join("\n")}`)
    }
    if (exited || i > 1_200) throw new Error(`server did not start; see ${logFile}`)
    const up = await answersHealth(port)
    if (up) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  starting = false
  return { pid: child.pid!, stop }
}


/**
 * One answer of a timed request: how long it took (the body included), its JSON, and the
 * PostgreSQL CPU time it used when the client was given a meter (bench/Figures.ts).
 */
export interface Timed {
  readonly ms: number
  readonly pgCpuMs?: number | undefined
  readonly json: any
}

/**
 * Requests one at a time to a benchmark server with a key, as an integrator's client would;
 * with `pgCpu` (`pgCpuMeter`), each answer says what PostgreSQL CPU time passed during it.
 */
export const timedFetch = (base: string, key: string, pgCpu?: () => number) => async (route: string, init: RequestInit = {}): Promise<Timed> => {
  const cpuBefore = pgCpu?.()
  const start = performance.now()
  const response = await fetch(base + route, { ...init, headers: { "x-api-key": key, ...init.headers } })
    .catch((error: unknown) => Promise.reject(new Error(`${init.method ?? "GET"} ${route}: no answer`, { cause: error })))
  const json = await response.json()
  const ms = performance.now() - start
  const pgCpuMs = cpuBefore === undefined ? undefined : pgCpu!() - cpuBefore
  if (response.status !== 200) throw new Error(`${route}: ${response.status} ${JSON.stringify(json)}`)
  return { ms, pgCpuMs, json }
}

/** The same, GET without a body and POST with a JSON one. */
export const timedClient = (base: string, key: string, pgCpu?: () => number) => {
  const timed = timedFetch(base, key, pgCpu)
  return (route: string, body?: unknown): Promise<Timed> =>
    timed(route, body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
}

/** A few words of an ad's headline: what a user would type in a keyword search. */
export const keywordsOf = (headline: string) =>
  headline.toLowerCase().split(/[^a-z]+/).filter((w) => w.length > 4).slice(0, 2).join(" ")

export const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}

/**
 * Imports (some entities of) a generated world into a benchmark database, migrating it first.
 * What the import derives after (the ads' trend counts) is left to `settle`, or with
 * `countBeside` counted while the creatives are drawn, as `npm start`'s first load does: then
 * how many seconds the count took.
 */
export const importWorld = (url: string, options: DemoOptions, countBeside = false) =>
  onDatabase(url, Effect.gen(function*() {
    const demo = yield* DemoData
    const ingest = yield* Ingest
    // A line with records per second and the time left, redrawn on a terminal, every 5 s in a log (issue 29).
    const progress = yield* progressLine("  load", "records", 5_000)
    let counted: number | undefined
    const besideCreatives = Effect.map(Effect.timed(ingest.settled), ([took]) => {
      counted = Duration.toSeconds(took)
    })
    yield* demo.load({
      ...options,
      onProgress: ({ done, entity, total }) => progress.update(done, total, entity),
      ...(countBeside ? { besideCreatives } : {})
    })
    yield* progress.finish
    return counted
  }).pipe(Effect.provide(DemoData.Default.pipe(Layer.provideMerge(Ingest.Default)))))

/** Loads (some entities of) a generated world into a benchmark database, migrating it first, and settles it. */
export const loadWorld = (url: string, options: DemoOptions) => importWorld(url, options).then(() => settle(url))

/**
 * What an import derives after it (the ads' trend counts), done now if it is not: the server
 * would count it on start, while the benchmark measures.
 */
export const settle = (url: string) => onDatabase(url, Effect.flatMap(Ingest, (ingest) => ingest.settled).pipe(Effect.provide(Ingest.Default)))

/**
 * What the short-video shop sums ahead (explore rollups, suggestions' strings), computed now
 * if it no longer holds (a new day since the last run): the server would compute it on start,
 * while the benchmark measures. How many it computed, and in how many seconds.
 */
export const sumAhead = (url: string) =>
  onDatabase(url, Effect.timed(Effect.flatMap(ShopRollups, (rollups) => rollups.refreshStale)).pipe(Effect.provide(ShopRollups.Default))).then(
    ([took, computed]) => ({ computed, seconds: Duration.toSeconds(took) })
  )

/** Runs an effect on the database at `url`, migrated first. */
export const onDatabase = <A, E>(url: string, effect: Effect.Effect<A, E, AppConfig | SqlClient.SqlClient | Database.PgListener | ReadSql | ReadYourWrites>) =>
  effect.pipe(
    Effect.provide(AppConfig.layer),
    Effect.provide(Database.clientLayer(Redacted.make(url)).pipe(Layer.tap((c) => Effect.provide(Database.migrate, c)))),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["KEY_ENCRYPTION_SECRET", secret]]))),
    Effect.orDie,
    Effect.runPromise
  )

/** A number setting of a benchmark (`BENCH_*`), or its default. */
export const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback)

/**
 * Rounds of warm-up before `samples` measured ones: `usual`, or `samples` when fewer (a quick
 * run, such as the test's at BENCH_SCALE=small, warms up no longer than it measures).
 */
export const warmUpRounds = (usual: number, samples: number) => Math.min(usual, samples)

/** What one autocannon run measured. */
export interface LoadFigures {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
}

/**
 * Storage as a figure (issue 29): each table's bytes (heap, indexes and TOAST) per ad, and what
 * the trends' tables cost against the ads' own. Read after a load has settled; how many ads.
 */
export const storagePerAd = (url: string) =>
  onDatabase(url, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`vacuum analyze`
    // On a Citus coordinator (issue 45) a distributed table's rows are its shards', on the
    // workers: vacuumed there by naming it, and measured by Citus's own size function.
    const citus = (yield* databaseMode)._tag === "Citus"
    if (citus) yield* sql`vacuum analyze ads`
    const size = citus
      ? sql`case when c.oid in (select logicalrelid from pg_dist_partition) then citus_total_relation_size(c.oid) else pg_total_relation_size(c.oid) end`
      : sql`pg_total_relation_size(c.oid)`
    const tables = ["ads", "trend_days", "trend_series", "trend_rankings", "trend_terms", "trend_cells", "trend_pending"]
    const [{ ads }] = yield* sql<{ ads: number }>`select count(*)::int as ads from ads`
    const sizes = yield* sql<{ name: string; bytes: string }>`
      select c.relname as name, ${size}::text as bytes
        from pg_class c where c.relname = any(${tables}) and c.relkind = 'r'`
    return { ads: ads ?? 0, sizes: new Map(sizes.map((s) => [s.name, Number(s.bytes)])), tables }
  })).then(({ ads, sizes, tables }) => {
    const per = (bytes: number) => (bytes / Math.max(1, ads)).toFixed(0).padStart(7)
    console.log(`\nStorage, bytes per ad (${ads.toLocaleString("en")} ads; heap, indexes and TOAST):`)
    for (const table of tables) console.log(`  ${table.padEnd(16)} ${per(sizes.get(table) ?? 0)}`)
    const trends = tables.filter((t) => t.startsWith("trend_")).reduce((n, t) => n + (sizes.get(t) ?? 0), 0)
    console.log(`  trends in all    ${per(trends)}   ${(trends / Math.max(1, sizes.get("ads") ?? 0) * 100).toFixed(1)} % of the ads' own (goal <= 10 %)`)
    return ads
  })
