import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { flagship } from "../src/demo/FlagshipBrand.js"
import { eventually } from "./support/StreamingReplicas.js"
import { account, call, keyHeader } from "./support/TestServer.js"
import { adminToken, caughtUp, gauge, onReplica, replicaCommits, replicaHolds, search, server, words } from "./support/ReplicatedService.js"

/**
 * The service on a primary and a streaming replica (issue 31, R1), through HTTP: research reads
 * are served by the replica, metering and the workspace by the primary, and a replica that stops
 * mid-load costs no call an error.
 * Metering, the workspace and a replica stopped mid-load: test/replicaMetering.test.ts.
 */

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
  })
})
