import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { Clock, Effect, TestClock } from "effect"
import { anchorsOf } from "../src/ads/savedSearches/Anchors.js"
import { AccountAlerts } from "../src/notifications/alerts/AccountAlerts.js"
import { migrations } from "../src/platform/db/migrations/index.js"
import { ingestAll } from "./support/AdWorld.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, balanceOf } from "./support/TestServer.js"
import { adOf, allIds, asQuery, create, DAY, error, eventsOf, get, matchesToldTo, prefix, send, sharesOf, summed, world } from "./support/SavedSearchWorld.js"


/**
 * Saved searches (issue 32; INTERPRETATIONS H1) and the tracked brands' diffs (H3), through
 * HTTP: exact bodies, the search's own 400s, other accounts' ids, the plan's cap, the import's
 * matching pass against the live search (an oracle), its events, an import sent twice, and the
 * inbox item. The events of imports: test/savedSearchEvents.test.ts.
 */


describe("saved searches (H1)", () => {
  layer(world, { timeout: 120_000 })((it) => {
    it.effect("create, list (P2), delete: exact bodies; another account's id is a 404; 1 credit each", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const other = yield* account()
        const created = yield* create(api_key, { name: " Lanterns in the US ", library: "short-video", filters: { q: "lantern", country: "US,CA", min_views: 10, limit: 5 } })
        expect([created.status, created.json.error]).toEqual([200, undefined])
        const saved = {
          id: created.json.saved_search.id,
          name: "Lanterns in the US",
          library: "short-video",
          filters: { country: ["US", "CA"], min_views: 10, q: "lantern" },
          created_at: "1970-01-01T00:00:00.000Z",
          last_checked_at: null
        }
        expect(created.body).toBe(JSON.stringify({ success: true, saved_search: saved }))
        const second = (yield* create(api_key, { name: "Everything social", library: "social", filters: {} })).json.saved_search

        const listed = yield* get(api_key, prefix)
        expect(listed.body).toBe(JSON.stringify({ success: true, data: [second, saved], total: 2, page: 1, page_size: 20 }))
        expect((yield* get(api_key, `${prefix}?page=2&page_size=1`)).body).toBe(JSON.stringify({ success: true, data: [saved], total: 2, page: 2, page_size: 1 }))
        expect((yield* get(other.api_key, prefix)).body).toBe(JSON.stringify({ success: true, data: [], total: 0, page: 1, page_size: 20 }))

        // Another account's search, an unknown one and a malformed one: 404 (G10's 400 for characters no id has).
        expect([(yield* send(other.api_key, "DELETE", `${prefix}/${saved.id}`)).status, (yield* get(other.api_key, `${prefix}/${saved.id}/matches`)).body])
          .toEqual([404, error("Saved search not found")])
        expect((yield* send(api_key, "DELETE", `${prefix}/not-a-uuid`)).body).toBe(error("Saved search not found"))
        expect((yield* get(api_key, `${prefix}/a.b/matches`)).body).toBe(error("Invalid id"))

        const deleted = yield* send(api_key, "DELETE", `${prefix}/${saved.id}`)
        expect([deleted.status, deleted.body]).toEqual([200, `{"success":true}`])
        expect((yield* send(api_key, "DELETE", `${prefix}/${saved.id}`)).status).toBe(404)
        expect((yield* get(api_key, prefix)).json.data).toEqual([second])
        // 2 creates, 2 lists, the unknown and the malformed id, 2 deletes, a list.
        expect((yield* balanceOf(id)).used).toBe(2 + 2 + 2 + 2 + 1)
      }))

    it.effect("a bad filter is the 400 the library's search gives for it, naming the field", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const cases: ReadonlyArray<readonly [string, string, Record<string, unknown>, string]> = [
          ["social", "/api/v1/adlibrary", { min_likes: "lots" }, "min_likes=lots"],
          ["social", "/api/v1/adlibrary", { min_views: 5 }, "min_views=5"],
          ["social", "/api/v1/adlibrary", { country: ["USA"] }, "country=USA"],
          ["social", "/api/v1/adlibrary", { status: "paused" }, "status=paused"],
          ["short-video", "/api/v1/clipapp-ads", { min_views: -1 }, "min_views=-1"],
          ["search", "/api/v1/search-ads", { min_likes: 1 }, "min_likes=1"],
          ["pinboard", "/api/v1/pinboard-ads", { first_seen_from: "2026-13-01" }, "first_seen_from=2026-13-01"]
        ]
        for (const [library, route, filters, query] of cases) {
          const searched = yield* get(api_key, `${route}?${query}`)
          expect(searched.status).toBe(400)
          const saved = yield* create(api_key, { name: "Bad", library, filters })
          expect([saved.status, saved.body]).toEqual([400, searched.body])
        }
        expect((yield* create(api_key, { name: "Bad", library: "tv", filters: {} })).body).toBe(error("library: must be one of social, pinboard, short-video, search"))
        expect((yield* create(api_key, { name: "", library: "social", filters: {} })).body).toBe(error("name: must be a non-empty text of at most 100 characters"))
        expect((yield* get(api_key, prefix)).json.total).toBe(0)
      }))

    it.effect("the plan's cap at its edge: the 21st search on Basic is a 400 with the exact message", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        for (let i = 0; i < 20; i++) expect((yield* create(api_key, { name: `Search ${i}`, library: "social", filters: { q: `word${i}` } })).status).toBe(200)
        const refused = yield* create(api_key, { name: "One more", library: "social", filters: {} })
        expect([refused.status, refused.body]).toEqual([400, error("Saved searches are limited to 20 on the Basic plan")])
        expect((yield* get(api_key, prefix)).json.total).toBe(20)
        // Deleting one makes room.
        const first = (yield* get(api_key, `${prefix}?page_size=1`)).json.data[0].id
        yield* send(api_key, "DELETE", `${prefix}/${first}`)
        expect((yield* create(api_key, { name: "One more", library: "social", filters: {} })).status).toBe(200)
        const pro = yield* account({ plan: "pro" })
        for (let i = 0; i < 21; i++) expect((yield* create(pro.api_key, { name: `Search ${i}`, library: "social", filters: {} })).status).toBe(200)
      }))

    it.effect("matches: what the live search returns for the saved filters among the ads first seen after saving (oracle); events; re-import adds nothing", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const words = ["lantern", "quokka", "serum", "boots", "garden", "lamp"]
        const generate = (tag: string, n: number) =>
          Array.from({ length: n }, (_, i) =>
            adOf(`ss-o-${tag}-${i}`, i % 28, {
              headline: `${words[i % 6]} ${words[(i * 5 + 1) % 6]} offer`,
              body: i % 4 === 0 ? "The garden lamp you wanted" : `Fresh ${words[(i + 2) % 6]} deals`,
              advertiser_external_id: i % 3 === 0 ? "ss-adv-2" : "ss-adv-1",
              countries: i % 2 === 0 ? ["US"] : ["DE", "FR"],
              format: (["image", "video", "carousel"] as const)[i % 3],
              status: i % 5 === 0 ? "inactive" : "active",
              engagement: { likes: i * 10, comments: i, shares: 1 }
            }))
        // Ads stored before the searches are saved are never their matches.
        yield* ingestAll("ads", generate("old", 12))

        const searches: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
          ["social", { q: "lantern" }],
          ["social", { q: "lantern quokka" }],
          ["social", { q: "lantern or boots" }],
          ["social", { q: "serum -garden" }],
          ["social", { q: "\"garden lamp\"" }],
          ["social", { q: "boot" }],
          ["social", { q: "the" }],
          ["social", { country: ["DE"], format: ["image", "video"] }],
          ["social", { min_likes: 100, max_likes: 250, status: "active" }],
          ["social", { advertiser_id: "ss-adv-2", q: "lamp" }],
          ["social", { first_seen_from: "2026-09-10", first_seen_to: "2026-09-20" }],
          ["social", { platform: ["feed"], language: ["en"], niche: ["beauty"], cta: ["SHOP_NOW"], domain: "glowlab.example.com", min_days_running: 0 }],
          ["social", {}],
          ["pinboard", { q: "lantern" }]
        ]
        const saved: Array<{ id: string; library: string; filters: Record<string, unknown> }> = []
        for (const [library, filters] of searches) {
          const answer = yield* create(api_key, { name: `Oracle ${saved.length}`, library, filters })
          expect(answer.status).toBe(200)
          saved.push(answer.json.saved_search)
        }
        yield* TestClock.adjust("1 second")
        const fresh = generate("new", 40)
        yield* ingestAll("ads", fresh)

        const routes: Record<string, string> = { social: "/api/v1/adlibrary", pinboard: "/api/v1/pinboard-ads" }
        const counts: Array<number> = []
        for (const search of saved) {
          // (Each search in a rate window of its own: G5 allows 60 calls a minute.)
          yield* TestClock.adjust("61 seconds")
          const live = (yield* allIds(api_key, routes[search.library]!, { ...asQuery(search.filters), sort: "newest" })).filter((ad) => ad.startsWith("ss-o-new-"))
          const matches = yield* allIds(api_key, `${prefix}/${search.id}/matches`, {})
          expect({ filters: search.filters, matches }).toEqual({ filters: search.filters, matches: live })
          counts.push(matches.length)
        }
        // The oracle compared something: most searches matched, the stop-word and pinboard ones nothing.
        expect(counts.filter((n) => n > 0).length).toBeGreaterThanOrEqual(10)
        expect([counts[6], counts[13], counts[12]]).toEqual([0, 0, 40])

        // One event for the import (its two lanes' batches together), naming each saved search
        // with new matches in id order: its count and its newest matches as `/matches` shows
        // them, the event's 100 taken in turns.
        const events = yield* eventsOf(id)
        expect(events.map((e) => e.type)).toEqual(["saved_search.matches_new"])
        const matched = saved.map((search, i) => ({ search, count: counts[i]! })).filter(({ count }) => count > 0)
          .sort((a, b) => a.search.id.localeCompare(b.search.id))
        const shares = sharesOf(matched.map(({ count }) => count))
        const told = []
        for (const [i, { search, count }] of matched.entries()) {
          told.push([search.id, count, (yield* allIds(api_key, `${prefix}/${search.id}/matches`, {})).slice(0, shares[i])])
        }
        expect((yield* matchesToldTo(id))[0]).toEqual(told)
        expect(shares.reduce((a, b) => a + b, 0)).toBe(Math.min(100, counts.reduce((a, b) => a + b, 0)))

        // `limit` and the scroll token; a token of another saved search is refused.
        yield* TestClock.adjust("61 seconds")
        const first = yield* get(api_key, `${prefix}/${saved[12]!.id}/matches?limit=2`)
        expect(Object.keys(first.json)).toEqual(["success", "data", "scroll_token", "has_more"])
        expect(first.json.has_more).toBe(true)
        const next = yield* get(api_key, `${prefix}/${saved[12]!.id}/matches?scroll_token=${first.json.scroll_token}`)
        expect(next.json.data.length).toBe(2)
        expect((yield* get(api_key, `${prefix}/${saved[0]!.id}/matches?scroll_token=${first.json.scroll_token}`)).status).toBe(400)
        // A match is the ad as the searches show it.
        const shown = (yield* get(api_key, `/api/v1/adlibrary?q=${encodeURIComponent("lantern")}&limit=50&sort=newest`)).json.data
          .find((a: { id: string }) => a.id === first.json.data[0].id)
        if (shown !== undefined) expect(first.json.data[0]).toEqual(shown)

        // last_checked_at: the import looked after the search was saved.
        expect((yield* get(api_key, `${prefix}?page_size=1`)).json.data[0].last_checked_at).toBe("1970-01-01T00:00:01.000Z")

        // The same file again (and one changed ad): no new match, no new event.
        yield* ingestAll("ads", fresh)
        yield* ingestAll("ads", [{ ...fresh[0]!, headline: "lantern lantern changed" }])
        expect((yield* eventsOf(id)).length).toBe(events.length)
        expect(yield* allIds(api_key, `${prefix}/${saved[12]!.id}/matches`, {})).toHaveLength(40)
      }))

    it.effect("the inbox tells a search's new matches once per digest slot (daily or weekly per the preferences), none when digests are off", () =>
      Effect.gen(function*() {
        const a = yield* account() // never chose: daily at 08:00 UTC
        const b = yield* account()
        const w = yield* account()
        const search = (yield* create(a.api_key, { name: "Quokka watch", library: "social", filters: { q: "quokka lanterns inbox" } })).json.saved_search
        yield* create(b.api_key, { name: "Quokka watch", library: "social", filters: { q: "quokka lanterns inbox" } })
        yield* create(w.api_key, { name: "Weekly quokkas", library: "social", filters: { q: "quokka lanterns inbox" } })
        expect((yield* send(b.api_key, "POST", "/api/v1/brands/notifications/prefs", { frequency: "off" })).status).toBe(200)
        expect((yield* send(w.api_key, "POST", "/api/v1/brands/notifications/prefs", { frequency: "weekly", hour_utc: 6 })).status).toBe(200)
        // Two imports a minute apart: two events for each account.
        yield* ingestAll("ads", [adOf("ss-inbox-1", 3, { headline: "Quokka lanterns inbox", advertiser_external_id: "ss-adv-1" })])
        yield* TestClock.adjust("1 minute")
        yield* ingestAll("ads", [adOf("ss-inbox-2", 4, { headline: "Quokka lanterns inbox two", advertiser_external_id: "ss-adv-1" })])
        const told = yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ id: string; created_at: Date }>`select id, created_at from outbox_events where account_id = ${a.id}::uuid order by seq`)
        expect(told).toHaveLength(2)
        const alertsPass = Effect.flatMap(AccountAlerts, (alerts) => alerts.pass)
        const inboxOf = (key: string) => Effect.map(get(key, "/api/v1/notifications"), (answer) => answer.json)
        yield* alertsPass
        expect((yield* inboxOf(a.api_key)).total).toBe(0)

        // The daily slot after the events: 08:00 UTC.
        const last = told[1]!.created_at.getTime()
        const today8 = Date.UTC(new Date(last).getUTCFullYear(), new Date(last).getUTCMonth(), new Date(last).getUTCDate(), 8)
        const daily = today8 > last ? today8 : today8 + DAY
        yield* TestClock.adjust(daily - 1 - (yield* Clock.currentTimeMillis))
        yield* alertsPass
        expect((yield* inboxOf(a.api_key)).total).toBe(0)
        yield* TestClock.adjust(1)
        yield* alertsPass
        const inbox = (yield* inboxOf(a.api_key)).data
        expect(inbox).toEqual([{
          id: inbox[0].id,
          type: "saved_search_matches",
          title: "Quokka watch: 2 new matches",
          body: `In the day to ${new Date(daily).toISOString().slice(0, 16).replace("T", " ")} UTC, imports found 2 new ads matching your saved search "Quokka watch" (social library).`,
          created_at: new Date(daily).toISOString(),
          read: false,
          data: { saved_search: { id: search.id, name: "Quokka watch" }, library: "social", count: 2, ad_ids: ["ss-inbox-2", "ss-inbox-1"], event_ids: told.map((e) => e.id) }
        }])
        // Another pass delivers nothing twice; the weekly account waits for Monday 06:00; B (digests off) has the events but no item.
        yield* alertsPass
        expect((yield* inboxOf(a.api_key)).total).toBe(1)
        expect((yield* inboxOf(w.api_key)).total).toBe(0)
        const dayStart = Date.UTC(new Date(last).getUTCFullYear(), new Date(last).getUTCMonth(), new Date(last).getUTCDate())
        const monday6 = dayStart - ((new Date(last).getUTCDay() + 6) % 7) * DAY + 6 * 3_600_000
        const weekly = monday6 > last ? monday6 : monday6 + 7 * DAY
        yield* TestClock.adjust(weekly - (yield* Clock.currentTimeMillis))
        yield* alertsPass
        const weeklyInbox = (yield* inboxOf(w.api_key)).data
        expect(weeklyInbox.map((item: any) => [item.title, item.body, item.created_at, item.data.count])).toEqual([[
          "Weekly quokkas: 2 new matches",
          `In the week to ${new Date(weekly).toISOString().slice(0, 16).replace("T", " ")} UTC, imports found 2 new ads matching your saved search "Weekly quokkas" (social library).`,
          new Date(weekly).toISOString(),
          2
        ]])
        expect((yield* inboxOf(a.api_key)).total).toBe(1)
        expect((yield* eventsOf(b.id)).map((e) => e.type)).toEqual(["saved_search.matches_new", "saved_search.matches_new"])
        expect((yield* inboxOf(b.api_key)).total).toBe(0)
      }))
  })
})


