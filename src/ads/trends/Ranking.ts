import { maxLimit } from "./Api.js"

/**
 * How rising terms are ranked (issue 29, INTERPRETATIONS L2; docs/SPEC-NOTES.md "Trends"):
 * pure functions, shared by the build of the kept rankings and the routes that read them.
 *
 * - A term is listed when it rose (count > previous) in at least `min_count` new ads.
 * - Growth is smoothed: (count + a) / (previous + a) - 1 with a = `growthPrior`, so that a term
 *   of 11 ads against 1 (growth 10 unsmoothed) ranks below one of 60 against 20: small counts
 *   say little about a rise.
 * - Order: growth, then count, both descending, then the term's text in code-point order.
 * - Folding: a phrase within a longer candidate phrase of nearly its count (`foldShare`) is
 *   folded into it (`15% with` into `save 15% with code`), among the `candidates` best.
 */

/** The pseudo-count of smoothed growth. */
export const growthPrior = 10

/** A phrase folds into a longer one used by at least this share of its ads. */
export const foldShare = 0.9

/** Folding looks at this many of the best terms: twice the longest list, so that a list stays full while up to half of them fold. */
export const candidates = 2 * maxLimit

/** A term's counts in a window and in the one before it. */
export interface Tally {
  readonly id: number
  readonly count: number
  readonly previous: number
}

/** Smoothed growth, to four decimals: what the routes answer as `growth`. */
export const growthOf = (count: number, previous: number) => Math.round(((count + growthPrior) / (previous + growthPrior) - 1) * 10_000) / 10_000

/** Whether a UTF-16 unit is half of a surrogate pair (an astral code point). */
const surrogate = (u: number) => u >= 0xd800 && u <= 0xdfff

/** Two strings in code-point order (PostgreSQL's collation "C"; JavaScript's `<` compares UTF-16 units). */
export const codePointOrder = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    // A surrogate sorts above every other UTF-16 unit.
    if (surrogate(x) !== surrogate(y)) return surrogate(x) ? 1 : -1
    return x - y
  }
  return a.length - b.length
}

/**
 * The ranking order: negative when `x` comes first. Growth is compared exactly, by cross
 * multiplication: (cx + a)(py + a) against (cy + a)(px + a).
 */
export const rankOrder = (textOf: (id: number) => string) => (x: Tally, y: Tally): number => {
  const a = growthPrior
  const byGrowth = (y.count + a) * (x.previous + a) - (x.count + a) * (y.previous + a)
  if (byGrowth !== 0) return byGrowth
  if (x.count !== y.count) return y.count - x.count
  return codePointOrder(textOf(x.id), textOf(y.id))
}

/**
 * Of the terms that rose, those some ranking can list: a term is kept when fewer than
 * `candidates` terms of at least its count rank before it. A ranking with `min_count` m lists
 * the first terms of count m or more; each of its first `candidates` has fewer than
 * `candidates` such terms before it, so it is kept: the kept terms, filtered by m, begin with
 * exactly the ranking's first `candidates` (the proof in SPEC-NOTES). In ranking order.
 */
export const kept = (rising: ReadonlyArray<Tally>, textOf: (id: number) => string): ReadonlyArray<Tally> => {
  const order = rankOrder(textOf)
  const byCount = [...rising].sort((x, y) => y.count - x.count)
  // The best `candidates` (in ranking order) of the terms seen so far, all of count >= the current one.
  let best: Array<Tally> = []
  const keep = new Set<Tally>()
  for (let i = 0; i < byCount.length;) {
    let j = i
    while (j < byCount.length && byCount[j]!.count === byCount[i]!.count) j++
    // Within a group of one count, growth falls as the previous count rises: a term with
    // `candidates` terms of a lower previous count before it cannot be among the best, so only
    // the group's first `candidates` by previous count (ties at the edge too) are sorted in full.
    const group = byCount.slice(i, j).sort((x, y) => x.previous - y.previous)
    const edge = group[Math.min(group.length, candidates) - 1]!.previous
    let end = Math.min(group.length, candidates)
    while (end < group.length && group[end]!.previous === edge) end++
    best = [...best, ...group.slice(0, end)].sort(order).slice(0, candidates)
    const inBest = new Set(best)
    for (const term of group) if (inBest.has(term)) keep.add(term)
    i = j
  }
  return [...keep].sort(order)
}

/**
 * The listed terms of a ranking: of `ranked` (in ranking order), those of at least `minCount`
 * ads; the first `candidates` of them are the candidates, phrases folded into longer candidates
 * of nearly their count are left out (`fold`), and the first `limit` remain.
 */
export const listed = (
  ranked: ReadonlyArray<Tally>,
  minCount: number,
  limit: number,
  fold: ((term: Tally, among: ReadonlyArray<Tally>) => boolean) | undefined
): ReadonlyArray<Tally> => {
  const among = ranked.filter((t) => t.count >= minCount).slice(0, candidates)
  return (fold === undefined ? among : among.filter((t) => !fold(t, among))).slice(0, limit)
}

/** Whether the phrase `inner` is a run of whole words of the longer phrase `outer`. */
export const within = (inner: string, outer: string) => outer.length > inner.length && ` ${outer} `.includes(` ${inner} `)

/** The folding rule of phrases: `term` folds when a longer candidate holds it and is used by at least `foldShare` of its ads. */
export const phraseFolding = (textOf: (id: number) => string) => (term: Tally, among: ReadonlyArray<Tally>) => {
  const text = textOf(term.id)
  return among.some((other) => other.count >= foldShare * term.count && within(text, textOf(other.id)))
}
