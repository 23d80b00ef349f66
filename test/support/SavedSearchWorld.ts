import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { MatchesNewData, searchesTold } from "../../src/ads/savedSearches/Api.js"
import { maxAdIdsPerEvent } from "../../src/access/events/OutboxEvent.js"
import type { AccountId } from "../../src/kernel/Ids.js"
import { Ingest } from "../../src/ingest/Ingest.js"
import { IngestRepo } from "../../src/ingest/IngestRepo.js"
import { TrendCounts } from "../../src/ads/trends/TrendCounts.js"
import { SavedSearches } from "../../src/ads/savedSearches/SavedSearches.js"
import { BrandDiffs } from "../../src/ads/brands/BrandDiffs.js"
import { ImportEvents } from "../../src/access/events/ImportEvents.js"
import { ad } from "../fixtures/world.js"
import { ingestAll } from "./AdWorld.js"
import { advertiser } from "./BrandWorld.js"
import { TestDatabase } from "./TestDatabase.js"
import { sendJson, testServer } from "./TestServer.js"

// What the saved searches' tests share (test/savedSearches.test.ts, test/savedSearchEvents.test.ts).

export const prefix = "/api/v1/saved-searches"
export const DAY = 86_400_000

export const world = Layer.effectDiscard(ingestAll("advertisers", [
  advertiser("ss-adv-1", "Lumen Outfitters"),
  advertiser("ss-adv-2", "Quokka Garden Supply"),
  advertiser("ss-brand", "Tracked Brand Co"),
  advertiser("ss-adv-1", "Lumen Pins", undefined, "pinboard")
])).pipe(
  Layer.provideMerge(Layer.mergeAll(testServer(), Ingest.Default)),
  Layer.provideMerge(TestDatabase)
)

export const get = (key: string, path: string) => sendJson(key, "GET", path)
export const send = sendJson
export const create = (key: string, body: unknown) => send(key, "POST", prefix, body)
export const error = (message: string) => JSON.stringify({ success: false, error: message })

/** A social ad with no lander or store, first seen `day` days into September 2026. */
export const adOf = (id: string, day: number, extra: Record<string, unknown> = {}) =>
  ad(id, {
    lander_external_id: null,
    store_external_id: null,
    first_seen: new Date(Date.UTC(2026, 8, 1) + day * DAY + (id.length % 7) * 60_000).toISOString(),
    last_seen: "2026-10-01T00:00:00Z",
    ...extra
  })

/** Every id of a P1 route, page by page. */
export const allIds = (key: string, path: string, query: Record<string, string>) =>
  Effect.gen(function*() {
    const ids: Array<string> = []
    let token: string | null = null
    for (;;) {
      const params: URLSearchParams = new URLSearchParams(token === null ? { ...query, limit: "50" } : { scroll_token: token })
      const page: { status: number; json: any } = yield* get(key, `${path}?${params}`)
      expect(page.status).toBe(200)
      ids.push(...page.json.data.map((a: { id: string }) => a.id))
      token = page.json.scroll_token
      if (token === null) return ids
    }
  })

/** A saved search's filters as the search route's query string carries them. */
export const asQuery = (filters: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(filters).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : String(v)]))

/** Events summed per type, in the order the types first occur (an import's lanes each write their own). */
export const summed = (events: ReadonlyArray<{ type: string; data: Record<string, unknown> }>) => {
  const byType = new Map<string, { brand_id: unknown; count: number; ad_ids: Array<string> }>()
  for (const e of events) {
    const sum = byType.get(e.type) ?? { brand_id: e.data.brand_id, count: 0, ad_ids: [] }
    sum.count += Number(e.data.count)
    sum.ad_ids.push(...(e.data.ad_ids as Array<string>))
    sum.ad_ids.sort()
    byType.set(e.type, sum)
  }
  return Array.from(byType, ([type, data]) => ({ type, data }))
}

export const eventsOf = (accountId: AccountId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ type: string; data: Record<string, unknown> }>`select type, data from outbox_events where account_id = ${accountId}::uuid order by seq`)

/** The account's `saved_search.matches_new` events, oldest first: each search told, as `[id, count, ad_ids]`. */
export const matchesToldTo = (accountId: AccountId) =>
  Effect.map(eventsOf(accountId), (events) =>
    events.filter((e) => e.type === "saved_search.matches_new").map((e) =>
      searchesTold(Schema.decodeUnknownSync(MatchesNewData)(e.data)).map((s) => [s.saved_search_id, s.count, s.ad_ids] as const)))

/**
 * How many ad ids each search of one event names, searches in id order: the event's 100 taken
 * in turns (each search's newest, then each one's second newest, ...) while a search has more.
 */
export const sharesOf = (matches: ReadonlyArray<number>, budget: number = maxAdIdsPerEvent): Array<number> => {
  const shares = matches.map(() => 0)
  for (let k = 0, left = budget; left > 0 && matches.some((n) => n > k); k++) {
    for (let i = 0; i < matches.length && left > 0; i++) {
      if (matches[i]! > k) (shares[i]!++, left--)
    }
  }
  return shares
}

/** An import's world: one advertiser and the services `Ingest` uses, the same instances (test/savedSearchEvents.test.ts, test/savedSearchFanout.test.ts). */
export const importWorld = Layer.effectDiscard(ingestAll("advertisers", [advertiser("ss-adv-1", "Lumen Outfitters")])).pipe(
  Layer.provideMerge(Layer.mergeAll(testServer(), Ingest.Default, IngestRepo.Default, TrendCounts.Default, SavedSearches.Default, BrandDiffs.Default, ImportEvents.Default)),
  Layer.provideMerge(TestDatabase)
)

/** `n` ads (several batches, both lanes), one in `every` of each word's headline from `from`. */
export const importOf = (tag: string, n: number, words: ReadonlyArray<readonly [word: string, every: number, from: number]>) =>
  Array.from({ length: n }, (_, i) => {
    const word = words.find(([, every, from]) => i % every === from)?.[0] ?? "plain"
    return adOf(`ss-${tag}-${i}`, i % 28, { headline: `${word} ${tag} import`, advertiser_external_id: "ss-adv-1" })
  })

