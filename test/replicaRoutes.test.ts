import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Option, Redacted } from "effect"
import parsePrometheusTextFormat from "parse-prometheus-text-format"
import pg from "pg"
import * as path from "node:path"
import { DemoData } from "../src/demo/DemoData.js"
import { flagship } from "../src/demo/FlagshipBrand.js"
import { Ingest } from "../src/ingest/Ingest.js"
import * as Database from "../src/platform/db/Database.js"
import { type Cluster, ensureDatabase } from "../src/platform/db/EmbeddedPostgres.js"
import { ReplicaHealth } from "../src/platform/db/Replicas.js"
import { loadSmallWorld, recordsOf } from "./support/AdWorld.js"
import { cluster, eventually } from "./support/StreamingReplicas.js"
import { tempDir } from "./support/TempDir.js"
import { account, balanceOf, call, keyHeader, testServer, TestServer } from "./support/TestServer.js"
import { get as workspaceGet, keyAuth, post as workspacePost, v1 } from "./support/Workspace.js"

/**
 * The service on a primary and a streaming replica (issue 31, R1), through HTTP: research reads
 * are served by the replica, metering and the workspace by the primary, and a replica that stops
 * mid-load costs no call an error.
 */

class Clusters extends Context.Tag("test/Clusters")<Clusters, { readonly primary: Cluster; readonly replica: Cluster }>() {}

