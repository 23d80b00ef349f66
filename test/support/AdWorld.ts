import { Effect, Layer, Logger, Stream, TestContext } from "effect"
import pg from "pg"
import { inject } from "vitest"
import { Ingest } from "../../src/ingest/Ingest.js"
import { DemoData } from "../../src/demo/DemoData.js"
import { scales, world } from "../../src/demo/World.js"
import { advertisers, landers, stores } from "../fixtures/world.js"
import { clientOn, createDatabase, databaseName, databaseUrl, dropDatabase, sealTemplate, TestDatabaseUrl, withAdmin } from "./RunDatabases.js"
import { cloneOf, TestDatabase } from "./TestDatabase.js"
import { call, testServer, type TestServerOptions } from "./TestServer.js"

/**
 * The small demo world the ad tests search, as their servers load it: the server's clock is a
 * TestClock at 0, so "today" is 1970-01-01. Tests compute what they expect from these records.
 */
export const smallWorld = world({ seed: 7, today: "1970-01-01", scale: scales.small })

/** Ingests records of one entity; every one must be accepted. */
export const ingestAll = (entity: "stores" | "landers" | "advertisers" | "ads", records: ReadonlyArray<unknown>) =>
  Effect.flatMap(Ingest, (ingest) => Effect.zipLeft(ingest.records(entity, Stream.fromIterable(records)), ingest.settled)).pipe(
    Effect.tap((report) => report.rejected === 0 ? Effect.void : Effect.dieMessage(JSON.stringify(report.errors.slice(0, 3))))
  )

/** The hand-written store, lander and advertisers that `fixtures/world.ts`'s `ad(...)` links to. */
export const fixtureReferences = Effect.gen(function*() {
  yield* ingestAll("stores", stores)
  yield* ingestAll("landers", landers)
  yield* ingestAll("advertisers", advertisers)
})

/** The small demo world, then the fixture references. */
export const loadSmallWorld = Effect.gen(function*() {
  yield* Effect.flatMap(DemoData, (demo) => demo.load({ scale: "small", seed: 7 }))
  yield* fixtureReferences
  yield* Effect.flatMap(Ingest, (ingest) => ingest.settled)
})

/** `POST /api/v1/magic-ai` with a JSON body; the answer and its parsed body. */
export const magicAi = (key: string, body: unknown) =>
  Effect.map(
    call("/api/v1/magic-ai", { method: "POST", headers: { "X-API-Key": key, "content-type": "application/json" }, body: JSON.stringify(body) }),
    (answer) => ({ ...answer, json: JSON.parse(answer.body) })
  )

/** The server of `smallWorldServer`, over the database `database` gives. */
export const smallWorldServerOn = <E, R>(database: Layer.Layer<Layer.Layer.Success<typeof TestDatabase>, E, R>, options: TestServerOptions) =>
  Layer.mergeAll(testServer({ ...options, config: { rateLimitPerMinute: 100_000, ...options.config } }), DemoData.Default).pipe(
    Layer.provideMerge(Ingest.Default),
    Layer.provideMerge(database)
  )

/**
 * A test server that can load the small world: no rate limit in the way of walks and loops,
 * the demo loader and the ingestion path, on a fresh database.
 */
export const smallWorldServer = (options: TestServerOptions = {}) => smallWorldServerOn(TestDatabase, options)

/** What `@effect/vitest`'s `layer()` builds a file's layers with: a TestClock at 0, no default logger. */
const testEnv = TestContext.TestContext.pipe(Layer.provide(Logger.remove(Logger.defaultLogger)))

/**
 * The template holding the small world, loaded by the first file of the run that asks, exactly
 * as a file's layer loaded it (`smallWorldServer` with `loadSmallWorld`, under a TestClock at 0);
 * a file that asks meanwhile waits on the run's lock (held in PostgreSQL, no polling), later ones
 * find it. Loaded under another name and renamed, so a load cut off is never taken for the world.
 */
const smallWorldTemplate: Effect.Effect<string> = Effect.gen(function*() {
  const adminUrl = inject("adminDatabaseUrl")
  const runId = inject("testRunId")
  const template = databaseName("world", runId)
  const loading = databaseName("worldload", runId)
  const load = Effect.gen(function*() {
    yield* dropDatabase(adminUrl, loading)
    yield* createDatabase(adminUrl, loading, databaseName("template", runId))
    const server = smallWorldServerOn(clientOn.pipe(Layer.provideMerge(Layer.succeed(TestDatabaseUrl, databaseUrl(adminUrl, loading)))), {})
    // Released before the rename: the server's connections are closed when the scope is.
    yield* Effect.orDie(Effect.scoped(Layer.build(Layer.effectDiscard(loadSmallWorld).pipe(Layer.provideMerge(server), Layer.provideMerge(testEnv)))))
    yield* sealTemplate(adminUrl, loading)
    yield* withAdmin(adminUrl, (client) => client.query(`alter database ${pg.escapeIdentifier(loading)} rename to ${pg.escapeIdentifier(template)}`))
  })
  yield* Effect.acquireUseRelease(
    // A session lock on a connection of its own: released when that connection ends, also when this worker dies.
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: adminUrl })
      await client.connect()
      await client.query("select pg_advisory_lock(hashtext($1))", [template])
      return client
    }),
    (client) =>
      Effect.flatMap(
        Effect.promise(() => client.query("select 1 from pg_database where datname = $1", [template])),
        (found) => found.rowCount === 0 ? load : Effect.void
      ),
    (client) => Effect.promise(() => client.end())
  )
  return template
})

/** `TestDatabase` holding the small world already: a clone of the run's world template. */
export const SmallWorldDatabase = clientOn.pipe(Layer.provideMerge(cloneOf(smallWorldTemplate)))

/**
 * The same server with the small world loaded as the layer is built: every test of a file
 * that uses it finds the world there, whichever runs first or alone. The world is the run's
 * template, loaded once and cloned for each file.
 */
export const loadedSmallWorldServer = (options: TestServerOptions = {}) => smallWorldServerOn(SmallWorldDatabase, options)

/** A record of the small world, as its generator wrote it. */
export type WorldRecord = Record<string, any>

/** Every record of one entity of the small world. */
export const recordsOf = (entity: keyof typeof smallWorld.records) => Array.from(smallWorld.records[entity]()) as Array<WorldRecord>

const series = new Map(recordsOf("shop-metrics").map((m) => [`${m.subject}|${m.region}|${m.external_id}`, m.series as Array<WorldRecord>]))

/** A record's generated daily series (empty without one). */
export const seriesOf = (subject: string, region: string, externalId: string) => series.get(`${subject}|${region}|${externalId}`) ?? []

/** Brute force: a record's metric summed over `from`..`to` from its generated daily series; null without data. */
export const sumOver = (subject: string, record: WorldRecord, metric: string, from: string, to: string) => {
  const points = (series.get(`${subject}|${record.region}|${record.external_id}`) ?? [])
    .filter((p) => p.day >= from && p.day <= to && p[metric] != null)
  return points.length === 0 ? null : points.reduce((n, p) => n + p[metric], 0)
}

/** Brute force: a category and every category below it, by id within a region. */
export const subtreeOf = (region: string, id: string): Set<string> => {
  const categories = recordsOf("shop-categories")
  const walk = (at: string): Array<string> =>
    [at, ...categories.filter((c) => c.region === region && c.parent_external_id === at).flatMap((c) => walk(c.external_id))]
  return new Set(walk(id))
}
