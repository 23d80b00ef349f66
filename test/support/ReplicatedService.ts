import { expect } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Option, Redacted } from "effect"
import parsePrometheusTextFormat from "parse-prometheus-text-format"
import pg from "pg"
import * as path from "node:path"
import { DemoData } from "../../src/demo/DemoData.js"
import { Ingest } from "../../src/ingest/Ingest.js"
import * as Database from "../../src/platform/db/Database.js"
import { type Cluster, ensureDatabase } from "../../src/platform/db/EmbeddedPostgres.js"
import { ReplicaHealth } from "../../src/platform/db/Replicas.js"
import { loadSmallWorld, recordsOf } from "./AdWorld.js"
import { cluster, eventually } from "./StreamingReplicas.js"
import { tempDir } from "./TempDir.js"
import { call, keyHeader, testServer } from "./TestServer.js"

// What the service-on-a-replica tests share (test/replicaRoutes.test.ts, test/replicaMetering.test.ts).

export class Clusters extends Context.Tag("test/Clusters")<Clusters, { readonly primary: Cluster; readonly replica: Cluster }>() {}

/** A primary with database `adintel` and its replica; the service's client over both (`REPLICA_MAX_LAG` 1 s), migrated. */
export const replicated = Layer.unwrapScoped(Effect.gen(function*() {
  const dir = yield* tempDir("replicated")
  const primary = yield* cluster(path.join(dir, "primary"))
  yield* Effect.promise(() => ensureDatabase(primary.adminUrl, "adintel"))
  const replica = yield* cluster(path.join(dir, "replica"), primary)
  const config = ConfigProvider.fromMap(new Map([["DATABASE_REPLICA_URLS", replica.urlFor("adintel")], ["REPLICA_MAX_LAG", "1 second"]]))
  return Database.clientLayer(Redacted.make(primary.urlFor("adintel"))).pipe(
    Layer.provide(Layer.setConfigProvider(config)),
    Layer.tap((context) => Effect.provide(Database.migrate, context)),
    Layer.orDie,
    Layer.merge(Layer.succeed(Clusters, { primary, replica }))
  )
}))

export const adminToken = "replica-metrics-admin-token-0123456789"

export const server = Layer.effectDiscard(loadSmallWorld).pipe(
  Layer.provideMerge(Layer.mergeAll(
    testServer({ config: { rateLimitPerMinute: 100_000, adminToken: Option.some(Redacted.make(adminToken)) } }),
    DemoData.Default
  )),
  Layer.provideMerge(Ingest.Default),
  Layer.provideMerge(replicated)
)

/** The replica's series of a gauge on `/metrics`, read by a Prometheus text-format parser. */
export const gauge = (name: string) =>
  Effect.map(call("/metrics", { headers: { Authorization: `Bearer ${adminToken}` } }), (answer) => {
    expect(answer.status).toBe(200)
    const family = parsePrometheusTextFormat(answer.body).find((f) => f.name === name)
    return family?.metrics.find((m) => m.labels?.["replica"] === "replica-1")?.value
  })

export const onReplica = <A extends pg.QueryResultRow>(text: string) =>
  Effect.flatMap(Clusters, ({ replica }) =>
    Effect.promise(async () => {
      // On its `postgres` database: these reads add nothing to `adintel`'s statistics.
      const client = new pg.Client({ connectionString: replica.adminUrl })
      await client.connect()
      try {
        return (await client.query<A>(text)).rows
      } finally {
        await client.end()
      }
    }))

/** Whether the replica's `adintel` holds an ad's transcript yet. */
export const replicaHolds = (adId: string) =>
  Effect.flatMap(Clusters, ({ replica }) =>
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: replica.urlFor("adintel") })
      await client.connect()
      try {
        return (await client.query("select 1 from transcripts where subject = 'ad' and subject_id = $1", [adId])).rowCount === 1
      } finally {
        await client.end()
      }
    }))

/** Transactions the replica has committed in `adintel` (its own statistics: what it served). */
export const replicaCommits = Effect.map(
  onReplica<{ n: string }>("select xact_commit::text as n from pg_stat_database where datname = 'adintel'"),
  (rows) => Number(rows[0]!.n)
)

/** The replica in: its replay lag under `REPLICA_MAX_LAG`. */
export const caughtUp = Effect.flatMap(ReplicaHealth, (health) =>
  eventually(Effect.zipRight(health.check, health.states), (states) => states[0]?.healthy === true))

/** Words of the small world's social headlines: searches that find ads. */
export const words = recordsOf("ads").filter((ad) => ad.library === "social").slice(0, 8).map((ad) => String(ad.headline).split(/[^A-Za-z]+/).find((w) => w.length > 4)!)
export const search = (key: string, n: number) => call(`/api/v1/adlibrary?q=${encodeURIComponent(words[n % words.length]!)}&limit=5`, keyHeader(key))
