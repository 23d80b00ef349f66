import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { maxHookLength, stopWordsOf } from "../src/ads/trends/Phrases.js"
import { foldShare } from "../src/ads/trends/Ranking.js"
import { TrendCounts } from "../src/ads/trends/TrendCounts.js"
import { DemoData } from "../src/demo/DemoData.js"
import { scales, world } from "../src/demo/World.js"
import { smallWorldServer } from "./support/AdWorld.js"
import { account } from "./support/TestServer.js"
import { post, risingOf } from "./support/TrendsWorld.js"

/**
 * Trends as a new user meets them (issue 46): the demo world `npm start` loads (its default seed,
 * at the small scale), loaded and counted as the first start does (`demo/FirstStart.ts`: counted
 * beside the drawing of the creatives, then once more), by the server's counting fiber, packed
 * counts and rankings; the top 50 topics and hooks of each window held to every rule of
 * docs/SPEC-NOTES.md "Trends", checked here without the code that applies them.
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
