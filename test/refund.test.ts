import { HttpMiddleware } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Deferred, Duration, Effect, Exit, Fiber, Layer, Option, Queue, Scope, TestClock } from "effect"
import { Gateway } from "../src/access/gateway/Gateway.js"
import { ProbeApiLive, ProbeHold, withProbeHold } from "./support/ProbeApi.js"
import { replicaHolding } from "./support/Replicas.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, balanceOf, call, keyHeader, TestServer, testServer } from "./support/TestServer.js"

const internal = `{"success":false,"error":"Internal server error"}`

// The refund must hold whatever is stacked around the app: Effect's logger, CORS, our access log.
const server = withProbeHold((api) =>
  testServer({
    api,
    accessLog: true,
    middleware: [HttpMiddleware.logger, HttpMiddleware.cors()]
  }).pipe(Layer.provideMerge(TestDatabase))
)

const ledgerOf = (accountId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ route: string; method: string; pool: string; status: number | null; refunded: boolean; completed: boolean }>`
      select route, method, pool, status, refunded_at is not null as refunded, completed_at is not null as completed
        from request_ledger where account_id = ${accountId} order by id`).pipe(Effect.orDie)

describe("refunds and kept credits (spec: Limits 'Refund', Errors rule 3; G4)", () => {
  layer(server)((it) => {
    it.effect("a handler that dies answers the 500 envelope and gets its credit back", () =>
      Effect.gen(function*() {
        const { id, api_key } = yield* account()
        for (const path of ["/api/v1/probe/dies", "/api/v1/probe/throws"]) {
          const answer = yield* call(path, keyHeader(api_key))
          expect([answer.status, answer.body]).toEqual([500, internal])
          expect(answer.headers.get("content-type")).toBe("application/json")
          expect(answer.headers.get("ratelimit")).not.toBeNull()
        }
        expect((yield* balanceOf(id)).used).toBe(0)
        // A 5xx is recorded before it is answered: nothing to wait for.
        expect(yield* ledgerOf(id)).toEqual([
          { route: "/api/v1/probe/dies", method: "GET", pool: "monthly", status: 500, refunded: true, completed: true },
          { route: "/api/v1/probe/throws", method: "GET", pool: "monthly", status: 500, refunded: true, completed: true }
        ])
      }))

    it.effect("returns a refunded add-on credit to the add-on pool", () =>
      Effect.gen(function*() {
        const { id, api_key } = yield* account({ patch: { monthly_limit: 0, addon_remaining: 3 } })
        expect((yield* call("/api/v1/probe/dies", keyHeader(api_key))).status).toBe(500)
        expect(yield* balanceOf(id)).toEqual({ used: 0, limit: 0, remaining: 0, addon_remaining: 3, total_remaining: 3 })
        expect((yield* call("/api/v1/probe/soft", keyHeader(api_key))).status).toBe(200)
        expect((yield* balanceOf(id)).addon_remaining).toBe(2)
      }))

    it.effect("keeps the credit of every deliberate answer", () =>
      Effect.gen(function*() {
        const { id, api_key } = yield* account()
        const json = { ...keyHeader(api_key), method: "POST" }
        const answers = [
          yield* call("/api/v1/probe/soft", keyHeader(api_key)),
          yield* call("/api/v1/probe/items/unknown", keyHeader(api_key)),
          yield* call("/api/v1/probe/items/bad%24id", keyHeader(api_key)),
          yield* call("/api/v1/probe/echo", { ...json, body: "{not json", headers: { ...json.headers, "content-type": "application/json" } }),
          yield* call("/api/v1/probe/echo", { ...json, body: `{"limit":0}`, headers: { ...json.headers, "content-type": "application/json" } }),
          yield* call("/api/v1/probe/echo", { ...json, body: `{}`, headers: { ...json.headers, "content-type": "application/json" } }),
          yield* call("/api/v1/probe/echo", { ...json, body: `{"limit":"ten"}`, headers: { ...json.headers, "content-type": "application/json" } })
        ]
        expect(answers.map((a) => [a.status, a.body])).toEqual([
          [200, `{"success":false,"message":"Nothing matched"}`],
          [404, `{"success":false,"error":"Item not found"}`],
          [400, `{"success":false,"error":"Invalid id"}`],
          [400, `{"success":false,"error":"Malformed request body: expected JSON"}`],
          [400, `{"success":false,"error":"limit: Expected a number between 1 and 50, actual 0"}`],
          [400, `{"success":false,"error":"limit is missing"}`],
          [400, `{"success":false,"error":"limit: Expected number, actual \\"ten\\""}`]
        ])
        expect((yield* balanceOf(id)).used).toBe(answers.length)
        yield* (yield* Gateway).flush
        const ledger = yield* ledgerOf(id)
        expect(ledger.map((row) => [row.status, row.refunded])).toEqual(answers.map((a) => [a.status, false]))
      }))

    it.scoped("refunds a call whose client went away before the handler finished", () =>
      Effect.gen(function*() {
        const { id, api_key } = yield* account()
        const { url } = yield* TestServer
        const refunds = yield* (yield* Gateway).refunds
        const controller = new AbortController()
        const outcome = fetch(`${url}/api/v1/probe/held`, { ...keyHeader(api_key), signal: controller.signal })
          .then(() => "answered", () => "aborted")
        const held = yield* Queue.take(yield* ProbeHold)
        controller.abort()
        expect(yield* Effect.promise(() => outcome)).toBe("aborted")
        expect(yield* Queue.take(refunds)).toBe(held.chargeId)
        expect((yield* balanceOf(id)).used).toBe(0)
        expect((yield* ledgerOf(id)).map((row) => row.refunded)).toEqual([true])
      }))

    it.scoped("a call still running is never refunded while its replica beats; once that replica is dead, exactly once", () =>
      Effect.gen(function*() {
        const { id, api_key } = yield* account()
        const gateway = yield* Gateway
        const answer = yield* Effect.fork(call("/api/v1/probe/held", keyHeader(api_key)))
        const held = yield* Queue.take(yield* ProbeHold)
        // Past the old LEDGER_SWEEP_AFTER (10 minutes), and hours more: its replica beats.
        yield* TestClock.adjust("11 minutes")
        expect(yield* gateway.sweep).toBe(0)
        yield* TestClock.adjust("5 hours")
        expect(yield* gateway.sweep).toBe(0)
        expect((yield* balanceOf(id)).used).toBe(1)
        // Its process dies: the charge is held by a replica whose heartbeat stopped.
        yield* replicaHolding([held.chargeId!])
        expect(yield* gateway.sweep).toBe(1)
        expect((yield* balanceOf(id)).used).toBe(0)
        expect(yield* gateway.sweep).toBe(0)
        // A replica that was only paused answers after all: the call keeps its refund, once.
        yield* Deferred.succeed(held.release, undefined)
        expect((yield* Fiber.join(answer)).status).toBe(200)
        yield* gateway.flush
        expect(yield* ledgerOf(id)).toEqual([
          { route: "/api/v1/probe/held", method: "GET", pool: "monthly", status: 200, refunded: true, completed: true }
        ])
        expect((yield* balanceOf(id)).used).toBe(0)
      }))

    it.effect("a replica is dead once its heartbeat is older than REPLICA_HEARTBEAT_TIMEOUT, not before", () =>
      Effect.gen(function*() {
        const { id, api_key } = yield* account()
        const gateway = yield* Gateway
        const { chargeId } = yield* gateway.admit(Option.some(api_key), { method: "GET", route: "/api/v1/credits" })
        yield* replicaHolding([chargeId], Duration.toMillis("1 minute"))
        expect(yield* gateway.sweep).toBe(0)
        yield* TestClock.adjust("1 millis")
        expect(yield* gateway.sweep).toBe(1)
        expect((yield* balanceOf(id)).used).toBe(0)
      }))

    it.scoped("a replica that stops cleanly has what it still held refunded at the next sweep", () =>
      Effect.gen(function*() {
        const { id, api_key } = yield* account()
        const scope = yield* Scope.make()
        const other = yield* Layer.buildWithScope(testServer({ api: ProbeApiLive }), scope)
        yield* Context.get(other, Gateway).admit(Option.some(api_key), { method: "GET", route: "/api/v1/credits" })
        const gateway = yield* Gateway
        expect(yield* gateway.sweep).toBe(0)
        yield* Scope.close(scope, Exit.void)
        expect(yield* gateway.sweep).toBe(1)
        expect((yield* balanceOf(id)).used).toBe(0)
      }))

    it.effect("a charge open for LEDGER_SWEEP_AFTER is refunded even though its replica beats (the ceiling)", () =>
      Effect.gen(function*() {
        const { id, api_key } = yield* account()
        const gateway = yield* Gateway
        // A charge nobody completes, next to one that completes.
        yield* gateway.admit(Option.some(api_key), { method: "GET", route: "/api/v1/credits" })
        expect((yield* call("/api/v1/probe/soft", keyHeader(api_key))).status).toBe(200)
        yield* gateway.flush
        expect((yield* balanceOf(id)).used).toBe(2)
        yield* TestClock.adjust("359 minutes")
        expect(yield* gateway.sweep).toBe(0)
        expect((yield* balanceOf(id)).used).toBe(2)
        yield* TestClock.adjust("2 minutes")
        expect(yield* gateway.sweep).toBe(1)
        expect((yield* balanceOf(id)).used).toBe(1)
        expect((yield* ledgerOf(id)).map((row) => [row.route, row.refunded])).toEqual([
          ["/api/v1/credits", true],
          ["/api/v1/probe/soft", false]
        ])
        // Sweeping again finds nothing: a charge is refunded at most once.
        expect(yield* gateway.sweep).toBe(0)
        expect((yield* balanceOf(id)).used).toBe(1)
      }))

    it.effect("the daily search quota answers the bare 403 and keeps the monthly credit (G7)", () =>
      Effect.gen(function*() {
        const { id, api_key } = yield* account({ patch: { daily_search_limit: 2 } })
        const post = { ...keyHeader(api_key), method: "POST" }
        expect((yield* call("/api/v1/probe/search", post)).status).toBe(200)
        expect((yield* call("/api/v1/probe/search", post)).status).toBe(200)
        const refused = yield* call("/api/v1/probe/search", post)
        expect(refused.status).toBe(403)
        expect(refused.body).toBe(
          `{"error":"insufficient_credits","message":"You have used up your daily search quota. Upgrade to Premium for unlimited searches.","upgrade":"premium"}`
        )
        expect((yield* balanceOf(id)).used).toBe(3)
        yield* TestClock.adjust("1 day")
        expect((yield* call("/api/v1/probe/search", post)).status).toBe(200)
      }))
  })

  // The sweeper loop of a server that sweeps every minute (the layer above sweeps yearly).
  layer(testServer({ api: ProbeApiLive, config: { ledgerSweepEvery: Duration.minutes(1) } }).pipe(Layer.provideMerge(TestDatabase)))(
    (it) => {
      it.scoped("the sweeper runs every LEDGER_SWEEP_EVERY", () =>
        Effect.gen(function*() {
          const { id, api_key } = yield* account()
          const gateway = yield* Gateway
          const refunds = yield* gateway.refunds
          for (let round = 1; round <= 2; round++) {
            const { chargeId } = yield* gateway.admit(Option.some(api_key), { method: "GET", route: "/api/v1/credits" })
            yield* replicaHolding([chargeId])
            yield* TestClock.adjust("1 minute")
            expect(yield* Queue.take(refunds)).toBe(chargeId)
          }
          expect((yield* balanceOf(id)).used).toBe(0)
        }))
    }
  )
})
