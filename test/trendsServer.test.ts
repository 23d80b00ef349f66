import { SavedSearches } from "../src/ads/savedSearches/SavedSearches.js"
import { ImportEvents } from "../src/access/events/ImportEvents.js"
import { BrandDiffs } from "../src/ads/brands/BrandDiffs.js"
import { describe, expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { type Duration, Effect, Fiber, Layer, Option, Stream, TestClock } from "effect"
import { TrendCounts } from "../src/ads/trends/TrendCounts.js"
import { TrendsRepo } from "../src/ads/trends/TrendsRepo.js"
import { Ingest } from "../src/ingest/Ingest.js"
import { IngestRepo } from "../src/ingest/IngestRepo.js"
import { phrasesOf } from "../src/ads/trends/Phrases.js"
import { ingestAll, loadedSmallWorldServer, type WorldRecord } from "./support/AdWorld.js"
import { account, balanceOf, call } from "./support/TestServer.js"
import { addDays, dayOf, post, risingOf, type Scope, worldAds, yesterday } from "./support/TrendsWorld.js"

/**
 * Trends (issue 29; INTERPRETATIONS L1-L3), on the same small world as test/trends.test.ts, in a
 * file of its own: limits and niches, the server's counting fiber (its own imports, another
 * process's, a dropped listener, ads stored before trends existed), history, products, bad input
 * and the windows' move at midnight.
 */

describe("trends: the server's counting and the windows", () => {
  layer(TrendCounts.Default.pipe(Layer.provideMerge(loadedSmallWorldServer())))((it) => {
    it.effect("any limit is a prefix; a niche no filter can name counts under any niche only", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const topics = (body: Record<string, unknown>) => Effect.map(post(api_key, "/api/v1/trends/topics", body), (a) => a.json)
        const body = { window_days: 90, niche: "home", min_count: 2 }
        const first = yield* topics({ ...body, limit: 100 })
        expect(first).toEqual({ success: true, ...risingOf(worldAds, "phrase", { niche: "home" }, 90, 2, 100) })
        for (const limit of [1, 3, 37]) expect((yield* topics({ ...body, limit })).data).toEqual(first.data.slice(0, limit))
        // Ads of the niche "Home & Garden" (which no niche filter accepts) count under any niche.
        const template = worldAds.find((ad) => ad.library === "social")!
        const odd = Array.from({ length: 5 }, (_, i) => ({
          ...template, external_id: `trend-odd-${i}`, niche: "Home & Garden", first_seen: `${yesterday}T0${i}:00:00Z`,
          last_seen: `${yesterday}T10:00:00Z`, days_running: null, start_date: null, end_date: null, variant_group: null,
          headline: "The xylophonic lamp"
        }))
        yield* ingestAll("ads", odd)
        const world = [...worldAds, ...odd]
        expect(yield* topics({ min_count: 5, limit: 100 })).toEqual({ success: true, ...risingOf(world, "phrase", {}, 7, 5, 100) })
        expect((yield* topics({ min_count: 5, limit: 100 })).data).toContainEqual({ topic: "xylophonic lamp", count: 5, previous_count: 0, growth: 0.5 })
        expect(yield* topics({ min_count: 1, limit: 100, niche: "home" })).toEqual({ success: true, ...risingOf(world, "phrase", { niche: "home" }, 7, 1, 100) })
        yield* ingestAll("ads", odd.map((ad) => ({ ...ad, first_seen: "1950-01-01T00:00:00Z", last_seen: "1950-01-02T00:00:00Z" })))
        expect(yield* topics({ min_count: 1, limit: 100 })).toEqual({ success: true, ...risingOf(worldAds, "phrase", {}, 7, 1, 100) })
      }))

    it.effect("an import is counted by the server's counting fiber, without anyone waiting for it", () =>
      Effect.gen(function*() {
        const ingest = yield* Ingest
        const counts = yield* TrendCounts
        const template = worldAds.find((ad) => ad.library === "social")!
        const fresh = Array.from({ length: 3 }, (_, i) => ({ ...template, external_id: `trend-fiber-${i}`, variant_group: null }))
        // The fiber's running total from now on: it reaches 3 more once it has counted the import.
        const start = yield* Effect.map(Stream.runHead(counts.countedByFiber), Option.getOrElse(() => 0))
        const reached = yield* Effect.fork(Stream.runDrain(Stream.takeUntil(counts.countedByFiber, (n) => n >= start + 3)))
        expect((yield* ingest.records("ads", Stream.fromIterable(fresh))).accepted).toBe(3)
        // (A fiber that never counts it fails the test by its time limit.)
        yield* Fiber.join(reached)
        const sql = yield* SqlClient.SqlClient
        const [{ left }] = yield* sql<{ left: number }>`select count(*)::int as left from trend_pending p join ads a on a.id = p.ad_id where a.external_id like 'trend-fiber-%'`
        expect(left).toBe(0)
        // Out of every window again, for the tests after this one.
        yield* ingestAll("ads", fresh.map((ad) => ({ ...ad, first_seen: "1950-01-01T00:00:00Z", last_seen: "1950-01-02T00:00:00Z" })))
      }))

    /**
     * Imports another process makes (the admin CLI's, another replica's): its own services on
     * the same database, here an `Ingest` layer of its own, whose counting fiber never runs.
     * `silent`: its signals are lost (a dropped listening connection).
     */
    const importElsewhere = (ads: ReadonlyArray<WorldRecord>, silent: boolean) =>
      Effect.flatMap(Ingest, (ingest) => ingest.records("ads", Stream.fromIterable(ads))).pipe(
        Effect.provide(Ingest.DefaultWithoutDependencies.pipe(
          Layer.provide([TrendCounts.DefaultWithoutDependencies, SavedSearches.Default, BrandDiffs.Default, ImportEvents.Default]),
          Layer.provide(silent ? Layer.effect(TrendsRepo, Effect.map(TrendsRepo, (repo) => TrendsRepo.make({ ...repo, signal: () => Effect.void }))).pipe(Layer.provide(TrendsRepo.Default)) : TrendsRepo.Default),
          Layer.provideMerge(IngestRepo.Default)
        ))
      )
    const lanternAds = (prefix: string) => {
      const template = worldAds.find((ad) => ad.library === "social")!
      return Array.from({ length: 3 }, (_, i) => ({
        ...template, external_id: `${prefix}-${i}`, first_seen: `${yesterday}T0${i}:00:00Z`, last_seen: `${yesterday}T10:00:00Z`,
        days_running: null, start_date: null, end_date: null, variant_group: null, headline: `Quokka lanterns ${prefix}`
      }))
    }
    /** Waits until the server's fiber has counted `n` more ads than at `start` and built rankings that hold them. */
    const rankedAfter = (counts: TrendCounts, start: number, n: number) => Stream.runDrain(Stream.takeUntil(counts.rankedByFiber, (ranked) => ranked >= start + n))
    const lanternTopic = (api_key: string, prefix: string) =>
      Effect.map(post(api_key, "/api/v1/trends/topics", { window_days: 7, min_count: 3, limit: 100 }), (a) => a.json.data.filter((t: { topic: string }) => t.topic === `quokka lanterns ${prefix}`))

    it.effect("another process's import is counted and ranked by the server's fiber, told through PostgreSQL", () =>
      Effect.gen(function*() {
        const counts = yield* TrendCounts
        const { api_key } = yield* account()
        const ads = lanternAds("elsewhere")
        const start = yield* Effect.map(Stream.runHead(counts.countedByFiber), Option.getOrElse(() => 0))
        const ranked = yield* Effect.fork(rankedAfter(counts, start, 3))
        expect((yield* importElsewhere(ads, false)).accepted).toBe(3)
        // (A fiber never told fails the test by its time limit.)
        yield* Fiber.join(ranked)
        expect(yield* lanternTopic(api_key, "elsewhere")).toEqual([{ topic: "quokka lanterns elsewhere", count: 3, previous_count: 0, growth: 0.3 }])
        yield* ingestAll("ads", ads.map((ad) => ({ ...ad, first_seen: "1950-01-01T00:00:00Z", last_seen: "1950-01-02T00:00:00Z" })))
      }))

    it.effect("when the listening connection drops, the fiber listens again 5 s later and counts and ranks what it missed", () =>
      Effect.gen(function*() {
        const counts = yield* TrendCounts
        const sql = yield* SqlClient.SqlClient
        const { api_key } = yield* account()
        const ads = lanternAds("unheard")
        // The fiber done with what earlier tests imported, and listening.
        yield* counts.idle
        yield* Stream.runDrain(Stream.takeUntil(counts.listensByFiber, (listens) => listens))
        const start = yield* Effect.map(Stream.runHead(counts.countedByFiber), Option.getOrElse(() => 0))
        // Its connection ended by the server (as a restart or a network fault would).
        yield* sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'adintel-listen' and datname = current_database()`
        yield* Stream.runDrain(Stream.takeUntil(counts.listensByFiber, (listens) => !listens))
        // Meanwhile another process imports; its signals reach no one.
        expect((yield* importElsewhere(ads, true)).accepted).toBe(3)
        const waiting = Effect.map(sql<{ n: number }>`select count(*)::int as n from trend_pending p join ads a on a.id = p.ad_id where a.external_id like 'unheard-%'`, ([row]) => row!.n)
        yield* counts.idle
        expect(yield* waiting).toBe(3)
        const ranked = yield* Effect.fork(rankedAfter(counts, start, 3))
        yield* TestClock.adjust("5 seconds")
        yield* Fiber.join(ranked)
        expect(yield* waiting).toBe(0)
        expect(yield* lanternTopic(api_key, "unheard")).toEqual([{ topic: "quokka lanterns unheard", count: 3, previous_count: 0, growth: 0.3 }])
        yield* ingestAll("ads", ads.map((ad) => ({ ...ad, first_seen: "1950-01-01T00:00:00Z", last_seen: "1950-01-02T00:00:00Z" })))
      }))

    it.effect("ads stored before trends existed are counted at start, batch by batch, as the import would have", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const { api_key, id } = yield* account()
        const topics = (days: number) => Effect.map(post(api_key, "/api/v1/trends/topics", { window_days: days, min_count: 1, limit: 100 }), (a) => a.json)
        // What a database just migrated by 0077 holds: ads to count, and no counts.
        // (Under the counts' lock, as a migration would: the counting fiber may be counting.)
        const uncount = sql.withTransaction(Effect.all([
          sql`select 1 from trend_state for update`,
          sql`delete from trend_days`,
          sql`delete from trend_series`,
          sql`delete from trend_rankings`,
          sql`update trend_state set date_to = null, stale = true`,
          sql`insert into trend_pending (ad_id, day) select id, (first_seen at time zone 'UTC')::date from ads on conflict do nothing`
        ]))
        yield* uncount
        // No rankings to read: a ranking says so at once rather than build them (issue 28), its
        // credit given back (a 5xx), and /ready waits for them.
        const before = (yield* balanceOf(id)).used
        const counting = yield* post(api_key, "/api/v1/trends/topics", { window_days: 90 })
        expect([counting.status, counting.body]).toEqual([503, `{"success":false,"error":"Trends are being counted; try again in a minute."}`])
        expect((yield* balanceOf(id)).used).toBe(before)
        const notReady = yield* call("/ready")
        expect([notReady.status, notReady.body]).toEqual([503, `{"success":false,"error":"Counting trends"}`])
        const [{ n }] = yield* sql<{ n: number }>`select count(*)::int as n from ads`
        // In batches of 37, then whatever another counter held: every ad is counted once.
        const counted = yield* Effect.flatMap(TrendCounts, (counts) => counts.countUncounted(37))
        expect(counted).toBeGreaterThan(0)
        expect(counted).toBeLessThanOrEqual(n)
        yield* Effect.flatMap(Ingest, (ingest) => ingest.settled)
        // What the counting fiber does after counting: the rankings of yesterday's windows, built.
        yield* Effect.flatMap(TrendCounts, (counts) => counts.current)
        expect((yield* call("/ready")).status).toBe(200)
        const [{ left }] = yield* sql<{ left: number }>`select count(*)::int as left from trend_pending`
        expect(left).toBe(0)
        for (const days of [7, 30, 90]) expect(yield* topics(days)).toEqual({ success: true, ...risingOf(worldAds, "phrase", {}, days, 1, 100) })
        const hooks = yield* post(api_key, "/api/v1/trends/hooks", { window_days: 90, min_count: 1, limit: 100 })
        expect(hooks.json).toEqual({ success: true, ...risingOf(worldAds, "hook", {}, 90, 1, 100) })
        // Counted again in one batch of every ad (a bulk load's batches are large): the same counts.
        yield* uncount
        expect(yield* Effect.flatMap(TrendCounts, (counts) => counts.countUncounted(n))).toBeGreaterThan(0)
        yield* Effect.flatMap(Ingest, (ingest) => ingest.settled)
        yield* Effect.flatMap(TrendCounts, (counts) => counts.current)
        const [{ rankings }] = yield* sql<{ rankings: number }>`select count(*)::int as rankings from trend_rankings`
        expect(rankings).toBeGreaterThan(0)
        for (const days of [7, 30, 90]) expect(yield* topics(days)).toEqual({ success: true, ...risingOf(worldAds, "phrase", {}, days, 1, 100) })
        expect((yield* post(api_key, "/api/v1/trends/hooks", { window_days: 30, min_count: 1, limit: 100, country: "US" })).json)
          .toEqual({ success: true, ...risingOf(worldAds, "hook", { country: "US" }, 30, 1, 100) })
        const [{ kept }] = yield* sql<{ kept: string }>`select date_to::text as kept from trend_state`
        expect(kept).toBe(yesterday)
      }))

    it.effect("history: one phrase's count of new ads on every day of the 365 up to yesterday", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const top = risingOf(worldAds, "phrase", {}, 90, 5, 1).data[0]!.topic as string
        const answer = yield* post(api_key, "/api/v1/trends/history", { topic: `  ${top.toUpperCase()}!` })
        expect(answer.status, answer.body).toBe(200)
        expect(Object.keys(answer.json)).toEqual(["success", "topic", "window", "data"])
        const from = addDays(yesterday, -364)
        const expected = Array.from({ length: 365 }, (_, i) => {
          const day = addDays(from, i)
          const count = worldAds.filter((ad) => dayOf(ad.first_seen) === day && phrasesOf([ad.headline, ad.body, ad.description], ad.languages).includes(top)).length
          return { day, count }
        })
        expect(answer.json).toEqual({ success: true, topic: top, window: { date_from: from, date_to: yesterday }, data: expected })
        expect(expected.reduce((n, d) => n + d.count, 0)).toBeGreaterThan(5)
        // In one country only.
        const us = yield* post(api_key, "/api/v1/trends/history", { topic: top, country: "US" })
        expect(us.json.data.map((d: { count: number }) => d.count)).toEqual(expected.map(({ day }) =>
          worldAds.filter((ad) => dayOf(ad.first_seen) === day && ad.countries.includes("US") && phrasesOf([ad.headline, ad.body, ad.description], ad.languages).includes(top)).length))
        // A phrase no ad uses: zeros.
        const none = yield* post(api_key, "/api/v1/trends/history", { topic: "zebra crossing" })
        expect(none.json.data.every((d: { count: number }) => d.count === 0)).toBe(true)
      }))

    it.effect("products: the short-video shop's products by units growth, the shop's own ranking", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        for (const [body, query] of [
          [{}, "metric=units&days=7&page_size=20"],
          [{ limit: 5, country: "GB", category_id: "cat-GB-beauty" }, "metric=units&days=7&page_size=5&country=GB&category_id=cat-GB-beauty"],
          // The small world holds 14 days of metrics: no product has units in the 30 days before the last 30.
          [{ window_days: 30 }, "metric=units&days=30&page_size=20"]
        ] as const) {
          const answer = yield* post(api_key, "/api/v1/trends/products", body)
          expect(answer.status, answer.body).toBe(200)
          expect(Object.keys(answer.json)).toEqual(["success", "window", "data"])
          const shop = JSON.parse((yield* call(`/api/v1/clipapp-shop/trending?${query}`, { headers: { "X-API-Key": api_key } })).body)
          expect(shop.data.length > 0).toBe(!("window_days" in body))
          expect(answer.json.data).toEqual(shop.data)
          const days = (body as { window_days?: number }).window_days ?? 7
          expect(answer.json.window).toEqual({ date_from: addDays(yesterday, -(days - 1)), date_to: yesterday })
        }
      }))

    it.effect("bad input is a 400 naming the field and keeps its credit; metered like every route", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const cases: Array<[string, unknown, string]> = [
          ["topics", { window_days: 14 }, "window_days: must be 7, 30 or 90"],
          ["topics", { limit: 0 }, "limit: must be an integer from 1 to 100"],
          ["hooks", { library: "tv" }, "library: must be one of social, pinboard, clipapp, search"],
          ["topics", { country: "usa" }, "country: must be an ISO 3166-1 alpha-2 country code such as US"],
          ["topics", { min_count: 0 }, "min_count: must be an integer from 1 to 100000"],
          ["topics", { since: "monday" }, "since: unknown parameter"],
          ["topics", { language: "en" }, "language: unknown parameter"],
          ["topics", { niche: "Home & Garden" }, "niche: must be a niche such as beauty"],
          ["history", {}, "topic is missing"],
          ["history", { topic: "one two three four" }, "topic: must be one to three words"],
          ["history", { topic: "!!" }, "topic: must be one to three words"],
          ["products", { window_days: 1 }, "window_days: must be 7, 30 or 90"]
        ]
        for (const [route, body, error] of cases) {
          const answer = yield* post(api_key, `/api/v1/trends/${route}`, body)
          expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: JSON.stringify({ success: false, error }) })
        }
        expect((yield* balanceOf(id)).used).toBe(cases.length)
        const free = yield* account({ plan: "free" })
        expect((yield* post(free.api_key, "/api/v1/trends/topics", {})).status).toBe(403)
        expect((yield* balanceOf(free.id)).used).toBe(0)
        expect((yield* call("/api/v1/trends/topics", { method: "POST", body: "{}", headers: { "content-type": "application/json" } })).status).toBe(401)
      }))

    // Last: it moves the clock the tests above read as 1970-01-01.
    it.effect("the windows move with the clock, at midnight by the counting fiber; rankings meanwhile answer the windows before", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const counts = yield* TrendCounts
        const sql = yield* SqlClient.SqlClient
        const ranking = (kind: "phrase" | "hook", days: number, scope: Scope = {}) =>
          Effect.map(post(api_key, `/api/v1/trends/${kind === "phrase" ? "topics" : "hooks"}`, { window_days: days, min_count: 1, limit: 100, ...scope }), (a) => a.json)
        /** The clock moved on by `by`, and the fiber's move to `day` waited for. */
        const midnight = <E, R>(by: Duration.DurationInput, day: string, meanwhile: Effect.Effect<unknown, E, R>) =>
          Effect.gen(function*() {
            const moved = yield* Effect.fork(Stream.runDrain(Stream.takeUntil(counts.movedByFiber, Option.contains(day))))
            yield* TestClock.adjust(by)
            yield* meanwhile
            yield* Fiber.join(moved)
          })
        // Midnight: the fiber moves the windows on a day, with nobody asking.
        yield* midnight("1 day", "1970-01-01", Effect.void)
        for (const days of [7, 30, 90]) {
          expect(yield* ranking("phrase", days)).toEqual({ success: true, ...risingOf(worldAds, "phrase", {}, days, 1, 100, "1970-01-01") })
        }
        // A move in progress (its lock held here, as a long move holds it): rankings answer the
        // windows before it at once, and say so.
        const moved = yield* Effect.fork(Stream.runDrain(Stream.takeUntil(counts.movedByFiber, Option.contains("1970-01-02"))))
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`select 1 from trend_state for update`
          yield* TestClock.adjust("1 day")
          expect(yield* ranking("phrase", 30)).toEqual({ success: true, ...risingOf(worldAds, "phrase", {}, 30, 1, 100, "1970-01-01") })
        }))
        yield* Fiber.join(moved)
        expect(yield* ranking("phrase", 30)).toEqual({ success: true, ...risingOf(worldAds, "phrase", {}, 30, 1, 100, "1970-01-02") })
        // Weeks on, with ads imported while the windows move (the days between each move once);
        // then past every ad: nothing rose.
        const template = worldAds.find((ad) => ad.library === "social" && (ad.countries ?? []).includes("US"))!
        const fresh = Array.from({ length: 8 }, (_, i) => ({
          ...template, external_id: `trend-moving-${i}`, first_seen: `${addDays("1970-02-09", -5 * i)}T08:00:00Z`, last_seen: "1970-02-09T09:00:00Z",
          days_running: null, start_date: null, end_date: null, variant_group: null, headline: "The quasarine lamp"
        }))
        const world = [...worldAds, ...fresh]
        for (const [adjust, to] of [["39 days", "1970-02-10"], ["3 days", "1970-02-13"], ["400 days", "1971-03-20"]] as const) {
          yield* midnight(adjust, to, ingestAll("ads", adjust === "39 days" ? fresh : []))
          for (const days of [7, 30, 90]) {
            expect(yield* ranking("phrase", days, { country: "US" })).toEqual({ success: true, ...risingOf(world, "phrase", { country: "US" }, days, 1, 100, to) })
            expect(yield* ranking("hook", days)).toEqual({ success: true, ...risingOf(world, "hook", {}, days, 1, 100, to) })
          }
        }
        expect((yield* ranking("phrase", 90)).data).toEqual([])
        // Counts no window reads (180 days up to yesterday) and none a history reads (365) are gone.
        const [{ days, months }] = yield* sql<{ days: number; months: number }>`
          select (select count(*)::int from trend_days) as days, (select count(*)::int from trend_series) as months`
        expect({ days, months }).toEqual({ days: 0, months: 0 })
      }))
  })
})
