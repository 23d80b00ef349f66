import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Clock, Deferred, Effect, Fiber, Layer, Stream } from "effect"
import type { AccountId } from "../src/kernel/Ids.js"
import m0095 from "../src/platform/db/migrations/0095_saved_search_pending.js"
import m0097 from "../src/platform/db/migrations/0097_import_pending_events.js"
import { Ingest } from "../src/ingest/Ingest.js"
import { ad } from "./fixtures/world.js"
import { ingestAll } from "./support/AdWorld.js"
import { advertiser } from "./support/BrandWorld.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, call, sendJson, testServer } from "./support/TestServer.js"

/**
 * Tracked brands' diffs once per import (issue 32; H3; SPEC-NOTES "One generic pending-per-import
 * mechanism"): an import of several batches (both lanes) tells one `brand.ads_new` and one
 * `brand.ads_stopped` per account and brand, the counts summed over its batches and the newest
 * 100 ads named; an upload that breaks after one batch is told once. And two things of the
 * saved searches' use of the same mechanism: a search deleted mid-import is told nothing, and
 * 0097's move of the pending rows of 0095's table.
 */

const world = Layer.effectDiscard(ingestAll("advertisers", [
  advertiser("bd-brand", "Batchwise Brand"),
  advertiser("bd-other", "Untracked Other")
])).pipe(
  Layer.provideMerge(Layer.mergeAll(testServer(), Ingest.Default)),
  Layer.provideMerge(TestDatabase)
)

const follow = (key: string, id: string) =>
  Effect.map(call("/api/v1/brands/follow", {
    method: "POST",
    headers: { "X-API-Key": key, "content-type": "application/json" },
    body: JSON.stringify({ id })
  }), (answer) => answer.status)

const eventsOf = (accountId: AccountId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ type: string; data: Record<string, unknown> }>`select type, data from outbox_events where account_id = ${accountId}::uuid order by seq`)

/** The ids of `ids` newest row first (the order of ads equally recent). */
const byRowDesc = (ids: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ external_id: string }>`select external_id from ads where external_id = any(${ids}::text[]) order by id desc`, (rows) =>
      rows.map((r) => r.external_id)))

/**
 * `n` social ads (an import of several batches), every `every`-th of the tracked brand, each first
 * seen a minute after the one before; `inactive` picks those stopped.
 */
const adsOf = (tag: string, n: number, every: number, inactive: (i: number) => boolean = () => false) =>
  Array.from({ length: n }, (_, i) =>
    ad(`bd-${tag}-${i}`, {
      advertiser_external_id: i % every === 0 ? "bd-brand" : "bd-other",
      lander_external_id: null,
      store_external_id: null,
      first_seen: new Date(Date.UTC(2026, 8, 1) + i * 60_000).toISOString(),
      last_seen: "2026-10-01T00:00:00Z",
      status: inactive(i) ? "inactive" : "active"
    }))
const brandIds = (records: ReadonlyArray<{ external_id: string; advertiser_external_id: string }>) =>
  records.filter((r) => r.advertiser_external_id === "bd-brand").map((r) => r.external_id)

