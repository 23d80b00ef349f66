import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { copyOfAd, countingRule, maxHookLength, stopWordsOf } from "../src/ads/trends/Phrases.js"
import { foldShare } from "../src/ads/trends/Ranking.js"
import { TrendCounts } from "../src/ads/trends/TrendCounts.js"
import { DemoData } from "../src/demo/DemoData.js"
import { scales, world } from "../src/demo/World.js"
import { loadedSmallWorldServer, smallWorldServer } from "./support/AdWorld.js"
import { account } from "./support/TestServer.js"
import { post, risingOf, worldAds } from "./support/TrendsWorld.js"

/**
 * Trends as a new user meets them (issue 46): the demo world `npm start` loads (its default seed,
 * at the small scale), loaded and counted as the first start does (`demo/FirstStart.ts`: counted
 * beside the drawing of the creatives, then once more), by the server's counting fiber, packed
 * counts and rankings; the top 50 topics and hooks of each window held to every rule of
 * docs/SPEC-NOTES.md "Trends", checked here without the code that applies them. Then counts an
 * older rule made (the rankings kept from before the fix), counted again at start-up.
 */

/** The first start's world: `DEMO_SEED` 1, under the test server's clock at 0 (today 1970-01-01). */
const demoAds = Array.from(world({ scale: scales.small, seed: 1, today: "1970-01-01" }).records.ads()) as Array<Record<string, any>>

const firstStart = Effect.gen(function*() {
  const counts = yield* TrendCounts
  const demo = yield* DemoData
  yield* demo.load({ scale: "small", seed: 1, besideCreatives: counts.flush })
  yield* counts.flush
})

const minCount = 5
const english = stopWordsOf("en")
/** Why a word may not start or end a topic, if it may not. */
const edgeFault = (word: string) =>
  english.has(word) ? "stop word" : !/\p{L}/u.test(word) ? "no letter" : word.endsWith("%") ? "percentage" : undefined

interface Listed {
  readonly term: string
  readonly count: number
  readonly previous_count: number
}

/** What breaks a rule in a listed ranking: each offending term with the rule it breaks. */
const faultsOf = (kind: "topic" | "hook", listed: ReadonlyArray<Listed>): Array<string> =>
  listed.flatMap(({ count, previous_count, term }) => {
    const faults: Array<string> = []
    // The minimum support: at least min_count new ads, more than in the window before.
    if (count < minCount || count <= previous_count) faults.push(`support ${count} against ${previous_count}`)
    if (kind === "topic") {
      const words = term.split(" ")
      if (words.length < 1 || words.length > 3) faults.push("not one to three words")
      for (const [edge, word] of [["first", words[0]!], ["last", words[words.length - 1]!]] as const) {
        const fault = edgeFault(word)
        if (fault !== undefined) faults.push(`${edge} word ${fault}`)
      }
      // Folding: no topic is a run of whole words of a longer listed one used by nearly as many ads.
      const folds = listed.find((o) => o.term.length > term.length && ` ${o.term} `.includes(` ${term} `) && o.count >= foldShare * count)
      if (folds !== undefined) faults.push(`folds into "${folds.term}" (${folds.count} of ${count})`)
    } else if (term !== term.toLowerCase() || /\s{2}|^\s|\s$/u.test(term) || term.length > maxHookLength) {
      faults.push("not a lowercased line, spaces collapsed, within the length")
    }
    return faults.length === 0 ? [] : [`${term}: ${faults.join(", ")}`]
  })

