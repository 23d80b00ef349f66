import { describe, expect, it, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Cause, Deferred, Effect, Exit, Fiber, Layer, Stream } from "effect"
import { TrendCounts } from "../src/ads/trends/TrendCounts.js"
import { TrendsRepo } from "../src/ads/trends/TrendsRepo.js"
import { Ingest } from "../src/ingest/Ingest.js"
import { copyOfAd, countingRule, hookOf, phrasesOf, stopWordsOf, termsOf } from "../src/ads/trends/Phrases.js"
import { scales, world } from "../src/demo/World.js"
import { createHash } from "node:crypto"
import { ingestAll, loadedSmallWorldServer, type WorldRecord } from "./support/AdWorld.js"
import { account, balanceOf } from "./support/TestServer.js"
import { addDays, dayOf, post, risingOf, type Scope, worldAds, yesterday } from "./support/TrendsWorld.js"

/**
 * Trends (issue 20, INTERPRETATIONS L2) through HTTP against the small world, whose clock
 * stands at 1970-01-01: rising phrases and hooks against brute-force counting over the
 * generated ads, an import moving the counts, one phrase's history, the shop's products by
 * units growth, metering and errors.
 * The server's counting fiber, history, products and the windows' move: test/trendsServer.test.ts.
 */

describe("phrases", () => {
  it("one to three words within a clause, neither starting nor ending with a stop word of the ad's language, a number or a percentage", () => {
    expect(phrasesOf(["Bundle and save 25%. The serum, tested!"], ["en"])).toEqual([
      "bundle", "bundle and save", "save", "serum", "tested"
    ])
    // No phrase runs across a sentence or a comma; numbers and percentages end no phrase, inner punctuation stays.
    expect(phrasesOf(["Rated 4.9/5 by real customers. Sulfate-free, don't wait"], ["en"])).toEqual([
      "rated", "real", "real customers", "customers", "sulfate-free", "wait"
    ])
    expect(phrasesOf(["save 25% today"], ["en"])).toEqual(["save", "save 25% today", "today"])
    // Each language its own stop words; one without a list, or none, is read with English's.
    expect(phrasesOf(["la crème pour le visage, crème de jour"], ["fr"])).toEqual(["crème", "visage", "crème de jour", "jour"])
    expect(phrasesOf(["la crème"], ["en"])).toEqual(["la", "la crème", "crème"])
    expect(phrasesOf(["die beste Creme"], ["de"])).toEqual(["beste", "beste creme", "creme"])
    expect(phrasesOf(["the best cream"], ["xx"])).toEqual(["best", "best cream", "cream"])
    expect(phrasesOf(["the best cream"], [])).toEqual(["best", "best cream", "cream"])
    expect(phrasesOf(["one two three four five six"], ["xx"], 4)).toHaveLength(4)
  })

  it("an ad tagged English among other languages is read with its first language's stop words and English's (issue 46)", () => {
    const copy = ["Glow serum for skin without the irritation. Die beste Creme, mit Liebe."]
    // `de, en` copy, the flagship brand's in the demo world: neither list's words end a phrase.
    expect(phrasesOf(copy, ["de", "en"])).toEqual([
      "glow", "glow serum", "serum", "serum for skin", "skin", "skin without", "without", "without the irritation", "irritation",
      "beste", "beste creme", "creme", "liebe"
    ])
    // `de` alone reads the German list only (`skin without the` stays a phrase); `en, de` the English list alone (`en` is first).
    expect(phrasesOf(copy, ["de"])).toContain("skin without the")
    expect(phrasesOf(copy, ["en", "de"])).toContain("die beste")
    expect(phrasesOf(copy, ["fr", "en"])).not.toContain("the irritation")
  })

  it("a hook is the tagged hook, else the body's first sentence, lowercased", () => {
    expect(hookOf("Tired of  dull skin?", "x")).toBe("tired of dull skin?")
    expect(hookOf(null, "Stop scrolling. Meet the serum.")).toBe("stop scrolling.")
    expect(hookOf(null, null)).toBeUndefined()
  })

  // Counts are kept with the rule that made them and made again at start when it is raised
  // (issue 46): a change to what an ad counts (a stop list, the edge rule, a pattern, a limit)
  // that leaves `countingRule` as it was would leave rankings built by the old rule. What an ad
  // counts is fingerprinted here: the stop lists, and every term of the small demo world's ads.
  // This fails on any such change: raise `countingRule`, then write the new fingerprint here.
  it("what an ad counts is the counting rule's: any change to it comes with a new rule", () => {
    const hash = createHash("sha256")
    for (const language of ["en", "es", "fr", "de", "it", "pt", "nl"]) hash.update(`${language}:${[...stopWordsOf(language)].sort().join(" ")}\n`)
    for (const ad of world({ scale: scales.small, seed: 1, today: "1970-01-01" }).records.ads()) {
      const terms = termsOf(copyOfAd(ad as Parameters<typeof copyOfAd>[0]))
      hash.update(`${terms.phrases.join("|")}#${terms.hook ?? ""}\n`)
    }
    expect({ countingRule, fingerprint: hash.digest("hex").slice(0, 16) }).toEqual({ countingRule: 1, fingerprint: "6bef39de416e56d3" })
  })
})

