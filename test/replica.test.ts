import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Context, Effect, Layer, Redacted } from "effect"
import pg from "pg"
import * as path from "node:path"
import { clientLayer, sqlStateOf } from "../src/platform/db/Database.js"
import type { Cluster } from "../src/platform/db/EmbeddedPostgres.js"
import { ReadSql, readLayer, ReadYourWrites, ReplicaHealth } from "../src/platform/db/Replicas.js"
import { cluster, eventually } from "./support/StreamingReplicas.js"
import { tempDir } from "./support/TempDir.js"

/**
 * A streaming replica from the embedded PostgreSQL's own binaries (issue 31, R1): a base backup
 * by the low-level API, `standby.signal`, `primary_conninfo` and a slot. What every replica test
 * stands on, checked against PostgreSQL's own views.
 */

const connected = (url: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      return client
    }),
    (client) => Effect.promise(() => client.end())
  )

const rows = <A extends pg.QueryResultRow>(client: pg.Client, text: string, values: ReadonlyArray<unknown> = []) =>
  Effect.promise(() => client.query<A>(text, [...values]).then((r) => r.rows))

const failure = (client: pg.Client, text: string) =>
  Effect.promise(() => client.query(text).then(() => undefined, (error: { code?: string; message: string }) => ({ code: error.code, message: error.message })))

