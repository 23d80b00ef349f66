import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ReplicaHealth } from "../src/platform/db/Replicas.js"
import { account, balanceOf, call, keyHeader, TestServer } from "./support/TestServer.js"
import { get as workspaceGet, keyAuth, post as workspacePost, v1 } from "./support/Workspace.js"
import { caughtUp, Clusters, gauge, onReplica, search, server, words } from "./support/ReplicatedService.js"

/**
 * The service on a primary and a streaming replica (issue 31, R1), through HTTP: metering stays
 * exact on the primary, an account reads its own write at once, and the replica stopped
 * mid-load costs no failed search. (Research reads on the replica: test/replicaRoutes.test.ts.)
 */

describe("the service on a primary and a streaming replica: writes and failure (issue 31)", () => {
  // Live clock: the waits below are on PostgreSQL's replay and statistics, in real time.
  layer(server, { timeout: 180_000, excludeTestServices: true })((it) => {
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
