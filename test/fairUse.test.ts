import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Option, Queue, TestClock } from "effect"
import { InFlight } from "../src/access/gateway/InFlight.js"
import { unboundedStatements } from "../src/platform/db/Database.js"
import { ProbeApiLive, ProbeHold, withProbeHold } from "./support/ProbeApi.js"
import { TestDatabase, testDatabaseWith } from "./support/TestDatabase.js"
import { account, balanceOf, call, keyHeader, sameOrigin, signIn, testServer } from "./support/TestServer.js"

/**
 * Issue 28, fair use of the database: a cap on one account's calls in flight (keys and sessions
 * alike), session calls in the account's rate window, and a statement timeout on the pool. The
 * probe API's routes hold a call (`held`) or a pooled connection (`slow`, pg_sleep).
 */

const password = "a fair-use password"
const soft = "/api/v1/probe/soft"
const inFlightRefusal = `{"success":false,"error":"Too many requests in flight. Max 4 at a time."}`

/** Waits until `condition` holds, looking every few milliseconds of real time (the server answers over real sockets). */
const pause = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
const until = <E, R>(condition: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function*() {
    while (!(yield* condition)) yield* pause
  })


describe("fair use: calls in flight and the rate window (issue 28)", () => {
  layer(withProbeHold((api) => testServer({ api, config: { rateLimitPerMinute: 8 } })).pipe(Layer.provideMerge(TestDatabase)))((it) => {
    it.effect("past 4 calls in flight an account's next call waits, then is a 429 with Retry-After and its credit back; others go through", () =>
      Effect.gen(function*() {
        const hold = yield* ProbeHold
        const busy = yield* account({ plan: "pro" })
        const other = yield* account({ plan: "pro" })
        const held = yield* Effect.fork(Effect.all(Array.from({ length: 4 }, () => call("/api/v1/probe/held", keyHeader(busy.api_key))), { concurrency: "unbounded" }))
        const running = yield* Effect.forEach(Array.from({ length: 4 }), () => Queue.take(hold))
        // The fifth waits for a slot; another account's call goes through meanwhile.
        const fifth = yield* Effect.fork(call(soft, keyHeader(busy.api_key)))
        yield* until(Effect.map(Effect.flatMap(InFlight, (inFlight) => inFlight.users(busy.id)), (users) => users === 5))
        expect((yield* call(soft, keyHeader(other.api_key))).status).toBe(200)
        // The server's clock is the test's: it moves until the wait (IN_FLIGHT_WAIT, 2 s) has passed.
        while (Option.isNone(yield* Fiber.poll(fifth))) {
          yield* TestClock.adjust("500 millis")
          yield* pause
        }
        const refused = yield* Fiber.join(fifth)
        expect([refused.status, refused.body, refused.headers.get("retry-after")]).toEqual([429, inFlightRefusal, "1"])
        // The four held calls keep their credit; the refused one got its back.
        expect((yield* balanceOf(busy.id)).used).toBe(4)
        // A call that ends frees its slot: a waiting call then runs.
        const waiting = yield* Effect.fork(call(soft, keyHeader(busy.api_key)))
        yield* until(Effect.map(Effect.flatMap(InFlight, (inFlight) => inFlight.users(busy.id)), (users) => users === 5))
        yield* Deferred.succeed(running[0]!.release, undefined)
        expect((yield* Fiber.join(waiting)).status).toBe(200)
        yield* Effect.forEach(running.slice(1), ({ release }) => Deferred.succeed(release, undefined), { discard: true })
        expect((yield* Fiber.join(held)).map((answer) => answer.status)).toEqual([200, 200, 200, 200])
      }))

    it.effect("session calls take the account's rate window as keyed calls do: 429 with its headers past it", () =>
      Effect.gen(function*() {
        const owner = yield* account({ plan: "pro", password })
        const session = yield* signIn(owner.email, password)
        const { origin } = yield* sameOrigin
        const viaSession = () => call("/api/probe/soft", { headers: { cookie: session.cookie, origin } })
        for (let i = 0; i < 5; i++) expect((yield* viaSession()).status).toBe(200)
        for (let i = 0; i < 3; i++) expect((yield* call(soft, keyHeader(owner.api_key))).status).toBe(200)
        // Eight calls this minute, either way: the ninth is refused, by session and by key.
        const refused = yield* viaSession()
        expect([refused.status, refused.body]).toEqual([429, `{"success":false,"error":"Rate limit exceeded. Max 8 requests per minute."}`])
        expect(refused.headers.get("retry-after")).toMatch(/^\d+$/)
        expect(refused.headers.get("ratelimit")).toMatch(/^"minute";r=0;t=\d+$/)
        expect((yield* call(soft, keyHeader(owner.api_key))).status).toBe(429)
        // Session calls cost no credit.
        expect((yield* balanceOf(owner.id)).used).toBe(3)
        yield* TestClock.adjust("61 seconds")
        expect((yield* viaSession()).status).toBe(200)
      }))
  })
})

