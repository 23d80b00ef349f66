import { describe, expect, it } from "@effect/vitest"
import * as Packed from "../src/ads/trends/Packed.js"
import { phrasesOf } from "../src/ads/trends/Phrases.js"
import { candidates, codePointOrder, growthOf, kept, listed, phraseFolding, type Tally } from "../src/ads/trends/Ranking.js"

/**
 * The pure parts of trends at scale (issue 29): packed counts (what the daily counts are stored
 * as), the kept rankings (what a ranking reads) against brute force, and the rules that make
 * topics read like topics.
 */

/** A seeded generator: the same cases every run. */
const random = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
  return seed / 2_147_483_648
}

describe("packed counts", () => {
  it("round-trips lists of one and two key components, and merges like a map of sums", () => {
    const next = random(7)
    for (const width of [1, 2] as const) {
      for (let round = 0; round < 50; round++) {
        const oracle = new Map<number, number>()
        let stored: Uint8Array | undefined
        for (let step = 0; step < 4; step++) {
          const deltas = new Map<number, number>()
          for (let i = 0; i < 1 + Math.floor(next() * 300); i++) {
            const key = width === 1 ? Math.floor(next() * 200_000) : Packed.pairKey(Math.floor(next() * 5_000), Math.floor(next() * 31))
            const have = (oracle.get(key) ?? 0) + (deltas.get(key) ?? 0)
            // Take back at most what is there; add up to a thousand.
            const by = next() < 0.3 && have > 0 ? -Math.ceil(next() * have) : Math.ceil(next() * (next() < 0.9 ? 1 : 1_000))
            deltas.set(key, (deltas.get(key) ?? 0) + by)
          }
          for (const [key, by] of deltas) oracle.set(key, (oracle.get(key) ?? 0) + by)
          stored = Packed.merge(stored, Packed.sortedDeltas(deltas, width))
          const expected = [...oracle].filter(([, n]) => n !== 0).sort((a, b) => a[0] - b[0])
          const got: Array<[number, number]> = []
          if (stored !== undefined) Packed.forEach(stored, width, (a, b, n) => got.push([width === 1 ? a : Packed.pairKey(a, b), n]))
          expect(got).toEqual(expected)
          expect(stored === undefined).toBe(expected.length === 0)
        }
      }
    }
  })

  it("an entry counted once takes two bytes or less where a day's terms lie close; a count taken below zero is refused", () => {
    const ids = new Map(Array.from({ length: 1_000 }, (_, i) => [1_000 + i * 50, 1] as const))
    const bytes = Packed.merge(undefined, Packed.sortedDeltas(ids, 1))!
    expect(bytes.length).toBeLessThanOrEqual(2 * 1_000)
    expect(() => Packed.merge(bytes, Packed.sortedDeltas(new Map([[1_000, -2]]), 1))).toThrow(Packed.NegativeCount)
    expect(Packed.merge(bytes, Packed.sortedDeltas(new Map([...ids].map(([id]) => [id, -1] as const)), 1))).toBeUndefined()
    expect(Packed.unpackTallies(Packed.packTallies([{ id: 5, count: 300, previous: 0 }, { id: 2 ** 30, count: 1, previous: 70_000 }])))
      .toEqual([{ id: 5, count: 300, previous: 0 }, { id: 2 ** 30, count: 1, previous: 70_000 }])
  })
})

describe("kept rankings", () => {
  const textOf = (id: number) => `term ${String(id % 97).padStart(2, "0")} ${id}`
  /** Brute force: the rising terms of at least `minCount`, in ranking order (exact growth), the first `limit`. */
  const bruteForce = (all: ReadonlyArray<Tally>, minCount: number, limit: number) =>
    all.filter((t) => t.count > t.previous && t.count >= minCount)
      .sort((x, y) => {
        const gx = (x.count + 10) / (x.previous + 10)
        const gy = (y.count + 10) / (y.previous + 10)
        return gy - gx || y.count - x.count || codePointOrder(textOf(x.id), textOf(y.id))
      })
      .slice(0, limit)

  it("filtered by any min_count, the kept terms list exactly what ranking every term would, for any limit up to candidates", () => {
    const next = random(11)
    for (let round = 0; round < 12; round++) {
      // Skewed counts, as words are: many used once, a few by thousands; ties of growth and count abound.
      const all: Array<Tally> = Array.from({ length: 500 + Math.floor(next() * 3_000) }, (_, id) => {
        const count = Math.max(1, Math.floor(1 / (next() ** 1.3 + 0.0005)) - 1)
        return { id, count, previous: Math.floor(next() * count * 1.5) }
      })
      const rising = all.filter((t) => t.count > t.previous)
      const keep = kept(rising, textOf)
      expect(keep.length).toBeLessThan(rising.length)
      for (const minCount of [1, 2, 3, 5, 8, 20, 100, 1_000]) {
        for (const limit of [1, 20, 100, candidates]) {
          expect(listed(keep, minCount, limit, undefined), `round ${round}, min_count ${minCount}, limit ${limit}`).toEqual(bruteForce(all, minCount, limit))
        }
      }
    }
  })

  it("smoothed growth: 11 ads against 1 ranks below 60 against 20 and 30 against 3; ties go to the larger count, then A to Z", () => {
    expect(growthOf(11, 1)).toBe(0.9091)
    expect(growthOf(60, 20)).toBe(1.3333)
    const tallies = [{ id: 1, count: 11, previous: 1 }, { id: 2, count: 60, previous: 20 }, { id: 3, count: 30, previous: 3 }, { id: 4, count: 11, previous: 1 }]
    const text = ["", "musestudio", "glass skin", "barrier cream", "aloe"]
    expect(kept(tallies, (id) => text[id]!).map((t) => text[t.id])).toEqual(["barrier cream", "glass skin", "aloe", "musestudio"])
  })
})

describe("topics a marketer would read", () => {
  it("no topic starts or ends with a stop word, a bare number or a percentage; copy without a language reads as English", () => {
    const phrases = phrasesOf(["Save 15% with code HELLO15 today"], "")
    expect(phrases).toEqual(["save", "code", "code hello15", "code hello15 today", "hello15", "hello15 today", "today"])
    for (const phrase of phrases) expect(phrase).not.toMatch(/^(with|the|a)\b|\b(with|the|a)$|^[\d.%/]+\b|\b[\d.%/]+$/)
    expect(phrasesOf(["Rated 4.9/5 by 2,000 customers"], "en")).toEqual(["rated", "customers"])
  })

  it("a phrase within a longer listed phrase of nearly its count folds into it; one of a clearly larger count stays", () => {
    const text = ["", "hello15", "code hello15", "glow", "glow serum", "serum"]
    const textOf = (id: number) => text[id]!
    const ranked = kept([
      { id: 1, count: 50, previous: 0 },
      { id: 2, count: 48, previous: 0 },
      { id: 3, count: 90, previous: 10 },
      { id: 4, count: 40, previous: 5 },
      { id: 5, count: 41, previous: 5 }
    ], textOf)
    const shown = listed(ranked, 1, 20, phraseFolding(textOf)).map((t) => textOf(t.id))
    // hello15 (50) folds into code hello15 (48 >= 0.9 x 50); glow (90) is more than glow serum (40); serum (41) folds into glow serum (40).
    expect(shown).toEqual(["code hello15", "glow", "glow serum"])
    // Folding only looks at candidates of the ranking: with min_count 49 code hello15 is none, and hello15 stays.
    expect(listed(ranked, 49, 20, phraseFolding(textOf)).map((t) => textOf(t.id))).toEqual(["hello15", "glow"])
  })
})