describe("migration 0098: match rows per saved search and batch", () => {
  layer(TestDatabase)((it) => {
    it.effect("keeps every match of before, in the order /matches pages them, in rows of at most 1,000", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [a, b] = [randomUUID(), randomUUID()]
        const at = (day: number) => new Date(Date.UTC(2026, 8, 1) + day * DAY)
        // The table as 0090 left it, in a schema of its own (the migration names no schema).
        const rows = yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`create schema m0098_test`
          yield* sql`set local search_path to m0098_test`
          yield* sql`create table saved_search_matches (saved_search_id uuid not null, ad_id bigint not null, first_seen timestamptz not null)`
          yield* sql`
            insert into saved_search_matches (saved_search_id, ad_id, first_seen)
            select ${a}::uuid, n, ${at(0)}::timestamptz + (n % 40) * interval '1 day' from generate_series(1, 2500) n
            union all select ${b}::uuid, 7, ${at(3)}`
          yield* migrations["0098_saved_search_match_groups"]
          const grouped = yield* sql<{ id: string; n: number; newest: Date; oldest: Date }>`
            select saved_search_id::text as id, cardinality(ad_ids) as n, newest, oldest
              from saved_search_matches m order by saved_search_id, newest desc, cardinality(ad_ids) desc`
          const all = yield* sql<{ id: string; ad_id: string; first_seen: Date }>`
            select m.saved_search_id::text as id, u.ad_id::text, u.first_seen
              from saved_search_matches m cross join lateral unnest(m.ad_ids, m.first_seens) with ordinality u(ad_id, first_seen, i)
             order by m.saved_search_id, m.newest desc, u.i`
          yield* sql`drop schema m0098_test cascade`
          return { grouped, all }
        }))
        expect(rows.grouped.filter((r) => r.id === a).map((r) => r.n)).toEqual([1000, 1000, 500])
        expect(rows.grouped.filter((r) => r.id === b).map((r) => [r.n, r.newest, r.oldest])).toEqual([[1, at(3), at(3)]])
        // Every match of before, once, newest first (ties by the ad's row, newest first), row after row.
        const ofA = rows.all.filter((r) => r.id === a)
        const expected = Array.from({ length: 2500 }, (_, i) => i + 1)
          .map((n) => ({ n, first_seen: at(n % 40) }))
          .sort((x, y) => y.first_seen.getTime() - x.first_seen.getTime() || y.n - x.n)
        expect(ofA.map((r) => [Number(r.ad_id), r.first_seen.getTime()])).toEqual(expected.map((e) => [e.n, e.first_seen.getTime()]))
      }))
  })
})

