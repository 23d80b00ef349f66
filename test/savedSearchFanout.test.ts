import { describe, expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { maxAdIdsPerEvent } from "../src/access/events/OutboxEvent.js"
import { savedSearchLimits } from "../src/ads/savedSearches/Api.js"
import { SavedSearches } from "../src/ads/savedSearches/SavedSearches.js"
import { ingestAll } from "./support/AdWorld.js"
import { eventsOf, get, importOf, importWorld, matchesToldTo, prefix } from "./support/SavedSearchWorld.js"
import { account } from "./support/TestServer.js"

/**
 * A search that matches everything, at the plan's cap (issue 44): an account's every saved search
 * matching one import is still one event, its data bounded. (The other events of saved searches:
 * test/savedSearchEvents.test.ts.)
 */

describe("saved-search events at Premium's cap of searches (issue 44)", () => {
  layer(importWorld, { timeout: 120_000 })((it) => {
    it.effect("an account's 500 searches (Premium's cap) matching every ad of one import: one event naming all 500, 100 ad ids in all", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "premium" })
        const searches = yield* SavedSearches
        // Always true and each its own query (a day long past), so the pass matches and stores 500 queries.
        const saved = yield* Effect.forEach(Array.from({ length: savedSearchLimits.premium }, (_, i) => i), (i) =>
          searches.create({ accountId: id, plan: "premium" }, {
            name: `Everything ${i}`,
            library: "social",
            filters: { first_seen_from: new Date(Date.UTC(2000, 0, 1) + i * 86_400_000).toISOString().slice(0, 10) }
          }), { concurrency: 4 })
        yield* TestClock.adjust("1 second")
        yield* ingestAll("ads", importOf("all", 30, []))

        const events = yield* eventsOf(id)
        expect(events).toHaveLength(1)
        const told = (yield* matchesToldTo(id))[0]!
        const ids = saved.map((s) => s.id).sort()
        expect(told.map(([sid, count]) => [sid, count])).toEqual(ids.map((sid) => [sid, 30]))
        // In turns, searches in id order: the first 100 name their newest ad, the rest none.
        const newest = (yield* get(api_key, `${prefix}/${ids[0]}/matches?limit=1`)).json.data[0].id
        expect(told.map(([, , adIds]) => adIds)).toEqual(ids.map((_, i) => (i < 100 ? [newest] : [])))
        expect(told.flatMap(([, , adIds]) => adIds)).toHaveLength(maxAdIdsPerEvent)
        // Bounded: the plan's cap of entries, each an id, a library, a count and its share of the 100.
        expect(JSON.stringify(events[0]!.data).length).toBeLessThan(60_000)
      }))
  })
})