describe("brand diffs once per import (H3)", () => {
  layer(world, { timeout: 120_000 })((it) => {
    it.effect("an import of 2,500 ads (three batches, both lanes) tells one brand.ads_new per account and brand, then one brand.ads_stopped, counts summed", () =>
      Effect.gen(function*() {
        const tracker = yield* account()
        const second = yield* account()
        const bystander = yield* account()
        for (const who of [tracker, second]) expect(yield* follow(who.api_key, "bd-brand")).toBe(200)

        const first = adsOf("many", 2_500, 5)
        yield* ingestAll("ads", first)
        // 500 of the brand over every batch: one event, the 100 first seen last, newest first.
        const added = brandIds(first)
        const news = { type: "brand.ads_new", data: { brand_id: "bd-brand", count: 500, ad_ids: added.slice(-100).reverse() } }
        expect(yield* eventsOf(tracker.id)).toEqual([news])
        expect(yield* eventsOf(second.id)).toEqual([news])

        // The same file again with every tenth ad stopped: 250 over every batch, one event.
        const again = adsOf("many", 2_500, 5, (i) => i % 10 === 0)
        yield* ingestAll("ads", again)
        const stopped = again.filter((r, i) => r.advertiser_external_id === "bd-brand" && i % 10 === 0).map((r) => r.external_id)
        // (All last seen alike: the newest rows first.)
        const stops = { type: "brand.ads_stopped", data: { brand_id: "bd-brand", count: 250, ad_ids: (yield* byRowDesc(stopped)).slice(0, 100) } }
        expect(yield* eventsOf(tracker.id)).toEqual([news, stops])
        expect(yield* eventsOf(second.id)).toEqual([news, stops])
        expect(yield* eventsOf(bystander.id)).toEqual([])
        // Nothing is left waiting.
        const pending = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`select count(*)::int as n from import_pending_events`)
        expect(pending[0]!.n).toBe(0)
      }))

    it.effect("an upload that breaks after its first batch tells that batch's brand ads once", () =>
      Effect.gen(function*() {
        const tracker = yield* account()
        expect(yield* follow(tracker.api_key, "bd-brand")).toBe(200)
        const ingest = yield* Ingest
        // The upload breaks once the first batch (1,000 lines, both lanes) is committed.
        const firstBatch = yield* Deferred.make<void>()
        const records = adsOf("broken", 1_500, 10)
        const failed = yield* Effect.flip(ingest.records(
          "ads",
          Stream.concat(
            Stream.fromIterable(records),
            Stream.fromEffect(Effect.zipRight(Deferred.await(firstBatch), Effect.fail("the upload broke")))
          ),
          (progress) => (progress.accepted >= 1_000 ? Deferred.succeed(firstBatch, undefined) : Effect.void)
        ))
        expect(failed).toBe("the upload broke")
        // The first 1,000 lines hold 100 of the brand, and none after them was stored.
        const committed = brandIds(records.slice(0, 1_000))
        const told = { type: "brand.ads_new", data: { brand_id: "bd-brand", count: 100, ad_ids: committed.slice().reverse() } }
        expect(yield* eventsOf(tracker.id)).toEqual([told])
        // A later import tells nothing again.
        yield* ingestAll("ads", adsOf("after", 10, 1_000).filter((r) => r.advertiser_external_id === "bd-other"))
        expect(yield* eventsOf(tracker.id)).toEqual([told])
      }))

    it.effect("a saved search deleted while an import runs is told nothing of that import's earlier batches", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "pro" })
        const search: string = (yield* sendJson(api_key, "POST", "/api/v1/saved-searches", { name: "Short-lived", library: "social", filters: { q: "quoll" } })).json.saved_search.id
        const ingest = yield* Ingest
        // The import pauses once its first batch (1,000 lines, 100 matches) is committed.
        const firstBatch = yield* Deferred.make<void>()
        const proceed = yield* Deferred.make<void>()
        const records = adsOf("quoll", 1_500, 10).map((r, i) => ({ ...r, headline: i % 10 === 0 ? "quoll sighting" : "plain" }))
        const running = yield* Effect.fork(ingest.records(
          "ads",
          Stream.concat(Stream.fromIterable(records.slice(0, 1_000)), Stream.fromIterable(records.slice(1_000)).pipe(
            Stream.tap(() => Deferred.await(proceed))
          )),
          (progress) => (progress.accepted >= 1_000 ? Deferred.succeed(firstBatch, undefined) : Effect.void)
        ))
        yield* Deferred.await(firstBatch)
        const gone = yield* call(`/api/v1/saved-searches/${search}`, { method: "DELETE", headers: { "X-API-Key": api_key } })
        expect(gone.status).toBe(200)
        yield* Deferred.succeed(proceed, undefined)
        yield* Fiber.join(running)
        expect((yield* eventsOf(id)).filter((e) => e.type === "saved_search.matches_new")).toEqual([])
      }))

    it.effect("migration 0097 moves an import's pending saved-search matches from 0095's table: a later import tells them", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const { api_key, id } = yield* account({ plan: "pro" })
        const search: string = (yield* sendJson(api_key, "POST", "/api/v1/saved-searches", { name: "Before the upgrade", library: "social", filters: { q: "kinkajou" } })).json.saved_search.id
        // The database as 0096 left it, with the row of an import that died two hours ago pending in 0095's table.
        yield* sql`drop table import_pending_events`
        yield* m0095
        const dead = "00000000-0000-4000-8000-000000000095"
        yield* sql`
          insert into saved_search_pending (import_id, saved_search_id, count, first_seens, ad_rows, ad_ids, written_at)
          values (${dead}::uuid, ${search}::uuid, 3, ${["2026-09-03T00:00:00Z", "2026-09-02T00:00:00Z"]}::timestamptz[],
                  ${["12", "11"]}::bigint[], ${["ad-new", "ad-old"]}::text[], ${new Date((yield* Clock.currentTimeMillis) - 2 * 3_600_000)})`
        // 0097 itself, as the Migrator runs it (later migrations have run on this database).
        yield* m0097
        const [{ present }] = yield* sql<{ present: boolean }>`select to_regclass('saved_search_pending') is not null as present`
        expect(present).toBe(false)
        // The next import's end tells the dead import (silent for over an hour) as it would have.
        yield* ingestAll("ads", adsOf("upgrade", 1, 1_000).map((r) => ({ ...r, advertiser_external_id: "bd-other" })))
        expect(yield* eventsOf(id)).toEqual([{
          type: "saved_search.matches_new",
          data: { saved_search_id: search, library: "social", count: 3, ad_ids: ["ad-new", "ad-old"], import_id: dead }
        }])
      }))
  })
})
