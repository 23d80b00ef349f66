import { describe, expect, it } from "@effect/vitest"
import * as Packed from "../src/ads/trends/Packed.js"
import { phrasesOf } from "../src/ads/trends/Phrases.js"
import { candidates, codePointOrder, growthOf, kept, listed, phraseFolding, type Tally } from "../src/ads/trends/Ranking.js"
import { Counters, sumDays, sumMonths } from "../src/ads/trends/Sums.js"

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

describe("a batch's sums", () => {
  /** Entries of a count list, as [key..., count]. */
  const entriesOf = (list: Packed.CountList) =>
    Array.from({ length: list.length }, (_, i) => [...list.keys.map((k) => k[i]!), list.counts[i]!])

  it("equal a map of sums per day row and per term and month, cancelled entries left out, with the counters left at zero", () => {
    const next = random(11)
    // Small counters, so that the batches grow them.
    const counters = new Counters()
    // Days 0..69 in months of 31 days (as a test's numbering: only their order and month matter).
    const monthAndDay = (day: number) => ({ month: Math.floor(day / 31), dayInMonth: day % 31 })
    for (let round = 0; round < 20; round++) {
      const ads: Array<{ sign: number; day: number; cells: Array<number>; terms: Array<Array<number>> }> = []
      for (let i = 0; i < 1 + Math.floor(next() * 400); i++) {
        const pick = (n: number, range: number) => [...new Set(Array.from({ length: n }, () => Math.floor(next() * range)))]
        const ad = {
          sign: 1,
          day: Math.floor(next() * 70),
          cells: pick(1 + Math.floor(next() * 4), 40),
          terms: [pick(Math.floor(next() * 12), round < 10 ? 300 : 200_000), next() < 0.7 ? pick(1, 90_000) : []]
        }
        ads.push(ad)
        // Some ads are taken back as they were (an edit that changes nothing): their sums cancel.
        if (next() < 0.2) ads.push({ ...ad, sign: -1 })
      }
      const days = new Map<string, number>()
      const months = new Map<string, number>()
      for (const ad of ads) {
        ad.terms.forEach((terms, kind) => {
          for (const cell of ad.cells) {
            for (const term of terms) {
              const day = `${kind}/${ad.day}/${cell}/${term}`
              days.set(day, (days.get(day) ?? 0) + ad.sign)
              const { dayInMonth, month } = monthAndDay(ad.day)
              const key = `${term}/${month}/${cell}/${dayInMonth}`
              months.set(key, (months.get(key) ?? 0) + ad.sign)
            }
          }
        })
      }
      const daySums = sumDays(ads, counters)
      const gotDays = daySums.flatMap((row) => entriesOf(row.deltas).map(([term, n]) => [`${row.kind}/${row.day}/${row.cell}/${term}`, n] as const))
      const order = (x: readonly [string, number], y: readonly [string, number]) => (x[0] < y[0] ? -1 : 1)
      expect([...gotDays].sort(order)).toEqual([...days].filter(([, n]) => n !== 0).sort(order))
      // Rows in (kind, day, cell) order, each row's terms ascending.
      expect(daySums.map((r) => [r.kind, r.day, r.cell])).toEqual(daySums.map((r) => [r.kind, r.day, r.cell]).sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!))
      for (const row of daySums) expect([...row.deltas.keys[0]!]).toEqual([...row.deltas.keys[0]!].sort((a, b) => a - b))

      const monthSums = sumMonths(daySums, counters, monthAndDay)
      const gotMonths = monthSums.flatMap((row) => entriesOf(row.deltas).map(([cell, day, n]) => [`${row.term}/${row.month}/${cell}/${day}`, n!] as const))
      expect([...gotMonths].sort(order)).toEqual([...months].filter(([, n]) => n !== 0).sort(order))
      expect(monthSums.map((r) => [r.term, r.month])).toEqual(monthSums.map((r) => [r.term, r.month]).sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]!))
      for (const row of monthSums) {
        const keys = entriesOf(row.deltas).map(([cell, day]) => cell! * 32 + day!)
        expect(keys).toEqual([...new Set(keys)].sort((a, b) => a - b))
      }
      expect(counters.counts.every((n) => n === 0)).toBe(true)
    }
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

  it("a count shared by thousands of terms (only the first of them by previous count can rank) keeps exactly what brute force lists", () => {
    const next = random(5)
    const all: Array<Tally> = Array.from({ length: 5_000 }, (_, id) => ({ id, count: id < 4_000 ? 50 : 51 + (id % 7), previous: Math.floor(next() * 50) }))
    const keep = kept(all, textOf)
    for (const limit of [1, 100, candidates]) expect(listed(keep, 1, limit, undefined)).toEqual(bruteForce(all, 1, limit))
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
    const phrases = phrasesOf(["Save 15% with code HELLO15 today"], [])
    expect(phrases).toEqual(["save", "code", "code hello15", "code hello15 today", "hello15", "hello15 today", "today"])
    for (const phrase of phrases) expect(phrase).not.toMatch(/^(with|the|a)\b|\b(with|the|a)$|^[\d.%/]+\b|\b[\d.%/]+$/)
    expect(phrasesOf(["Rated 4.9/5 by 2,000 customers"], ["en"])).toEqual(["rated", "customers"])
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
