import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, TestClock } from "effect"
import pg from "pg"
import { inject } from "vitest"
import { Accounts } from "../src/access/accounts/Accounts.js"
import { AccountEvents } from "../src/access/events/AccountEvents.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, testEnvironment } from "./support/TestServer.js"

/**
 * The account's event outbox (issue 32; H3): events are written with the change that caused
 * them, in order, read back by stream position, and pruned in bounded batches.
 */

const services = Layer.mergeAll(Accounts.Default, AccountEvents.Default).pipe(
  Layer.provideMerge(TestDatabase),
  Layer.provide(testEnvironment())
)

layer(services)("the outbox", (it) => {
  describe("events of a change", () => {
    it.effect("a regenerated key records api_key.regenerated at the Clock's instant, once", () =>
      Effect.gen(function*() {
        const created = yield* account()
        yield* TestClock.setTime(Date.UTC(2026, 10, 26, 9, 30))
        yield* Effect.orDie((yield* Accounts).regenerateKey(created.id))
        const events = yield* (yield* AccountEvents).eventsAfter(created.id, 0, 10)
        expect(events.map(({ type, data, created_at }) => ({ type, data, created_at: created_at.toISOString() }))).toEqual([
          { type: "api_key.regenerated", data: { via: "operator" }, created_at: "2026-11-26T09:30:00.000Z" }
        ])
        expect(events[0]!.id).toMatch(/^evt_[A-Za-z0-9_-]{22}$/)
      }))

    it.effect("an event emitted in a transaction that rolls back is not kept", () =>
      Effect.gen(function*() {
        const created = yield* account()
        const sql = yield* SqlClient.SqlClient
        const events = yield* AccountEvents
        const failed = yield* sql.withTransaction(
          Effect.zipRight(
            events.emit([{ accountId: created.id, type: "webhook.test", data: {} }], new Date(0)),
            Effect.fail("the change failed" as const)
          )
        ).pipe(Effect.flip, Effect.orDie)
        expect(failed).toBe("the change failed")
        expect(yield* events.eventsAfter(created.id, 0, 10)).toEqual([])
      }))
    it.effect("events a statement selects are recorded by that statement, in its order, each with its own id", () =>
      Effect.gen(function*() {
        const created = yield* account()
        const sql = yield* SqlClient.SqlClient
        const events = yield* AccountEvents
        const at = new Date(Date.UTC(2026, 10, 2))
        const source = sql`
          select ${created.id}::uuid as account_id, 'saved_search.matches_new'::text as type, jsonb_build_object('n', n) as data
            from generate_series(1, 50) n order by n`
        yield* sql`with recorded as (${events.emitFrom(source, at)}) select count(*) from recorded`
        const stored = yield* events.eventsAfter(created.id, 0, 100)
        expect(stored.map((e) => e.data)).toEqual(Array.from({ length: 50 }, (_, i) => ({ n: i + 1 })))
        expect(stored.every((e) => /^evt_[A-Za-z0-9_-]{22}$/.test(e.id) && e.created_at.getTime() === at.getTime())).toBe(true)
        expect(new Set(stored.map((e) => e.id)).size).toBe(50)
      }))
  })

  describe("the stream", () => {
    it.effect("emits many in one call, in order; reads them after a position, a bounded page at a time", () =>
      Effect.gen(function*() {
        const [a, b] = [yield* account(), yield* account()]
        const events = yield* AccountEvents
        const at = new Date(Date.UTC(2026, 10, 1))
        const stored = yield* events.emit([
          { accountId: a.id, type: "brand.ads_new", data: { n: 1 } },
          { accountId: b.id, type: "brand.ads_new", data: { n: 2 } },
          { accountId: a.id, type: "brand.ads_stopped", data: { n: 3 } },
          { accountId: a.id, type: "saved_search.matches_new", data: { n: 4 } }
        ], at)
        expect(stored.map((e) => e.data["n"])).toEqual([1, 2, 3, 4])
        expect(new Set(stored.map((e) => e.id)).size).toBe(4)
        const first = yield* events.eventsAfter(a.id, 0, 2)
        expect(first.map((e) => e.data["n"])).toEqual([1, 3])
        const rest = yield* events.eventsAfter(a.id, first[1]!.seq, 2)
        expect(rest.map((e) => e.data["n"])).toEqual([4])
        expect(yield* events.eventsAfter(a.id, rest[0]!.seq, 2)).toEqual([])
        // "From now" starts after the account's last event; another account's later ones are not its.
        expect(yield* events.latestEvent(a.id)).toBe(rest[0]!.seq)
        expect(yield* events.latestEvent((yield* account()).id)).toBe(0)
        expect(yield* events.emit([], at)).toEqual([])
      }))

    it.effect("a reader never passes over an event whose transaction commits after a later-numbered one's", () =>
      Effect.gen(function*() {
        const created = yield* account()
        const sql = yield* SqlClient.SqlClient
        const events = yield* AccountEvents
        const at = new Date(Date.UTC(2026, 10, 2))
        const inserted = yield* Deferred.make<void>()
        const commit = yield* Deferred.make<void>()
        // The first event takes its position, then its transaction stays open…
        const slow = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
          yield* events.emit([{ accountId: created.id, type: "brand.ads_new", data: { n: "first" } }], at)
          yield* Deferred.succeed(inserted, undefined)
          yield* Deferred.await(commit)
        })).pipe(Effect.orDie))
        yield* Deferred.await(inserted)
        // …while a later-numbered one commits at once.
        yield* events.emit([{ accountId: created.id, type: "brand.ads_new", data: { n: "second" } }], at)
        // A stream reads, advances its cursor, then reads again after the first commits.
        const read: Array<unknown> = []
        let cursor = 0
        const poll = Effect.gen(function*() {
          const batch = yield* events.eventsAfter(created.id, cursor, 10)
          read.push(...batch.map((e) => e.data["n"]))
          if (batch.length > 0) cursor = batch[batch.length - 1]!.seq
        })
        yield* poll
        yield* Deferred.succeed(commit, undefined)
        yield* Fiber.join(slow)
        yield* poll
        // By position alone the first poll would have read "second" and passed over "first".
        expect(read).toEqual(["first", "second"])
        expect(yield* events.latestEvent(created.id)).toBe(cursor)
      }))

    it.effect("a transaction open in another database of the server holds no stream back (migration 0103)", () =>
      Effect.gen(function*() {
        const created = yield* account()
        const events = yield* AccountEvents
        // Another database's write transaction, open from before the event to after its read.
        const elsewhere = new pg.Client({ connectionString: inject("adminDatabaseUrl") })
        yield* Effect.acquireRelease(
          Effect.promise(async () => {
            await elsewhere.connect()
            await elsewhere.query("begin")
            await elsewhere.query("select pg_current_xact_id()")
          }),
          () => Effect.promise(() => elsewhere.end())
        )
        yield* events.emit([{ accountId: created.id, type: "webhook.test", data: { n: 1 } }], new Date(Date.UTC(2026, 10, 2)))
        expect((yield* events.eventsAfter(created.id, 0, 10)).map((e) => e.data["n"])).toEqual([1])
      }).pipe(Effect.scoped))

    it.effect("pruning forgets only events older than the instant, at most the batch's size", () =>
      Effect.gen(function*() {
        const created = yield* account()
        const events = yield* AccountEvents
        const day = (d: number) => new Date(Date.UTC(2020, 0, d))
        for (const d of [1, 2, 3]) yield* events.emit([{ accountId: created.id, type: "webhook.test", data: { d } }], day(d))
        // Other tests' events are newer than 2020, so only this account's are old enough.
        expect(yield* events.pruneEvents(day(3), 1)).toBe(1)
        expect((yield* events.eventsAfter(created.id, 0, 10)).map((e) => e.data["d"])).toEqual([2, 3])
        expect(yield* events.pruneEvents(day(3), 10)).toBe(1)
        expect((yield* events.eventsAfter(created.id, 0, 10)).map((e) => e.data["d"])).toEqual([3])
      }))
  })
})
