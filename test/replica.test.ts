import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { cluster, connected, eventually, failure, rows } from "./support/StreamingReplicas.js"
import { tempDir } from "./support/TempDir.js"

/**
 * A streaming replica from the embedded PostgreSQL's own binaries (issue 31, R1): a base backup
 * by the low-level API, `standby.signal`, `primary_conninfo` and a slot. What every replica test
 * stands on, checked against PostgreSQL's own views. Reads routed over replicas:
 * test/replicaReads.test.ts.
 */

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
})
