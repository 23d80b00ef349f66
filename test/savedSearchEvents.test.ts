import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { Context, Deferred, Effect, Layer, Stream, TestClock } from "effect"
import { CurrentImport, ImportEvents } from "../src/access/events/ImportEvents.js"
import type { AccountId } from "../src/kernel/Ids.js"
import { Ingest } from "../src/ingest/Ingest.js"
import { ingestAll } from "./support/AdWorld.js"
import { account } from "./support/TestServer.js"
import { adOf, allIds, create, eventsOf, get, importOf, importWorld, matchesToldTo, prefix, send, sharesOf } from "./support/SavedSearchWorld.js"

/**
 * Saved searches' events (issue 32; INTERPRETATIONS H1, H3): one per account and import (issue
 * 44), naming each search that matched, whatever the import's batches and lanes, an import that
 * fails halfway or dies, searches that share one query, and an account's every search matching
 * one import. (The routes: test/savedSearches.test.ts.)
 */

describe("saved-search events: one per account and import, naming each search (H1, H3)", () => {
  layer(importWorld, { timeout: 120_000 })((it) => {
    const pendingRows = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`
      select (select count(*) from import_pending_events)::int + (select count(*) from import_pending_query_matches)::int as n`)
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

    it.effect("an import of 2,500 ads (three batches, both lanes) is one event naming each matching search once, with its count and its newest matches (100 in all)", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "pro" })
        const few = (yield* create(api_key, { name: "Few", library: "social", filters: { q: "zebrafinch" } })).json.saved_search
        const many = (yield* create(api_key, { name: "Many", library: "social", filters: { q: "okapi" } })).json.saved_search
        yield* create(api_key, { name: "None", library: "social", filters: { q: "narwhal" } })
        yield* TestClock.adjust("1 second")
        yield* ingestAll("ads", importOf("lanes", 2_500, [["zebrafinch", 40, 0], ["okapi", 16, 1]]))

        const fewMatches = yield* allIds(api_key, `${prefix}/${few.id}/matches`, {})
        const manyMatches = yield* allIds(api_key, `${prefix}/${many.id}/matches`, {})
        expect([fewMatches.length, manyMatches.length]).toEqual([63, 157])
        const events = yield* eventsOf(id)
        expect(events.map((e) => e.type)).toEqual(["saved_search.matches_new"])
        // The searches in id order, the event's 100 ad ids shared in turns: 50 each here.
        const told = ([[few.id, fewMatches], [many.id, manyMatches]] as const).slice().sort(([a], [b]) => a.localeCompare(b))
        const shares = sharesOf(told.map(([, matches]) => matches.length))
        expect(shares).toEqual([50, 50])
        expect(events[0]!.data).toEqual({
          import_id: expect.stringMatching(uuid),
          saved_searches: told.map(([sid, matches], i) => ({ saved_search_id: sid, library: "social", count: matches.length, ad_ids: matches.slice(0, shares[i]) }))
        })
        // Nothing is left waiting.
        expect((yield* pendingRows)[0]!.n).toBe(0)
      }))

    it.effect("an import that fails halfway tells the matches its committed batches stored, once", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "pro" })
        const search = (yield* create(api_key, { name: "Axolotl", library: "social", filters: { q: "axolotl" } })).json.saved_search
        yield* TestClock.adjust("1 second")
        const ingest = yield* Ingest
        // The upload breaks once the first batch (1,000 lines, both lanes) is committed.
        const firstBatch = yield* Deferred.make<void>()
        const failed = yield* Effect.flip(ingest.records(
          "ads",
          Stream.concat(
            Stream.fromIterable(importOf("broken", 1_500, [["axolotl", 20, 3]])),
            Stream.fromEffect(Effect.zipRight(Deferred.await(firstBatch), Effect.fail("the upload broke")))
          ),
          (progress) => (progress.accepted >= 1_000 ? Deferred.succeed(firstBatch, undefined) : Effect.void)
        ))
        expect(failed).toBe("the upload broke")
        const stored = yield* allIds(api_key, `${prefix}/${search.id}/matches`, {})
        // The first batch's 50 matches, and none of the lines after it.
        expect(stored).toHaveLength(50)
        expect(yield* matchesToldTo(id)).toEqual([[[search.id, stored.length, stored]]])
        // A later import tells nothing again.
        yield* ingestAll("ads", importOf("after", 10, []))
        expect((yield* eventsOf(id)).length).toBe(1)
      }))

    it.effect("a search's matches from many imports, their first-seen days interleaved, page in the live search's order at every limit", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "pro" })
        const search = (yield* create(api_key, { name: "Tapir", library: "social", filters: { q: "tapir" } })).json.saved_search
        yield* TestClock.adjust("1 second")
        // Six imports, each its own match row, each spanning most of the month (and ties on first_seen).
        for (let n = 0; n < 6; n++) {
          yield* ingestAll("ads", Array.from({ length: 9 }, (_, i) =>
            adOf(`ss-tapir-${n}-${i}`, (i * 3 + n * 5) % 28, { headline: `tapir ${n} import`, advertiser_external_id: "ss-adv-1" })))
        }
        yield* TestClock.adjust("61 seconds")
        const live = yield* allIds(api_key, "/api/v1/adlibrary", { q: "tapir", sort: "newest" })
        expect(live).toHaveLength(54)
        expect(yield* allIds(api_key, `${prefix}/${search.id}/matches`, {})).toEqual(live)
        for (const limit of [1, 2, 5, 7]) {
          yield* TestClock.adjust("61 seconds")
          const ids: Array<string> = []
          let page = (yield* get(api_key, `${prefix}/${search.id}/matches?limit=${limit}`)).json
          for (;;) {
            expect(page.data.length).toBe(Math.min(limit, live.length - ids.length))
            ids.push(...page.data.map((a: { id: string }) => a.id))
            if (page.scroll_token === null) break
            page = (yield* get(api_key, `${prefix}/${search.id}/matches?scroll_token=${page.scroll_token}`)).json
          }
          expect({ limit, ids }).toEqual({ limit, ids: live })
        }
      }))

    it.effect("searches that ask the same thing share one query: each sees the imports after it was saved, is told its own, and keeps the matches when the other is deleted", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [a, b] = [yield* account({ plan: "pro" }), yield* account({ plan: "pro" })]
        const queriesOf = (word: string) =>
          sql<{ searches: number }>`select searches from saved_search_queries where tsq = websearch_to_tsquery('english', ${word})`
        const early = (yield* create(a.api_key, { name: "Early", library: "social", filters: { q: "Wombats" } })).json.saved_search
        yield* ingestAll("ads", importOf("wb-1", 30, [["wombat", 3, 0]]))
        // Saved between the two imports, the same query in other words ("Wombats" and "wombat" compile alike).
        const late = (yield* create(b.api_key, { name: "Late", library: "social", filters: { q: "wombat" } })).json.saved_search
        expect((yield* queriesOf("wombat")).map((q) => q.searches)).toEqual([2])
        yield* ingestAll("ads", importOf("wb-2", 30, [["wombat", 5, 0]]))

        const earlyMatches = yield* allIds(a.api_key, `${prefix}/${early.id}/matches`, {})
        const lateMatches = yield* allIds(b.api_key, `${prefix}/${late.id}/matches`, {})
        expect([earlyMatches.length, lateMatches.length]).toEqual([16, 6])
        expect(lateMatches.every((id) => id.startsWith("ss-wb-2-"))).toBe(true)
        expect(earlyMatches.filter((id) => id.startsWith("ss-wb-2-"))).toEqual(lateMatches)
        // Each account is told its own: a's two imports, b's second only.
        const told = (id: AccountId) => Effect.map(matchesToldTo(id), (events) => events.map((searches) => searches.map(([sid, count]) => [sid, count])))
        expect(yield* told(a.id)).toEqual([[[early.id, 10]], [[early.id, 6]]])
        expect(yield* told(b.id)).toEqual([[[late.id, 6]]])

        // One delete leaves the other's matches; the last takes the query and its rows.
        expect((yield* send(a.api_key, "DELETE", `${prefix}/${early.id}`)).status).toBe(200)
        expect(yield* allIds(b.api_key, `${prefix}/${late.id}/matches`, {})).toEqual(lateMatches)
        expect((yield* queriesOf("wombat")).map((q) => q.searches)).toEqual([1])
        expect((yield* send(b.api_key, "DELETE", `${prefix}/${late.id}`)).status).toBe(200)
        expect(yield* queriesOf("wombat")).toEqual([])
        const left = yield* sql<{ n: number }>`
          select (select count(*) from saved_search_query_matches m where not exists (select from saved_search_queries q where q.id = m.query_id))::int as n`
        expect(left[0]!.n).toBe(0)
      }))

    it.scoped("an import that died before its end (its process killed) is told by the first import an hour after its last batch", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "pro" })
        const search = (yield* create(api_key, { name: "Pangolin", library: "social", filters: { q: "pangolin" } })).json.saved_search
        yield* TestClock.adjust("1 second")
        // An ingest whose import never reaches its end: its batches commit, nothing tells them.
        const imports = yield* ImportEvents
        const dying = Context.get(
          yield* Layer.build(Ingest.DefaultWithoutDependencies.pipe(Layer.provide(Layer.succeed(ImportEvents, ImportEvents.make({
            ...imports,
            duringImport: (effect) => Effect.provideService(effect, CurrentImport, { id: randomUUID() })
          }))))),
          Ingest
        )
        yield* dying.records("ads", Stream.fromIterable(importOf("dead", 30, [["pangolin", 3, 0]])))
        expect(yield* eventsOf(id)).toEqual([])
        expect((yield* pendingRows)[0]!.n).toBeGreaterThan(0)
        // Within the hour another import's end leaves them (that import may still be running).
        yield* TestClock.adjust("59 minutes")
        yield* ingestAll("ads", importOf("soon", 3, []))
        expect(yield* eventsOf(id)).toEqual([])
        yield* TestClock.adjust("61 seconds")
        yield* ingestAll("ads", importOf("later", 3, []))
        const stored = yield* allIds(api_key, `${prefix}/${search.id}/matches`, {})
        expect(stored).toHaveLength(10)
        expect(yield* matchesToldTo(id)).toEqual([[[search.id, 10, stored]]])
        expect((yield* pendingRows)[0]!.n).toBe(0)
      }))

  })
})