describe("fair use: the statement timeout and one account's heavy load (issue 28)", () => {
  layer(testServer({ api: ProbeApiLive, config: { rateLimitPerMinute: 100_000 } }).pipe(
    Layer.provideMerge(testDatabaseWith({ DATABASE_STATEMENT_TIMEOUT: "1 second" }))
  ), { timeout: 120_000 })((it) => {
    it.effect("a statement past DATABASE_STATEMENT_TIMEOUT is cancelled: the 500 envelope, the credit back, the connection free", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "pro" })
        // More calls than the pool has connections: each is cancelled at the timeout and gives its connection back.
        // (Three accounts: each may have 4 calls in flight.)
        const others = [yield* account({ plan: "pro" }), yield* account({ plan: "pro" })]
        const keys = [api_key, ...others.map((o) => o.api_key)]
        const answers = yield* Effect.all(Array.from({ length: 12 }, (_, i) => call("/api/v1/probe/slow?ms=5000", keyHeader(keys[i % 3]!))), { concurrency: "unbounded" })
        for (const answer of answers) expect([answer.status, answer.body]).toEqual([500, `{"success":false,"error":"Internal server error"}`])
        expect((yield* balanceOf(id)).used).toBe(0)
        expect((yield* call("/api/v1/probe/slow?ms=100", keyHeader(api_key))).status).toBe(200)
        // Background work lifts the timeout for its own transaction.
        const sql = yield* SqlClient.SqlClient
        const slept = yield* sql.withTransaction(Effect.zipRight(unboundedStatements(sql), sql`select pg_sleep(1.2)::text as slept`))
        expect(slept).toEqual([{ slept: "" }])
      }))

    it.effect("one account's 50 concurrent heavy calls do not queue another account's cheap calls behind them", () =>
      Effect.gen(function*() {
        const heavy = yield* account({ plan: "pro" })
        const light = yield* account({ plan: "pro" })
        const inFlight = yield* InFlight
        const sql = yield* SqlClient.SqlClient
        const sleeping = Effect.map(sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where query like 'select pg_sleep%' and state = 'active'`, (rows) => rows[0]!.n)
        let heavyAnswered = 0
        const load = yield* Effect.fork(Effect.all(
          // Half a second each: at 4 at a time, 8 answered a second, so that three cheap calls slowed
          // by a loaded machine (the test run's other files) still see fewer than 20 (at 200 ms, 24 once).
          Array.from({ length: 50 }, () => Effect.tap(call("/api/v1/probe/slow?ms=500", keyHeader(heavy.api_key)), () => Effect.sync(() => heavyAnswered++))),
          { concurrency: "unbounded" }
        ))
        // The heavy calls are in: more of them than the cap, running or waiting for a slot.
        yield* until(Effect.map(inFlight.users(heavy.id), (users) => users > 4))
        const heavyAnsweredBefore: Array<number> = []
        for (let i = 0; i < 3; i++) {
          expect((yield* call(soft, keyHeader(light.api_key))).status).toBe(200)
          heavyAnsweredBefore.push(heavyAnswered)
        }
        const heavyAnswers = yield* Fiber.join(load)
        expect(heavyAnswers.every((answer) => answer.status === 200 || answer.status === 429)).toBe(true)
        expect(yield* sleeping).toBe(0)
        // Counted, not timed (a loaded machine slows both sides alike): with 4 heavy calls at a
        // time the cheap ones pass while the first few heavy ones sleep. Without the cap the
        // pool's 10 connections go to the heavy calls in their order, and the first cheap call
        // waits for 40 of them to start, 30 to end.
        expect(heavyAnsweredBefore[2]).toBeLessThan(20)
      }))
  })
})