describe("migration 0099: a conjunction's anchors become its one probe", () => {
  layer(TestDatabase)((it) => {
    it.effect("keeps the longest lexeme of a conjunction, every lexeme of an or, and marks a search's only anchor", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [and, or, one] = [randomUUID(), randomUUID(), randomUUID()]
        const rows = yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`create schema m0099_test`
          yield* sql`set local search_path to m0099_test`
          yield* sql`create table saved_search_anchors (library text not null, lexeme text not null, saved_search_id uuid not null, needed smallint not null)`
          yield* sql`
            insert into saved_search_anchors (library, lexeme, saved_search_id, needed) values
              ('social', 'red', ${and}::uuid, 3), ('social', 'lantern', ${and}::uuid, 3), ('social', 'quokka', ${and}::uuid, 3),
              ('social', 'boot', ${or}::uuid, 1), ('social', 'shoe', ${or}::uuid, 1),
              ('pinboard', 'lamp', ${one}::uuid, 1)`
          yield* migrations["0099_saved_search_probes"]
          const kept = yield* sql<{ id: string; lexeme: string; alone: boolean }>`
            select saved_search_id::text as id, lexeme, alone from saved_search_anchors order by lexeme`
          yield* sql`drop schema m0099_test cascade`
          return kept
        }))
        expect(rows.map((r) => [r.id, r.lexeme, r.alone])).toEqual([
          [or, "boot", false],
          [one, "lamp", true],
          [and, "lantern", true],
          [or, "shoe", false]
        ])
      }))
  })
})