describe("a streaming replica of the embedded PostgreSQL (issue 31)", () => {
  it.live("is made from a base backup, streams the primary's writes, refuses its own, and pauses and resumes replay", () =>
    Effect.scoped(Effect.gen(function*() {
      const dir = yield* tempDir("replica")
      const primary = yield* cluster(path.join(dir, "primary"))
      const onPrimary = yield* connected(primary.adminUrl)
      yield* rows(onPrimary, "create table probe (n int primary key)")
      yield* rows(onPrimary, "insert into probe values (1)")

      const replica = yield* cluster(path.join(dir, "replica"), primary)
      const onReplica = yield* connected(replica.adminUrl)
      expect(yield* rows(onReplica, "select pg_is_in_recovery() as standby")).toEqual([{ standby: true }])
      // Streaming from the primary, through its slot.
      expect(yield* eventually(rows<{ state: string }>(onPrimary, "select state from pg_stat_replication"), (r) => r.length === 1))
        .toEqual([{ state: "streaming" }])
      expect(yield* rows(onPrimary, "select slot_type, active from pg_replication_slots")).toEqual([{ slot_type: "physical", active: true }])
      // What the backup held, and what was written after it.
      expect(yield* rows(onReplica, "select n from probe")).toEqual([{ n: 1 }])
      yield* rows(onPrimary, "insert into probe values (2)")
      expect(yield* eventually(rows(onReplica, "select n from probe order by n"), (r) => r.length === 2)).toEqual([{ n: 1 }, { n: 2 }])
      // Caught up: the replica has replayed the primary's current WAL position.
      const [{ lsn }] = yield* rows<{ lsn: string }>(onPrimary, "select pg_current_wal_lsn()::text as lsn")
      expect(yield* eventually(
        rows<{ behind: string }>(onReplica, "select pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_replay_lsn())::text as behind", [lsn]),
        (r) => Number(r[0]!.behind) <= 0
      )).toHaveLength(1)

      // Read-only: a write is refused with PostgreSQL's own error.
      expect(yield* failure(onReplica, "insert into probe values (3)")).toEqual({
        code: "25006",
        message: "cannot execute INSERT in a read-only transaction"
      })

      // Replay paused: the primary's write does not reach the replica, and its lag grows; resumed, it does.
      yield* rows(onReplica, "select pg_wal_replay_pause()")
      yield* eventually(rows<{ state: string }>(onReplica, "select pg_get_wal_replay_pause_state() as state"), (r) => r[0]!.state === "paused")
      yield* rows(onPrimary, "insert into probe values (4)")
      const [{ ahead }] = yield* rows<{ ahead: string }>(onPrimary, "select pg_current_wal_insert_lsn()::text as ahead")
      yield* eventually(
        rows<{ received: string }>(onReplica, "select pg_wal_lsn_diff(pg_last_wal_receive_lsn(), $1::pg_lsn)::text as received", [ahead]),
        (r) => Number(r[0]!.received) >= 0
      )
      expect(yield* rows(onReplica, "select count(*)::int as n from probe")).toEqual([{ n: 2 }])
      expect(Number((yield* rows<{ behind: string }>(onReplica, "select pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_replay_lsn())::text as behind", [ahead]))[0]!.behind))
        .toBeGreaterThan(0)
      yield* rows(onReplica, "select pg_wal_replay_resume()")
      expect(yield* eventually(rows(onReplica, "select n from probe order by n"), (r) => r.length === 3)).toEqual([{ n: 1 }, { n: 2 }, { n: 4 }])
    })), 120_000)

  it.live("a replica stopped leaves no slot on its primary (the primary keeps no WAL for it)", () =>
    Effect.scoped(Effect.gen(function*() {
      const dir = yield* tempDir("replica-slot")
      const primary = yield* cluster(path.join(dir, "primary"))
      const onPrimary = yield* connected(primary.adminUrl)
      yield* Effect.scoped(Effect.gen(function*() {
        yield* cluster(path.join(dir, "replica"), primary)
        expect(yield* rows(onPrimary, "select count(*)::int as n from pg_replication_slots")).toEqual([{ n: 1 }])
      }))
      expect(yield* rows(onPrimary, "select count(*)::int as n from pg_replication_slots")).toEqual([{ n: 0 }])
    })), 120_000)

  /** The primary's client and `ReadSql` over it and `replicas`, with `REPLICA_MAX_LAG` 1 second unless told. */
  const reads = (primary: Cluster, replicas: ReadonlyArray<Cluster>, maxLag = "1 second") =>
    Effect.map(
      Layer.build(
        readLayer(Redacted.make(primary.adminUrl), { max: 4, statementTimeoutMs: 15_000 }).pipe(
          Layer.provideMerge(clientLayer(Redacted.make(primary.adminUrl))),
          Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([
            ...(replicas.length === 0 ? [] : [["DATABASE_REPLICA_URLS", replicas.map((r) => r.adminUrl).join(",")] as const]),
            ["REPLICA_MAX_LAG", maxLag]
          ]))))
        )
      ),
      (context) => ({
        read: Context.get(context, ReadSql),
        write: Context.get(context, SqlClient.SqlClient),
        health: Context.get(context, ReplicaHealth),
        writes: Context.get(context, ReadYourWrites)
      })
    )

  const servedBy = (read: SqlClient.SqlClient) =>
    Effect.map(read<{ standby: boolean }>`select pg_is_in_recovery() as standby`, (r) => (r[0]!.standby ? "replica" : "primary"))

  it.live("ReadSql: reads on the healthy replica; a lagging one is out and the primary answers fresh; back in once it catches up; writes refused", () =>
    Effect.scoped(Effect.gen(function*() {
      const dir = yield* tempDir("replica-routing")
      const primary = yield* cluster(path.join(dir, "primary"))
      const replica = yield* cluster(path.join(dir, "replica"), primary)
      const { read, write, health } = yield* reads(primary, [replica])
      const onReplica = yield* connected(replica.adminUrl)
      yield* write`create table probe (n int primary key)`
      yield* write`insert into probe values (1)`
      yield* eventually(rows(onReplica, "select to_regclass('probe')::text as t"), (r) => r[0]!.t === "probe")
      yield* health.check

      expect(yield* health.states).toMatchObject([{ name: "replica-1", healthy: true, lagMs: 0, reason: null }])
      expect(yield* servedBy(read)).toBe("replica")
      // Read-only, whoever serves it: PostgreSQL's own refusal.
      expect(yield* Effect.flip(read`insert into probe values (9)`).pipe(Effect.map(sqlStateOf))).toBe("25006")

      // Replay paused and the primary written past REPLICA_MAX_LAG: out, and the primary answers with the new row.
      yield* Effect.promise(() => onReplica.query("select pg_wal_replay_pause()"))
      yield* write`insert into probe values (2)`
      yield* eventually(Effect.zipRight(health.check, health.states), (s) => !s[0]!.healthy)
      expect((yield* health.states)[0]).toMatchObject({ healthy: false, reason: "its replay lag is over REPLICA_MAX_LAG (1s)" })
      expect(yield* servedBy(read)).toBe("primary")
      expect(yield* read<{ n: number }>`select n from probe order by n`).toEqual([{ n: 1 }, { n: 2 }])

      // Resumed: caught up and back in.
      yield* Effect.promise(() => onReplica.query("select pg_wal_replay_resume()"))
      yield* eventually(Effect.zipRight(health.check, health.states), (s) => s[0]!.healthy)
      expect(yield* servedBy(read)).toBe("replica")
      expect(yield* read<{ n: number }>`select n from probe order by n`).toEqual([{ n: 1 }, { n: 2 }])
    })), 120_000)

  it.live("ReadYourWrites: after a write of a kind, its reads are served by the primary until the replica has replayed it; other reads stay on the replica", () =>
    Effect.scoped(Effect.gen(function*() {
      const dir = yield* tempDir("replica-own-writes")
      const primary = yield* cluster(path.join(dir, "primary"))
      const replica = yield* cluster(path.join(dir, "replica"), primary)
      // A lag limit the paused replay stays under: the replica stays in throughout.
      const { read, write, health, writes } = yield* reads(primary, [replica], "10 minutes")
      const onReplica = yield* connected(replica.adminUrl)
      yield* write`create table probe (n int primary key, v text)`
      yield* write`insert into probe values (1, 'old')`
      yield* eventually(rows(onReplica, "select to_regclass('probe')::text as t"), (r) => r[0]!.t === "probe")
      const value = read<{ v: string; standby: boolean }>`select v, pg_is_in_recovery() as standby from probe where n = 1`
      const fresh = writes.fresh("transcripts")
      yield* eventually(Effect.zipRight(health.check, value), (r) => r[0]!.v === "old")
      // Nothing written by this process yet: both kinds of reads on the replica.
      expect(yield* fresh(value)).toEqual([{ v: "old", standby: true }])

      yield* Effect.promise(() => onReplica.query("select pg_wal_replay_pause()"))
      yield* write`update probe set v = 'new' where n = 1`
      yield* writes.wrote("transcripts")
      yield* health.check
      expect((yield* health.states)[0]).toMatchObject({ healthy: true })
      // The paused replica has not replayed the write: this kind's reads go to the primary and see it ...
      expect(yield* fresh(value)).toEqual([{ v: "new", standby: false }])
      // ... the others stay on the (healthy, lagging) replica.
      expect(yield* value).toEqual([{ v: "old", standby: true }])

      // Replayed and checked: back on the replica, which now holds the write.
      yield* Effect.promise(() => onReplica.query("select pg_wal_replay_resume()"))
      expect(yield* eventually(Effect.zipRight(health.check, fresh(value)), (r) => r[0]!.standby)).toEqual([{ v: "new", standby: true }])
    })), 120_000)

  it.live("ReadSql: a replica stopped mid-load costs no failed read (each runs again on the primary) and is taken out", () =>
    Effect.scoped(Effect.gen(function*() {
      const dir = yield* tempDir("replica-killed")
      const primary = yield* cluster(path.join(dir, "primary"))
      // Scoped like the primary: stopped mid-load below, and stopped all the same if an assertion fails first.
      const replica = yield* cluster(path.join(dir, "replica"), primary)
      const { read, health } = yield* reads(primary, [replica])
      yield* health.check
      expect(yield* servedBy(read)).toBe("replica")
      // Half a second of reads, 4 at a time, with the replica's fast shutdown in the middle.
      const load = Effect.forEach(Array.from({ length: 200 }, (_, i) => i), (i) =>
        Effect.map(read<{ n: number }>`select ${i}::int as n, pg_sleep(0.01)`, (r) => r[0]!.n), { concurrency: 4 })
      const [answers] = yield* Effect.all([load, Effect.promise(() => replica.stop()).pipe(Effect.delay("100 millis"))], { concurrency: 2 })
      expect(answers).toEqual(Array.from({ length: 200 }, (_, i) => i))
      expect(yield* servedBy(read)).toBe("primary")
      expect((yield* health.states)[0]).toMatchObject({ healthy: false })
    })), 120_000)

  it.live("ReadSql with no replica configured: the primary serves it, still read-only", () =>
    Effect.scoped(Effect.gen(function*() {
      const dir = yield* tempDir("replica-none")
      const primary = yield* cluster(path.join(dir, "primary"))
      const { read, health } = yield* reads(primary, [])
      expect(yield* health.states).toEqual([])
      expect(yield* servedBy(read)).toBe("primary")
      expect(yield* Effect.flip(read`create table t (n int)`).pipe(Effect.map(sqlStateOf))).toBe("25006")
    })), 60_000)
})