describe("trends", () => {
  layer(TrendCounts.Default.pipe(Layer.provideMerge(loadedSmallWorldServer())))((it) => {
    it.effect("topics and hooks exact to L2, against brute-force counting, in each scope and window", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const cases: Array<[Record<string, unknown>, Scope, number, number, number]> = [
          [{}, {}, 7, 5, 20],
          [{ window_days: 30, min_count: 2 }, {}, 30, 2, 20],
          [{ window_days: 90 }, {}, 90, 5, 20],
          [{ window_days: 90, limit: 100, min_count: 1 }, {}, 90, 1, 100],
          [{ window_days: 90, library: "social", min_count: 2 }, { library: "social" }, 90, 2, 20],
          [{ window_days: 90, niche: "beauty", min_count: 2 }, { niche: "beauty" }, 90, 2, 20],
          [{ window_days: 90, country: "US", min_count: 2, limit: 5 }, { country: "US" }, 90, 2, 5],
          [{ window_days: 30, library: "clipapp", niche: "home", min_count: 1 }, { library: "clipapp", niche: "home" }, 30, 1, 20],
          [{ window_days: 90, library: "social", niche: "beauty", country: "US", min_count: 1, limit: 100 }, { library: "social", niche: "beauty", country: "US" }, 90, 1, 100],
          [{ window_days: 7, niche: "pets", country: "GB", min_count: 1 }, { niche: "pets", country: "GB" }, 7, 1, 20],
          [{ window_days: 90, niche: "gardening" }, { niche: "gardening" }, 90, 5, 20]
        ]
        let nonEmpty = 0
        for (const [body, scope, windowDays, minCount, limit] of cases) {
          for (const kind of ["phrase", "hook"] as const) {
            const answer = yield* post(api_key, `/api/v1/trends/${kind === "phrase" ? "topics" : "hooks"}`, body)
            expect(answer.status, answer.body).toBe(200)
            const expected = { success: true, ...risingOf(worldAds, kind, scope, windowDays, minCount, limit) }
            expect(answer.body, `${kind} ${JSON.stringify(body)}`).toBe(JSON.stringify(expected))
            if (expected.data.length > 0) nonEmpty++
          }
        }
        expect(nonEmpty).toBeGreaterThan(8)
        expect((yield* balanceOf(id)).used).toBe(cases.length * 2)
      }))

    it.effect("the import keeps the counts current: new ads, an edited ad and ads moved out of the windows", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const topics = (body: Record<string, unknown>) => Effect.map(post(api_key, "/api/v1/trends/topics", body), (a) => a.json)
        const template = worldAds.find((ad) => ad.library === "social")!
        const fresh = Array.from({ length: 6 }, (_, i) => ({
          ...template,
          external_id: `trend-new-${i}`,
          first_seen: `${addDays(yesterday, -i)}T10:00:00Z`,
          last_seen: `${yesterday}T12:00:00Z`,
          days_running: null,
          start_date: null,
          end_date: null,
          variant_group: null,
          headline: "The zanzibarite lamp everyone wants",
          ai_tags: { ...template.ai_tags, hook: "Meet the zanzibarite lamp." }
        }))
        yield* ingestAll("ads", fresh)
        const world = [...worldAds, ...fresh]
        for (const body of [{ min_count: 6, limit: 100 }, { window_days: 30, library: "social", min_count: 3 }]) {
          expect(yield* topics(body)).toEqual({ success: true, ...risingOf(world, "phrase", { library: (body as any).library }, (body as any).window_days ?? 7, body.min_count, (body as any).limit ?? 20) })
        }
        // "zanzibarite lamp" folds into the longer phrase every one of its ads uses.
        const listed = (yield* topics({ min_count: 6, limit: 100 })).data
        expect(listed).toContainEqual({ topic: "zanzibarite lamp everyone", count: 6, previous_count: 0, growth: 0.6 })
        expect(listed.map((t: { topic: string }) => t.topic)).not.toContain("zanzibarite lamp")
        const hooks = yield* Effect.map(post(api_key, "/api/v1/trends/hooks", { min_count: 6 }), (a) => a.json)
        expect(hooks.data).toContainEqual({ hook: "meet the zanzibarite lamp.", count: 6, previous_count: 0, growth: 0.6 })

        // An ad of the world edited: its old phrases lose it, the new ones gain it.
        const edited = worldAds.find((ad) => ad.body !== null && dayOf(ad.first_seen) >= addDays(yesterday, -29))!
        const rewritten = { ...edited, body: `Zanzibarite lamp. ${edited.body}`, headline: "A quiet zanzibarite lamp" }
        yield* ingestAll("ads", [rewritten])
        const afterEdit = world.map((ad) => (ad === edited ? rewritten : ad))
        expect(yield* topics({ window_days: 30, min_count: 2, limit: 100 })).toEqual({ success: true, ...risingOf(afterEdit, "phrase", {}, 30, 2, 100) })
        // Sent again unchanged: nothing moves.
        yield* ingestAll("ads", [rewritten])
        expect(yield* topics({ window_days: 30, min_count: 2, limit: 100 })).toEqual({ success: true, ...risingOf(afterEdit, "phrase", {}, 30, 2, 100) })

        // Back as they were: the edited ad restored and the new ones moved out of every window.
        yield* ingestAll("ads", [edited, ...fresh.map((ad) => ({ ...ad, first_seen: "1950-01-01T00:00:00Z", last_seen: "1950-01-02T00:00:00Z" }))])
        for (const days of [7, 30, 90]) {
          expect(yield* topics({ window_days: days, min_count: 1, limit: 100 })).toEqual({ success: true, ...risingOf(worldAds, "phrase", {}, days, 1, 100) })
        }
      }))

    it.effect("an ad written again, counted or not yet, counts once as its last copy; counting leaves no ad pending", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const sql = yield* SqlClient.SqlClient
        const ingest = yield* Ingest
        const topics = () => Effect.map(post(api_key, "/api/v1/trends/topics", { min_count: 1, limit: 100 }), (a) => a.json)
        const template = worldAds.find((ad) => ad.library === "social" && ad.body !== null)!
        const base = { ...template, external_id: "trend-twice", first_seen: `${yesterday}T09:00:00Z`, last_seen: `${yesterday}T10:00:00Z`,
          days_running: null, start_date: null, end_date: null, variant_group: null }
        const copies = ["The quokkaform kettle", "The wombatine kettle", "The numbatic kettle"].map((headline) => ({ ...base, headline }))
        // The second write follows the first at once: the counting fiber may or may not have
        // counted the first (pending, or counted and taken back); either way only the last counts.
        yield* ingest.records("ads", Stream.fromIterable([copies[0]!]))
        yield* ingest.records("ads", Stream.fromIterable([copies[1]!]))
        yield* ingestAll("ads", [copies[2]!])
        expect(yield* topics()).toEqual({ success: true, ...risingOf([...worldAds, copies[2]!], "phrase", {}, 7, 1, 100) })
        const [{ left }] = yield* sql<{ left: number }>`select count(*)::int as left from trend_pending`
        expect(left).toBe(0)
        // Out of every window again, for the tests after this one.
        yield* ingestAll("ads", [{ ...copies[2]!, first_seen: "1950-01-01T00:00:00Z", last_seen: "1950-01-02T00:00:00Z" }])
        expect(yield* topics()).toEqual({ success: true, ...risingOf(worldAds, "phrase", {}, 7, 1, 100) })
      }))

    it.effect("one file imported twice at once, then again, then edited and moved: each ad counted once, landers' counts exact", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const sql = yield* SqlClient.SqlClient
        const ingest = yield* Ingest
        const topics = () => Effect.map(post(api_key, "/api/v1/trends/topics", { window_days: 30, min_count: 1, limit: 100 }), (a) => a.json)
        const landerCountsOff = Effect.map(sql<{ n: number }>`
          select count(*)::int as n from lander_ad_counts c
           where c.ads_count <> (select count(*) from ads a where a.lander_id = c.lander_id)`, ([row]) => row!.n)
        const linked = worldAds.filter((ad) => ad.library === "social" && ad.body !== null && ad.lander_external_id !== null)
        const file: Array<WorldRecord> = Array.from({ length: 40 }, (_, i) => ({
          ...linked[i % linked.length]!,
          external_id: `trend-same-file-${i}`,
          first_seen: `${addDays(yesterday, -(i % 20))}T08:00:00Z`,
          last_seen: `${yesterday}T09:00:00Z`,
          days_running: null, start_date: null, end_date: null, variant_group: null,
          headline: `The okapine kettle number ${i % 3}`
        }))
        const ndjson = Stream.make(new TextEncoder().encode(file.map((ad) => JSON.stringify(ad)).join("\n")))
        const [first, second] = yield* Effect.all([ingest.lines("ads", ndjson), ingest.lines("ads", ndjson)], { concurrency: 2 })
        expect([first.accepted, second.accepted]).toEqual([40, 40])
        yield* ingestAll("ads", file)
        expect(yield* topics()).toEqual({ success: true, ...risingOf([...worldAds, ...file], "phrase", {}, 30, 1, 100) })
        expect(yield* landerCountsOff).toBe(0)
        // Edited (new copy), moved (another day, another lander) and sent twice at once again.
        const otherLander = linked.find((ad) => ad.lander_external_id !== file[0]!.lander_external_id)!.lander_external_id
        const moved = file.map((ad, i) => (i % 4 === 0 ? { ...ad, headline: "A brand new okapine teapot", first_seen: `${addDays(yesterday, -25)}T08:00:00Z`, lander_external_id: otherLander } : ad))
        yield* Effect.all([ingestAll("ads", moved), ingestAll("ads", moved)], { concurrency: 2 })
        expect(yield* topics()).toEqual({ success: true, ...risingOf([...worldAds, ...moved], "phrase", {}, 30, 1, 100) })
        expect(yield* landerCountsOff).toBe(0)
        // Out of every window again, for the tests after this one.
        yield* ingestAll("ads", moved.map((ad) => ({ ...ad, first_seen: "1950-01-01T00:00:00Z", last_seen: "1950-01-02T00:00:00Z" })))
        expect(yield* topics()).toEqual({ success: true, ...risingOf(worldAds, "phrase", {}, 30, 1, 100) })
      }))

    it.effect("an emptied pending table gives its space back, never while it has rows or another transaction holds it", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const repo = yield* TrendsRepo
        const indexBytes = Effect.map(sql<{ bytes: number }>`select pg_relation_size('trend_pending_pkey')::int as bytes`, ([row]) => row!.bytes)
        expect(yield* indexBytes).toBeGreaterThan(8192)
        // A row pending (uncommitted, so no counter sees it): kept, and so is the table.
        const withRow = sql.withTransaction(Effect.gen(function*() {
          yield* sql`insert into trend_pending (ad_id, day) select id, '1969-12-31' from ads order by id limit 1`
          const compacted = yield* repo.compactPending
          const [{ n }] = yield* sql<{ n: number }>`select count(*)::int as n from trend_pending`
          return yield* Effect.fail({ compacted, n })
        })).pipe(Effect.flip)
        expect(yield* withRow).toEqual({ compacted: false, n: 1 })
        // Another transaction holding the table: not waited for.
        const locked = yield* Deferred.make<void>()
        const holder = yield* sql.withTransaction(
          sql`lock table trend_pending in row exclusive mode`.pipe(Effect.zipRight(Deferred.succeed(locked, undefined)), Effect.zipRight(Effect.never))
        ).pipe(Effect.fork)
        yield* Deferred.await(locked)
        expect(yield* repo.compactPending).toBe(false)
        yield* Fiber.interrupt(holder)
        // Empty and free: truncated, the index back to its first page.
        expect(yield* repo.compactPending).toBe(true)
        expect(yield* indexBytes).toBe(8192)
      }).pipe(Effect.provide(TrendsRepo.Default)))

    it.effect("a count its thread fails is rolled back whole; the next count starts the thread again", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const counts = yield* TrendCounts
        const stored = Effect.map(
          sql<{ h: string }>`select coalesce(md5(string_agg(kind || ' ' || day || ' ' || cell || ' ' || encode(counts, 'hex'), ',' order by kind, day, cell)), '') as h from trend_days`,
          ([row]) => row!.h
        )
        const before = yield* stored
        const copy = { library: "social", niche: null, countries: ["US"], languages: ["en"], headline: "The xylophonic teapot", body: null, description: null, hook: null }
        // A copy the thread cannot read (its day is no date): the thread's error fails the count, a defect.
        const failed = yield* Effect.exit(sql.withTransaction(counts.record([{ before: null, after: { ...copy, first_seen: "no date" } }])))
        expect(Exit.isFailure(failed) && Cause.isDie(failed.cause)).toBe(true)
        expect(yield* stored).toBe(before)
        // The next count has a thread again: it counts (then is rolled back here).
        const changed = yield* sql.withTransaction(Effect.gen(function*() {
          yield* counts.record([{ before: null, after: { ...copy, first_seen: `${yesterday}T01:00:00Z` } }])
          return yield* Effect.fail((yield* stored) !== before)
        })).pipe(Effect.flip)
        expect(changed).toBe(true)
        expect(yield* stored).toBe(before)
      }))
  })
})