describe("migration 0102: saved searches that ask the same thing share one query", () => {
  layer(TestDatabase)((it) => {
    it.effect("one query per distinct library and typed filters, with the first search's anchors; the trigger counts searches and drops a query with its last", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [s1, s2, s3, s4] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()]
        const result = yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`create schema m0102_test`
          yield* sql`set local search_path to m0102_test`
          // The tables as 0100 left them (the columns the migration reads).
          yield* sql`
            create table saved_searches (id uuid primary key, account_id uuid not null, name text not null, library text not null,
              filters jsonb not null, created_at timestamptz not null, seq bigint generated always as identity, anchored boolean not null,
              tsq tsquery, advertiser_id text, domain text, status text, formats text[], countries text[], languages text[],
              platforms text[], niches text[], ctas text[], first_seen_from timestamptz, first_seen_before timestamptz,
              last_seen_from timestamptz, last_seen_before timestamptz, min_days_running integer, max_days_running integer,
              min_likes bigint, max_likes bigint, min_comments bigint, max_comments bigint, min_shares bigint, max_shares bigint,
              min_views bigint, max_views bigint)`
          yield* sql`create index saved_searches_unanchored on saved_searches (library, advertiser_id, domain) where not anchored`
          yield* sql`create table saved_search_anchors (library text not null, lexeme text not null, saved_search_id uuid not null, alone boolean not null)`
          const account = randomUUID()
          yield* sql`
            insert into saved_searches (id, account_id, name, library, filters, created_at, anchored, tsq, countries, first_seen_from) values
              (${s1}::uuid, ${account}::uuid, 'one', 'social', '{}', '2026-09-01', true, 'lantern', null, '2026-08-01T00:00:00Z'),
              (${s2}::uuid, ${account}::uuid, 'two', 'social', '{}', '2026-09-02', true, 'lantern', null, '2026-08-01T02:00:00+02:00'),
              (${s3}::uuid, ${account}::uuid, 'three', 'social', '{}', '2026-09-03', true, 'lantern', '{US}', '2026-08-01T00:00:00Z'),
              (${s4}::uuid, ${account}::uuid, 'four', 'pinboard', '{}', '2026-09-04', true, 'lantern', null, '2026-08-01T00:00:00Z')`
          yield* sql`
            insert into saved_search_anchors (library, lexeme, saved_search_id, alone) values
              ('social', 'lantern', ${s1}::uuid, true), ('social', 'lantern', ${s2}::uuid, true),
              ('social', 'lantern', ${s3}::uuid, true), ('pinboard', 'lantern', ${s4}::uuid, true)`
          yield* migrations["0102_saved_search_queries"]
          const searches = yield* sql<{ id: string; query: string; after_pass: string }>`
            select id::text, query_id::text as query, after_pass::text from saved_searches order by created_at`
          const queries = yield* sql<{ id: string; library: string; searches: number; countries: ReadonlyArray<string> | null }>`
            select id::text, library, searches, countries from saved_search_queries order by id`
          const anchors = yield* sql<{ query: string; lexeme: string }>`select query_id::text as query, lexeme from saved_search_query_anchors order by query_id`
          const columns = yield* sql<{ name: string }>`
            select column_name as name from information_schema.columns where table_schema = 'm0102_test' and table_name = 'saved_searches' order by ordinal_position`
          yield* sql`delete from saved_searches where id = ${s1}::uuid`
          const afterOne = yield* sql<{ id: string; searches: number }>`select id::text, searches from saved_search_queries order by id`
          yield* sql`delete from saved_searches where id = ${s2}::uuid`
          const afterTwo = yield* sql<{ id: string }>`select id::text from saved_search_queries order by id`
          const anchorsLeft = yield* sql<{ n: number }>`select count(*)::int as n from saved_search_query_anchors`
          yield* sql`drop schema m0102_test cascade`
          return { searches, queries, anchors, columns, afterOne, afterTwo, anchorsLeft }
        }))
        // (Queries are numbered in the order of their keys: each is known here by its searches.)
        const [q1, , q2, q3] = result.searches.map((r) => r.query)
        // s1 and s2 name the same instant in two time zones: one query.
        expect(result.searches.map((r) => [r.query, r.after_pass])).toEqual([[q1, "0"], [q1, "0"], [q2, "0"], [q3, "0"]])
        expect(new Set([q1, q2, q3]).size).toBe(3)
        const byId = <R extends { readonly id: string }>(rows: ReadonlyArray<R>) => new Map(rows.map((r) => [r.id, r]))
        const queries = byId(result.queries)
        expect([q1, q2, q3].map((q) => queries.get(q!)).map((q) => [q?.library, q?.searches, q?.countries])).toEqual([
          ["social", 2, null],
          ["social", 1, ["US"]],
          ["pinboard", 1, null]
        ])
        expect(result.queries).toHaveLength(3)
        expect([...result.anchors].sort((a, b) => Number(a.query) - Number(b.query))).toEqual(
          [q1, q2, q3].sort((a, b) => Number(a) - Number(b)).map((query) => ({ query, lexeme: "lantern" })))
        expect(result.columns.map((c) => c.name)).toEqual(["id", "account_id", "name", "library", "filters", "created_at", "seq", "query_id", "after_pass"])
        const afterOne = byId(result.afterOne)
        expect([q1, q2, q3].map((q) => afterOne.get(q!)?.searches)).toEqual([1, 1, 1])
        expect(result.afterTwo.map((q) => q.id).sort()).toEqual([q2, q3].sort())
        expect(result.anchorsLeft[0]!.n).toBe(2)
      }))
  })
})

