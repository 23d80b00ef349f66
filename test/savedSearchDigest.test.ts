import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Clock, Effect, Layer, TestClock } from "effect"
import { randomUUID } from "node:crypto"
import { AccountEvents } from "../src/access/events/AccountEvents.js"
import { SavedSearches } from "../src/ads/savedSearches/SavedSearches.js"
import type { AccountId } from "../src/kernel/Ids.js"
import { AccountAlerts } from "../src/notifications/alerts/AccountAlerts.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, sendJson, testServer } from "./support/TestServer.js"

/**
 * The saved-search digest's queue (migration 0100): each `saved_search.matches_new` event is
 * read once, queued under its slot and told when the slot comes, with the preferences of then.
 * Through HTTP (the inbox) and the tables a pass leaves behind: more events than a page and more
 * due groups than a transaction tells, preferences changed while an event waits, a search
 * deleted before its slot, two passes at once, and an event naming many searches (issue 44).
 */

const DAY = 86_400_000
const HOUR = 3_600_000
const env = Layer.provideMerge(Layer.mergeAll(testServer(), AccountEvents.Default, SavedSearches.Default), TestDatabase)

const send = sendJson
const inboxOf = (key: string) => Effect.map(sendJson(key, "GET", "/api/v1/notifications?page_size=100"), (answer) => answer.json)
const alertsPass = Effect.flatMap(AccountAlerts, (alerts) => alerts.pass)
const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** A saved search of the account, made through the API. */
const saved = (key: string, name: string) =>
  Effect.map(send(key, "POST", "/api/v1/saved-searches", { name, library: "social", filters: { q: `digest ${name}` } }), (answer) => {
    expect(answer.status).toBe(200)
    return answer.json.saved_search.id as string
  })

/** A matches event of the search as the import's end recorded it before issue 44 (one per search), at the clock's instant. */
const matched = (accountId: AccountId, searchId: string, adIds: ReadonlyArray<string>) =>
  Effect.flatMap(now, (at) =>
    Effect.flatMap(AccountEvents, (events) =>
      events.emit([{ accountId, type: "saved_search.matches_new", data: { saved_search_id: searchId, library: "social", count: adIds.length, ad_ids: adIds } }], at)))

/** The next daily slot (08:00 UTC, the default preferences) strictly after the clock. */
const nextDaily = Effect.map(Clock.currentTimeMillis, (ms) => {
  const at8 = Math.floor(ms / DAY) * DAY + 8 * HOUR
  return at8 > ms ? at8 : at8 + DAY
})
const toSlot = (slot: number) => Effect.flatMap(Clock.currentTimeMillis, (ms) => TestClock.adjust(slot - ms))

const queueRows = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`select count(*)::int as n from saved_search_digest_queue`)
const cursorSeq = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ seq: string }>`select seq::text from notification_cursors where name = 'saved_search_digest'`)
const lastMatchesSeq = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ seq: string }>`select max(seq)::text as seq from outbox_events where type = 'saved_search.matches_new'`)

