import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Clock, ConfigProvider, Duration, Effect, Either, Layer, TestClock } from "effect"
import { defaultMatchesKept, matchesKept } from "../src/ads/savedSearches/MatchesConfig.js"
import { SavedSearches } from "../src/ads/savedSearches/SavedSearches.js"
import { defaultLanes, Ingest, laneOf } from "../src/ingest/Ingest.js"
import { ingestAll } from "./support/AdWorld.js"
import { advertiser } from "./support/BrandWorld.js"
import { adOf, allIds, create, eventsOf, prefix } from "./support/SavedSearchWorld.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, testEnvironment, testServer } from "./support/TestServer.js"

/**
 * The matches a saved-search query keeps (issue 44; SPEC-NOTES "One event per account and
 * import; kept matches; a search that matches everything"): at most `count`, the most recently
 * found, and none stored longer ago than `age`, as `/matches` shows them after a prune.
 */

const keep = 100
const env = { SAVED_SEARCH_MATCHES_KEEP: `age=30 days,count=${keep}` }
const world = Layer.effectDiscard(ingestAll("advertisers", [advertiser("ss-adv-1", "Lumen Outfitters")])).pipe(
  Layer.provideMerge(Layer.mergeAll(testServer({ env }), Ingest.Default, SavedSearches.Default.pipe(Layer.provide(testEnvironment(env))))),
  Layer.provideMerge(TestDatabase)
)

/** `n` ads whose headline holds `word`, first seen over September 2026 (ids `<tag>-<i>`). */
const adsOf = (word: string, tag: string, n: number, lane?: number) =>
  Array.from({ length: lane === undefined ? n : n * defaultLanes * 4 }, (_, i) => `${tag}-${i}`)
    // One lane: one batch, one matching pass, one match row.
    .filter((id) => lane === undefined || laneOf(`social/${id}`, defaultLanes) === lane)
    .slice(0, n)
    .map((id, i) => adOf(id, (i * 7) % 28, { headline: `${word} ${tag}`, advertiser_external_id: "ss-adv-1" }))

const prune = Effect.flatMap(SavedSearches, (searches) => Effect.flatMap(Clock.currentTimeMillis, (ms) => searches.prune(new Date(ms))))