describe("anchors of a compiled query (what the matching pass joins on)", () => {
  it("all of a conjunction, one of each side of an or, nothing under a negation or a prefix", () => {
    expect(anchorsOf("'lantern'")).toEqual({ lexemes: ["lantern"], needed: 1 })
    expect(anchorsOf("'lantern' & 'quokka'")).toEqual({ lexemes: ["lantern", "quokka"], needed: 2 })
    expect(anchorsOf("'garden' <-> 'lamp'")).toEqual({ lexemes: ["garden", "lamp"], needed: 2 })
    expect(anchorsOf("'serum' & !'garden'")).toEqual({ lexemes: ["serum"], needed: 1 })
    expect(anchorsOf("'lantern' | 'boot'")).toEqual({ lexemes: ["boot", "lantern"], needed: 1 })
    expect(anchorsOf("'red' & ( 'shoe' | 'boot' )")).toEqual({ lexemes: ["red"], needed: 1 })
    expect(anchorsOf("( 'a' & 'b' ) | 'c'")).toEqual({ lexemes: ["a", "c"], needed: 1 })
    expect(anchorsOf("( 'shoe' | 'boot' ) & ( 'red' | 'blue' | 'green' )")).toEqual({ lexemes: ["boot", "shoe"], needed: 1 })
    expect(anchorsOf("!'garden'")).toBeNull()
    expect(anchorsOf("'sho':* & 'red'")).toEqual({ lexemes: ["red"], needed: 1 })
    expect(anchorsOf("'sho':* | 'red'")).toBeNull()
    expect(anchorsOf("'it''s'")).toEqual({ lexemes: ["it's"], needed: 1 })
    expect(anchorsOf("")).toEqual({ lexemes: [], needed: 1 })
  })
})