describe("the saved-search digest queue (migration 0100)", () => {
  layer(env, { timeout: 120_000 })((it) => {
    it.effect("627 events of 209 searches (more than a page read, more than 200 groups told a transaction): every search told once, in one pass; the queue empties and the cursor stops at the last event", () =>
      Effect.gen(function*() {
        yield* alertsPass // earlier events (none yet) behind the cursor
        const owners = yield* Effect.forEach(Array.from({ length: 11 }), () => account())
        const searches = yield* Effect.forEach(owners, (owner) =>
          Effect.forEach(Array.from({ length: 19 }, (_, i) => i), (i) => Effect.map(saved(owner.api_key, `s${i}`), (id) => ({ owner, id }))))
        const all = searches.flat()
        for (const round of [0, 1, 2]) {
          yield* Effect.forEach(all, ({ owner, id }) => matched(owner.id, id, [`ad-${round}-${id.slice(0, 8)}`]), { concurrency: 4 })
          yield* TestClock.adjust("1 minute")
        }
        // Queued by a pass before the slot: nothing told yet.
        yield* alertsPass
        expect((yield* queueRows)[0]!.n).toBe(627)
        expect((yield* inboxOf(owners[0]!.api_key)).total).toBe(0)
        yield* toSlot(yield* nextDaily)
        const delivered = yield* alertsPass
        expect(delivered).toBe(209)
        for (const owner of owners) {
          const inbox = yield* inboxOf(owner.api_key)
          expect(inbox.total).toBe(19)
          expect(inbox.data.map((item: any) => [item.type, item.data.count, item.data.event_ids.length])).toEqual(
            Array.from({ length: 19 }, () => ["saved_search_matches", 3, 3]))
        }
        expect((yield* queueRows)[0]!.n).toBe(0)
        expect((yield* cursorSeq)[0]!.seq).toBe((yield* lastMatchesSeq)[0]!.seq)
        // Nothing is read or told again.
        expect(yield* alertsPass).toBe(0)
        expect((yield* inboxOf(owners[3]!.api_key)).total).toBe(19)
      }))

    it.effect("preferences changed while an event waits: weekly moves it to Monday's slot, off drops it; a search deleted before its slot gets no item", () =>
      Effect.gen(function*() {
        const weekly = yield* account()
        const off = yield* account()
        const gone = yield* account()
        const weeklySearch = yield* saved(weekly.api_key, "later")
        const offSearch = yield* saved(off.api_key, "never")
        const goneSearch = yield* saved(gone.api_key, "deleted")
        yield* matched(weekly.id, weeklySearch, ["w-1"])
        yield* matched(off.id, offSearch, ["o-1"])
        yield* matched(gone.id, goneSearch, ["g-1"])
        yield* alertsPass // queued under tomorrow's 08:00
        expect((yield* queueRows)[0]!.n).toBe(3)
        expect((yield* send(weekly.api_key, "POST", "/api/v1/brands/notifications/prefs", { frequency: "weekly", hour_utc: 6 })).status).toBe(200)
        expect((yield* send(off.api_key, "POST", "/api/v1/brands/notifications/prefs", { frequency: "off" })).status).toBe(200)
        expect((yield* send(gone.api_key, "DELETE", `/api/v1/saved-searches/${goneSearch}`)).status).toBe(200)
        const created = (yield* now).getTime()
        yield* toSlot(yield* nextDaily)
        expect(yield* alertsPass).toBe(0)
        expect([(yield* inboxOf(weekly.api_key)).total, (yield* inboxOf(off.api_key)).total, (yield* inboxOf(gone.api_key)).total]).toEqual([0, 0, 0])
        expect((yield* queueRows)[0]!.n).toBe(1) // the weekly one waits
        const dayStart = Math.floor(created / DAY) * DAY
        const monday6 = dayStart - ((new Date(created).getUTCDay() + 6) % 7) * DAY + 6 * HOUR
        const weeklySlot = monday6 > created ? monday6 : monday6 + 7 * DAY
        if (weeklySlot > (yield* Clock.currentTimeMillis)) {
          yield* toSlot(weeklySlot - 1)
          yield* alertsPass
          expect((yield* inboxOf(weekly.api_key)).total).toBe(0)
          yield* toSlot(weeklySlot)
        }
        expect(yield* alertsPass).toBe(1)
        const inbox = yield* inboxOf(weekly.api_key)
        expect(inbox.data.map((item: any) => [item.title, item.created_at, item.data.ad_ids])).toEqual([
          ["later: 1 new match", new Date(weeklySlot).toISOString(), ["w-1"]]
        ])
        expect((yield* queueRows)[0]!.n).toBe(0)
      }))

    it.effect("two replicas' passes at once tell each group once", () =>
      Effect.gen(function*() {
        const owner = yield* account()
        const ids = yield* Effect.forEach(["a", "b", "c"], (name) => saved(owner.api_key, name))
        yield* Effect.forEach(ids, (id) => matched(owner.id, id, [`twice-${id.slice(0, 4)}`]))
        yield* toSlot(yield* nextDaily)
        const [one, two] = yield* Effect.all([alertsPass, alertsPass], { concurrency: 2 })
        expect(one + two).toBe(3)
        expect((yield* inboxOf(owner.api_key)).total).toBe(3)
      }))

    it.effect("an event naming 250 searches (one per account and import since issue 44): each search its own item, told over two transactions of at most 200 groups; an event of before adds to its search's", () =>
      Effect.gen(function*() {
        const owner = yield* account({ plan: "premium" })
        const searches = yield* SavedSearches
        const ids = yield* Effect.forEach(Array.from({ length: 250 }, (_, i) => i), (i) =>
          Effect.map(
            searches.create({ accountId: owner.id, plan: "premium" }, { name: `many ${i}`, library: "social", filters: { q: `digest many ${i}` } }),
            (search) => search.id
          ))
        const at = yield* now
        yield* (yield* AccountEvents).emit([{
          accountId: owner.id,
          type: "saved_search.matches_new",
          data: { import_id: randomUUID(), saved_searches: ids.map((id, i) => ({ saved_search_id: id, library: "social", count: 2, ad_ids: i < 100 ? [`many-${i}`] : [] })) }
        }], at)
        yield* TestClock.adjust("1 minute")
        yield* matched(owner.id, ids[0]!, ["before-0"])
        yield* alertsPass
        expect((yield* queueRows)[0]!.n).toBe(251)
        yield* toSlot(yield* nextDaily)
        yield* alertsPass
        const sql = yield* SqlClient.SqlClient
        const items = yield* sql<{ search: string; count: number; ad_ids: Array<string>; events: number }>`
          select data -> 'saved_search' ->> 'id' as search, (data ->> 'count')::int as count,
                 array(select jsonb_array_elements_text(data -> 'ad_ids')) as ad_ids, jsonb_array_length(data -> 'event_ids') as events
            from notifications where account_id = ${owner.id}::uuid`
        const byId = new Map(items.map((item) => [item.search, item]))
        expect(items).toHaveLength(250)
        expect(byId.get(ids[0]!)).toEqual({ search: ids[0], count: 3, ad_ids: ["before-0", "many-0"], events: 2 })
        expect(byId.get(ids[99]!)).toEqual({ search: ids[99], count: 2, ad_ids: ["many-99"], events: 1 })
        expect(byId.get(ids[249]!)).toEqual({ search: ids[249], count: 2, ad_ids: [], events: 1 })
        expect((yield* queueRows)[0]!.n).toBe(0)
      }))
  })
})