describe("saved-search matches kept (SAVED_SEARCH_MATCHES_KEEP)", () => {
  layer(world, { timeout: 60_000 })((it) => {
    it.effect(`count: a query keeps its ${keep} most recently found matches; the ${keep + 1}st oldest goes, and a row across the line is cut to its newest`, () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "pro" })
        const search = (yield* create(api_key, { name: "Kudu", library: "social", filters: { q: "kudu" } })).json.saved_search
        const matches = allIds(api_key, `${prefix}/${search.id}/matches`, {})
        // Four imports, a second apart: 1, 98 (one lane: one row), 1, 1.
        const imports = [adsOf("kudu", "kk-a", 1), adsOf("kudu", "kk-b", keep - 2, 0), adsOf("kudu", "kk-c", 1), adsOf("kudu", "kk-d", 1)]
        for (const ads of imports.slice(0, 3)) {
          yield* TestClock.adjust("1 second")
          yield* ingestAll("ads", ads)
        }
        // At the limit: nothing goes.
        const atLimit = yield* matches
        expect(atLimit).toHaveLength(keep)
        yield* prune
        expect(yield* matches).toEqual(atLimit)

        // One more: the first found goes, and only it.
        yield* TestClock.adjust("1 second")
        yield* ingestAll("ads", imports[3]!)
        const full = yield* matches
        expect(full).toHaveLength(keep + 1)
        yield* prune
        const afterOne = yield* matches
        expect(afterOne).toEqual(full.filter((ad) => ad !== "kk-a-0"))
        expect(afterOne).toHaveLength(keep)
        // Its event still names it, and the library still has it: only the search's list forgot it.
        expect((yield* eventsOf(id))[0]!.data.saved_searches).toEqual([expect.objectContaining({ ad_ids: ["kk-a-0"] })])
        yield* TestClock.adjust("61 seconds") // (a fresh rate window: G5 allows 60 calls a minute)
        expect(yield* allIds(api_key, "/api/v1/adlibrary", { q: "kudu" })).toContain("kk-a-0")

        // 30 more: the one-lane import of 98 is cut to its newest 68 (by first seen, as /matches orders them).
        yield* TestClock.adjust("1 second")
        yield* ingestAll("ads", adsOf("kudu", "kk-e", 30))
        const before = yield* matches
        expect(before).toHaveLength(keep + 30)
        yield* prune
        const bKept = new Set(before.filter((ad) => ad.startsWith("kk-b-")).slice(0, keep - 30 - 2))
        expect(yield* matches).toEqual(before.filter((ad) => !ad.startsWith("kk-b-") || bKept.has(ad)))
        expect(yield* matches).toHaveLength(keep)
        // Nothing more goes at the limit.
        yield* prune
        expect(yield* matches).toHaveLength(keep)
      }))

    it.effect("age: a match stored exactly 30 days ago is kept, one a millisecond older goes; so do rows of searches saved before migration 0102", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "pro" })
        const search = (yield* create(api_key, { name: "Gnu", library: "social", filters: { q: "gnu" } })).json.saved_search
        const matches = allIds(api_key, `${prefix}/${search.id}/matches`, {})
        yield* TestClock.adjust("1 second")
        yield* ingestAll("ads", [...adsOf("gnu", "gnu-old", 1), ...adsOf("wildebeest", "legacy-row", 1)])
        // A row as searches saved before 0102 kept them (of an ad the query does not match), stored at the same instant.
        const sql = yield* SqlClient.SqlClient
        const at = new Date(yield* Clock.currentTimeMillis)
        yield* sql`
          insert into saved_search_matches (saved_search_id, newest, oldest, first_seens, ad_ids, matched_at)
          select ${search.id}::uuid, a.first_seen, a.first_seen, array[a.first_seen], array[a.id], ${at}
            from ads a where a.external_id = 'legacy-row-0'`
        yield* TestClock.adjust("1 second")
        yield* ingestAll("ads", adsOf("gnu", "gnu-new", 1))
        expect((yield* matches).sort()).toEqual(["gnu-new-0", "gnu-old-0", "legacy-row-0"])

        // 30 days after the second import: the first (a second older) and the legacy row go.
        yield* TestClock.adjust(Duration.toMillis(Duration.days(30)))
        yield* prune
        expect(yield* matches).toEqual(["gnu-new-0"])
        yield* TestClock.adjust(1)
        yield* prune
        expect(yield* matches).toEqual([])
      }))
  })
})

describe("SAVED_SEARCH_MATCHES_KEEP", () => {
  const read = (value?: string) =>
    Effect.either(Effect.withConfigProvider(matchesKept, ConfigProvider.fromMap(new Map(value === undefined ? [] : [["SAVED_SEARCH_MATCHES_KEEP", value]]))))
  it.effect("defaults to 90 days and 10,000; either part may be given; anything else is refused with the format", () =>
    Effect.gen(function*() {
      expect(defaultMatchesKept).toEqual({ age: Duration.days(90), count: 10_000 })
      expect(yield* read()).toEqual(Either.right(defaultMatchesKept))
      expect(yield* read("")).toEqual(Either.right(defaultMatchesKept))
      expect(yield* read("age=7 days, count=500")).toEqual(Either.right({ age: Duration.days(7), count: 500 }))
      expect(yield* read("count=100")).toEqual(Either.right({ age: Duration.days(90), count: 100 }))
      expect(yield* read("age=1 hour")).toEqual(Either.right({ age: Duration.hours(1), count: 10_000 }))
      for (const bad of ["90 days", "age=forever", "age=59 minutes", "age=3651 days", "count=99", "count=1000001", "count=1e4", "count=12,count=13", "size=5"]) {
        const refused = yield* read(bad)
        expect(Either.isLeft(refused) && String(refused.left)).toContain("SAVED_SEARCH_MATCHES_KEEP")
        expect(Either.isLeft(refused) && String(refused.left)).toContain("must be age=<duration>,count=<n> such as age=90 days,count=10000")
      }
    }))
})