/** A primary with database `adintel` and its replica; the service's client over both (`REPLICA_MAX_LAG` 1 s), migrated. */
const replicated = Layer.unwrapScoped(Effect.gen(function*() {
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

const adminToken = "replica-metrics-admin-token-0123456789"

const server = Layer.effectDiscard(loadSmallWorld).pipe(
  Layer.provideMerge(Layer.mergeAll(
    testServer({ config: { rateLimitPerMinute: 100_000, adminToken: Option.some(Redacted.make(adminToken)) } }),
    DemoData.Default
  )),
  Layer.provideMerge(Ingest.Default),
  Layer.provideMerge(replicated)
)

/** The replica's series of a gauge on `/metrics`, read by a Prometheus text-format parser. */
const gauge = (name: string) =>
  Effect.map(call("/metrics", { headers: { Authorization: `Bearer ${adminToken}` } }), (answer) => {
    expect(answer.status).toBe(200)
    const family = parsePrometheusTextFormat(answer.body).find((f) => f.name === name)
    return family?.metrics.find((m) => m.labels?.["replica"] === "replica-1")?.value
  })

const onReplica = <A extends pg.QueryResultRow>(text: string) =>
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
const replicaHolds = (adId: string) =>
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
const replicaCommits = Effect.map(
  onReplica<{ n: string }>("select xact_commit::text as n from pg_stat_database where datname = 'adintel'"),
  (rows) => Number(rows[0]!.n)
)

/** The replica in: its replay lag under `REPLICA_MAX_LAG`. */
const caughtUp = Effect.flatMap(ReplicaHealth, (health) =>
  eventually(Effect.zipRight(health.check, health.states), (states) => states[0]?.healthy === true))

/** Words of the small world's social headlines: searches that find ads. */
const words = recordsOf("ads").filter((ad) => ad.library === "social").slice(0, 8).map((ad) => String(ad.headline).split(/[^A-Za-z]+/).find((w) => w.length > 4)!)
const search = (key: string, n: number) => call(`/api/v1/adlibrary?q=${encodeURIComponent(words[n % words.length]!)}&limit=5`, keyHeader(key))

describe("the service on a primary and a streaming replica (issue 31)", () => {
  // Live clock: the waits below are on PostgreSQL's replay and statistics, in real time.
  layer(server, { timeout: 180_000, excludeTestServices: true })((it) => {
    it.effect("ad searches and landers explore are served by the replica; their answers are the primary's", () =>
      Effect.gen(function*() {
        yield* caughtUp
        const { api_key } = yield* account()
        // `/ready` shows it, by position (its URL holds a password).
        const ready = yield* call("/ready")
        expect(ready.status).toBe(200)
        expect(JSON.parse(ready.body).replicas).toEqual([
          { name: "replica-1", healthy: true, lag_ms: expect.any(Number), reason: null, checked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }
        ])
        expect(ready.body).not.toContain("postgres://")
        // The admin API, with the operator's token only.
        const admin = yield* call("/admin/replicas", { headers: { Authorization: `Bearer ${adminToken}` } })
        expect(admin.status).toBe(200)
        expect(JSON.parse(admin.body)).toEqual({ replicas: JSON.parse(ready.body).replicas.map((r: object) => ({ ...r, lag_ms: expect.any(Number), checked_at: expect.any(String) })) })
        expect((yield* call("/admin/replicas", keyHeader(api_key))).status).toBe(401)
        // And `/metrics`, labelled by the same name.
        expect(yield* gauge("adintel_replica_healthy")).toBe("1")
        expect(Number(yield* gauge("adintel_replica_lag_seconds"))).toBeGreaterThanOrEqual(0)
        const before = yield* replicaCommits
        const answers = yield* Effect.forEach(Array.from({ length: 40 }, (_, n) => n), (n) => search(api_key, n))
        expect(answers.map((a) => a.status)).toEqual(Array(40).fill(200))
        expect(answers.every((a) => JSON.parse(a.body).data.length > 0)).toBe(true)
        const explored = yield* call("/api/v1/landers/explore", {
          method: "POST",
          headers: { "X-API-Key": api_key, "content-type": "application/json" },
          body: JSON.stringify({ niche: ["beauty"], sort: "most_ads" })
        })
        expect(explored.status).toBe(200)
        // A replica's statistics reach its view within PostgreSQL's flush interval (up to 10 s when
        // idle). Besides the 41 calls, only the lag checks (one every 2 s, at most 15 in the 30 s
        // waited) read `adintel` there: served by the primary, this could not pass.
        expect(yield* eventually(replicaCommits, (n) => n >= before + 41)).toBeGreaterThanOrEqual(before + 41)
      }))

    it.effect("the brand tabs and magic-ai are read on the replica too", () =>
      Effect.gen(function*() {
        yield* caughtUp
        const { api_key } = yield* account()
        const tabs = ["overview-cards", "ad-copies", "hooks", "formats", "countries"]
        const before = yield* replicaCommits
        for (let n = 0; n < 25; n++) {
          const answer = yield* call(`/api/v1/brands/${tabs[n % tabs.length]}?id=${encodeURIComponent(flagship.id)}`, keyHeader(api_key))
          expect(answer.status, answer.body).toBe(200)
        }
        // As above: at most 15 lag checks in the wait; served by the primary, this could not pass.
        const afterTabs = yield* eventually(replicaCommits, (n) => n >= before + 25)
        for (let n = 0; n < 25; n++) {
          const answer = yield* call("/api/v1/magic-ai", {
            method: "POST",
            headers: { "X-API-Key": api_key, "content-type": "application/json" },
            body: JSON.stringify({ text: `${words[n % words.length]} everyone keeps asking me about`, library: ["social"] })
          })
          expect(answer.status, answer.body).toBe(200)
        }
        expect(yield* eventually(replicaCommits, (n) => n >= afterTabs + 25)).toBeGreaterThanOrEqual(afterTabs + 25)
      }))

    it.effect("the trends are read on the replica too", () =>
      Effect.gen(function*() {
        yield* caughtUp
        const { api_key } = yield* account()
        const topics = (windowDays: number) => call("/api/v1/trends/topics", {
          method: "POST",
          headers: { "X-API-Key": api_key, "content-type": "application/json" },
          body: JSON.stringify({ window_days: windowDays, min_count: 1 })
        })
        // The counting fiber builds the rankings on the primary after the world's import.
        const built = yield* eventually(topics(90), (answer) => answer.status === 200)
        expect(JSON.parse(built.body).data.length).toBeGreaterThan(0)
        const before = yield* replicaCommits
        for (let n = 0; n < 25; n++) {
          const answer = yield* topics([7, 30, 90][n % 3]!)
          expect(answer.status, answer.body).toBe(200)
        }
        // Each call reads its ranking and its terms' texts; as above, served by the primary this could not pass.
        expect(yield* eventually(replicaCommits, (n) => n >= before + 50)).toBeGreaterThanOrEqual(before + 50)
      }))

    it.effect("stored transcripts are read on the replica; one stored a moment ago, replay paused, is answered from the primary", () =>
      Effect.gen(function*() {
        yield* caughtUp
        const sql = yield* SqlClient.SqlClient
        const { api_key } = yield* account()
        const store = (adId: string, text: string) =>
          sql`insert into transcripts (subject, subject_id, transcript, segments, media_url, engine, transcribed_at)
              values ('ad', ${adId}, ${text}, ${JSON.stringify([{ start: 0, end: 2, text }])}::jsonb, 'http://127.0.0.1/a.mp4', 'test', '2026-01-01T00:00:00Z')`
        const read = (adId: string) => Effect.map(call(`/api/v1/ad-transcript?ad_id=${adId}`, keyHeader(api_key)), (answer) => {
          expect(answer.status, answer.body).toBe(200)
          return JSON.parse(answer.body)
        })
        const record = (text: string | null) => ({
          success: true,
          transcript: text,
          segments: text === null ? [] : [{ start: 0, end: 2, text }],
          script_analysis: null,
          similar_scripts: []
        })
        yield* store("replica-read-1", "Stored before the reads.")
        yield* eventually(replicaHolds("replica-read-1"), (held) => held)
        yield* caughtUp
        const before = yield* replicaCommits
        for (let n = 0; n < 20; n++) expect(yield* read("replica-read-1")).toEqual(record("Stored before the reads."))
        // Each read is one statement: served by the primary, the replica's count could not move by 20.
        expect(yield* eventually(replicaCommits, (n) => n >= before + 20)).toBeGreaterThanOrEqual(before + 20)

        // Another process stores one while the replica replays nothing: the replica's miss is read again on the primary.
        yield* onReplica("select pg_wal_replay_pause()")
        yield* store("replica-read-2", "Stored with the replay paused.")
        expect(yield* read("replica-read-2")).toEqual(record("Stored with the replay paused."))
        expect(yield* read("replica-read-never")).toEqual(record(null))
      }).pipe(Effect.ensuring(Effect.orDie(onReplica("select pg_wal_replay_resume()")))))

    it.effect("metering stays exact on the primary: 60 searches in flight on 25 credits, exactly 25 answered, balance 0", () =>
      Effect.gen(function*() {
        yield* caughtUp
        const { id, api_key } = yield* account({ patch: { monthly_limit: 25 } })
        const { url } = yield* TestServer
        const statuses = yield* Effect.promise(() =>
          Promise.all(Array.from({ length: 60 }, (_, n) => fetch(`${url}/api/v1/adlibrary?q=${encodeURIComponent(words[0]!)}&limit=${1 + (n % 5)}`, keyHeader(api_key)).then((r) => r.status))))
        expect(statuses.filter((s) => s === 200)).toHaveLength(25)
        expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([])
        expect((yield* balanceOf(id)).total_remaining).toBe(0)
      }))

    it.effect("with the replica's replay paused, an account reads its workspace write at once (the primary serves it)", () =>
      Effect.gen(function*() {
        yield* caughtUp
        yield* onReplica("select pg_wal_replay_pause()")
        const { api_key } = yield* account()
        const auth = keyAuth(api_key)
        const created = yield* workspacePost(auth, `${v1}/create-folder`, { name: "Read my write" })
        expect(created.status).toBe(200)
        const tree = yield* workspaceGet(auth, `${v1}/folders-with-boards`)
        expect(tree.json.data).toEqual([{ id: created.json.folder.id, name: "Read my write", boards: [] }])
      }).pipe(Effect.ensuring(Effect.orDie(onReplica("select pg_wal_replay_resume()")))))

    it.effect("the replica stopped mid-load: every search answers 200, then the primary serves them", () =>
      Effect.gen(function*() {
        yield* caughtUp
        const { replica } = yield* Clusters
        const { api_key } = yield* account()
        const [answers] = yield* Effect.all([
          Effect.forEach(Array.from({ length: 80 }, (_, n) => n), (n) => search(api_key, n), { concurrency: 4 }),
          Effect.promise(() => replica.stop()).pipe(Effect.delay("200 millis"))
        ], { concurrency: 2 })
        expect(answers.filter((a) => a.status !== 200).map((a) => [a.status, a.body])).toEqual([])
        const health = yield* ReplicaHealth
        yield* health.check
        expect((yield* health.states)[0]).toMatchObject({ name: "replica-1", healthy: false })
        expect(yield* gauge("adintel_replica_healthy")).toBe("0")
        // Still ready: with no healthy replica the primary serves every read (R1).
        const ready = yield* call("/ready")
        expect(ready.status).toBe(200)
        expect(JSON.parse(ready.body).replicas).toEqual([
          { name: "replica-1", healthy: false, lag_ms: null, reason: expect.stringMatching(/^it cannot be reached \(|^it did not answer/), checked_at: expect.any(String) }
        ])
      }))
  })
})