describe("brand diffs (H3)", () => {
  layer(world, { timeout: 120_000 })((it) => {
    it.effect("brand.ads_new for a tracked brand's new ads; brand.ads_stopped when an ad turns inactive or falls behind the crawl; once each", () =>
      Effect.gen(function*() {
        const tracker = yield* account()
        const bystander = yield* account()
        expect((yield* send(tracker.api_key, "POST", "/api/v1/brands/follow", { id: "ss-brand" })).status).toBe(200)
        const brandAd = (id: string, lastSeen: string, status = "active") =>
          adOf(id, 1, { advertiser_external_id: "ss-brand", last_seen: lastSeen, status })
        const day1 = "2026-10-01T00:00:00Z"
        const first = [brandAd("ss-b1", day1), brandAd("ss-b2", day1), adOf("ss-other", 1, { advertiser_external_id: "ss-adv-1" })]
        yield* ingestAll("ads", first)
        const added = yield* eventsOf(tracker.id)
        expect(summed(added)).toEqual([{ type: "brand.ads_new", data: { brand_id: "ss-brand", count: 2, ad_ids: ["ss-b1", "ss-b2"] } }])
        // ss-b1 turns inactive.
        yield* ingestAll("ads", [brandAd("ss-b1", day1, "inactive")])
        expect((yield* eventsOf(tracker.id)).slice(added.length)).toEqual([
          { type: "brand.ads_stopped", data: { brand_id: "ss-brand", count: 1, ad_ids: ["ss-b1"] } }
        ])
        // A new ad seen three days later: ss-b2, still active, fell behind the crawl of the brand.
        const later = [brandAd("ss-b3", "2026-10-04T00:00:00Z")]
        yield* ingestAll("ads", later)
        const told = yield* eventsOf(tracker.id)
        expect(told.slice(added.length + 1)).toEqual([
          { type: "brand.ads_new", data: { brand_id: "ss-brand", count: 1, ad_ids: ["ss-b3"] } },
          { type: "brand.ads_stopped", data: { brand_id: "ss-brand", count: 1, ad_ids: ["ss-b2"] } }
        ])
        // Every file again: nothing told twice; an account not tracking the brand is told nothing.
        yield* ingestAll("ads", first)
        yield* ingestAll("ads", later)
        expect(yield* eventsOf(tracker.id)).toEqual(told)
        expect(yield* eventsOf(bystander.id)).toEqual([])
      }))
  })
})
