import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Context, Effect, Fiber, Layer, Redacted } from "effect"
import * as path from "node:path"
import { clientLayer, sqlStateOf } from "../src/platform/db/Database.js"
import type { Cluster } from "../src/platform/db/EmbeddedPostgres.js"
import { ReadSql, readLayer, ReadYourWrites, ReplicaHealth } from "../src/platform/db/Replicas.js"
import { cluster, connected, eventually, rows } from "./support/StreamingReplicas.js"
import { tempDir } from "./support/TempDir.js"

/**
 * Reads routed over streaming replicas (issue 31, R1): `ReadSql` and `ReadYourWrites` on real
 * replicas of the embedded PostgreSQL (test/replica.test.ts: the replicas themselves).
 */

describe("reads over streaming replicas of the embedded PostgreSQL (issue 31)", () => {

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

      // A write after a quiet spell longer than REPLICA_MAX_LAG, replayed a moment after the check
      // began: in, its lag that moment, not the quiet spell. (The quiet spell is the subject: it is
      // what the time since the last replayed transaction measured.)
      yield* Effect.promise(() => onReplica.query("select pg_wal_replay_pause()"))
      yield* Effect.sleep("1500 millis")
      yield* write`insert into probe values (3)`
      const resumed = yield* Effect.fork(Effect.delay(Effect.promise(() => onReplica.query("select pg_wal_replay_resume()")), "200 millis"))
      yield* health.check
      // (On a loaded machine the check may first look after the resume: then the lag is 0, and
      // the step shows less, but still that the quiet spell does not take the replica out.)
      const afterQuiet = (yield* health.states)[0]!
      expect(afterQuiet).toMatchObject({ healthy: true, reason: null })
      expect(afterQuiet.lagMs).toBeGreaterThanOrEqual(0)
      expect(afterQuiet.lagMs).toBeLessThanOrEqual(1000)
      // The resume has run before the next pause: sent after it (a check that ended early, on a
      // loaded machine), it undid that pause and the replica stayed in at lag 0 (a CI run).
      yield* Fiber.join(resumed)

      // Replay paused and the primary written past REPLICA_MAX_LAG: out, and the primary answers with the new row.
      yield* Effect.promise(() => onReplica.query("select pg_wal_replay_pause()"))
      yield* write`insert into probe values (2)`
      yield* eventually(Effect.zipRight(health.check, health.states), (s) => !s[0]!.healthy)
      expect((yield* health.states)[0]).toMatchObject({ healthy: false, reason: "its replay lag is over REPLICA_MAX_LAG (1s)" })
      expect(yield* servedBy(read)).toBe("primary")
      expect(yield* read<{ n: number }>`select n from probe order by n`).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }])

      // Resumed: caught up and back in.
      yield* Effect.promise(() => onReplica.query("select pg_wal_replay_resume()"))
      yield* eventually(Effect.zipRight(health.check, health.states), (s) => s[0]!.healthy)
      expect(yield* servedBy(read)).toBe("replica")
      expect(yield* read<{ n: number }>`select n from probe order by n`).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }])
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