describe("trends on the demo world of the first start", () => {
  layer(Layer.effectDiscard(firstStart).pipe(Layer.provideMerge(smallWorldServer())))((it) => {
    it.effect("the top 50 topics and hooks of every window keep every rule of SPEC-NOTES, as brute-force counting of the generated ads gives them", () =>
      Effect.gen(function*() {
        // Every ad of the world is tagged English or has no tag: the English stop words apply to all of them.
        expect(demoAds.every((ad) => ad.languages.length === 0 || ad.languages.includes("en"))).toBe(true)
        const { api_key } = yield* account()
        const faults: Record<string, Array<string>> = {}
        let listedTopics = 0
        for (const days of [7, 30, 90]) {
          for (const kind of ["topic", "hook"] as const) {
            const answer = yield* post(api_key, `/api/v1/trends/${kind}s`, { window_days: days, limit: 50 })
            expect(answer.status, answer.body).toBe(200)
            const listed: Array<Listed> = answer.json.data.map((item: Record<string, any>) => ({ ...item, term: item[kind] }))
            faults[`${kind}s ${days} days`] = faultsOf(kind, listed)
            if (kind === "topic") listedTopics += listed.length
            // What the counting fiber, the packed counts and the rankings' build serve is what
            // the rule gives the generated ads.
            expect(answer.body, `${kind}s ${days} days`).toBe(JSON.stringify({ success: true, ...risingOf(demoAds, kind === "topic" ? "phrase" : "hook", {}, days, minCount, 50) }))
          }
        }
        expect(faults).toEqual(Object.fromEntries(Object.keys(faults).map((key) => [key, []])))
        // Lists long enough to say something: the 30- and 90-day lists are full.
        expect(listedTopics).toBeGreaterThan(100)
      }))
  })
})

describe("trends counted by an older rule", () => {
  layer(loadedSmallWorldServer())((it) => {
    it.effect("are counted again at start-up, the rankings without the topics the rule now refuses; a later rule's counts are left alone", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const counts = yield* TrendCounts
        const { api_key } = yield* account()
        const topics = (days: number) => post(api_key, "/api/v1/trends/topics", { window_days: days, limit: 50 })
        const faultsIn = (days: number) =>
          Effect.map(topics(days), (answer) => faultsOf("topic", answer.json.data.map((t: Listed & { topic: string }) => ({ ...t, term: t.topic }))))
        const state = Effect.map(
          sql<{ rule: number; date_to: string | null; pending: number }>`
            select counting_rule as rule, date_to::text as date_to, (select count(*)::int from trend_pending) as pending from trend_state`,
          ([row]) => row!
        )
        /** A start-up: the counting service built again on this database, `effect` run with it. */
        const restart = <E, R>(effect: Effect.Effect<void, E, R>) => Effect.provide(effect, TrendCounts.Default)
        expect((yield* state).rule).toBe(countingRule)

        // What the code before issue 46 counted and ranked: the ads tagged `de, en` read with the German list alone.
        const mixed = worldAds.filter((ad) => ad.languages.length > 1 && ad.languages[0] !== "en")
        expect(mixed.length).toBeGreaterThan(10)
        yield* sql.withTransaction(counts.record(mixed.map((ad) => {
          const copy = copyOfAd(ad as Parameters<typeof copyOfAd>[0])
          return { before: copy, after: { ...copy, languages: copy.languages.slice(0, 1) } }
        })))
        yield* counts.flush
        yield* sql`update trend_state set counting_rule = 0`
        const stale = [...yield* faultsIn(7), ...yield* faultsIn(30), ...yield* faultsIn(90)]
        expect(stale.length, stale.join("; ")).toBeGreaterThan(0)

        // Started again: every ad counted again by this rule. Until then, the routes say so.
        yield* restart(Effect.gen(function*() {
          expect(yield* state).toMatchObject({ rule: countingRule, date_to: null, pending: worldAds.length })
          const waiting = yield* topics(7)
          expect([waiting.status, waiting.body]).toEqual([503, '{"success":false,"error":"Trends are being counted; try again in a minute."}'])
          yield* Effect.flatMap(TrendCounts, (again) => again.flush)
        }))
        expect(yield* state).toMatchObject({ rule: countingRule, pending: 0 })
        for (const days of [7, 30, 90]) {
          expect((yield* topics(days)).body).toBe(JSON.stringify({ success: true, ...risingOf(worldAds, "phrase", {}, days, minCount, 50) }))
          expect(yield* faultsIn(days)).toEqual([])
        }

        // Counts a later rule made (a replica started before it was upgraded): left as they are.
        const counted = yield* state
        yield* sql`update trend_state set counting_rule = ${countingRule + 1}`
        yield* restart(Effect.void)
        expect(yield* state).toEqual({ ...counted, rule: countingRule + 1 })
        yield* sql`update trend_state set counting_rule = ${countingRule}`
      }))
  })
})
