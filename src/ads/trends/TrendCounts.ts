import { Effect } from "effect"
import { type AdCopy, countsOf, termId, termKinds } from "./Phrases.js"
import { type CountDelta, type TermText, TrendsRepo } from "./TrendsRepo.js"

/** An ad an import wrote: what it counted before (null: new, or never counted) and what it counts now. */
export interface AdChange {
  readonly before: AdCopy | null
  readonly after: AdCopy
}

const keyOf = (c: { kind: number; country: string; day: string; library: string; niche: string; language: string; term_id: string }) =>
  `${c.kind}\u0000${c.country}\u0000${c.day}\u0000${c.library}\u0000${c.niche}\u0000${c.language}\u0000${c.term_id}`

/**
 * Keeps the daily phrase and hook counts of trends (issue 20, INTERPRETATIONS L2) in step with
 * the ads: the ad import hands it the ads a batch changed, in the batch's own transaction, so
 * counts and ads never disagree. A changed ad takes back what it counted and adds what it
 * counts now; counts that do not move are not written.
 */
export class TrendCounts extends Effect.Service<TrendCounts>()("adintel/TrendCounts", {
  effect: Effect.gen(function*() {
    const repo = yield* TrendsRepo
    const record = (changes: ReadonlyArray<AdChange>): Effect.Effect<void> =>
        Effect.suspend(() => {
          const deltas = new Map<string, CountDelta>()
          const terms = new Map<string, TermText>()
          const add = (ad: AdCopy, sign: 1 | -1) => {
            for (const count of countsOf(ad)) {
              const id = termId(count.kind, count.term)
              const kind = termKinds[count.kind]
              if (sign === 1 && !terms.has(id)) terms.set(id, { id, kind, term: count.term })
              const delta = { kind, country: count.country, day: count.day, library: count.library, niche: count.niche, language: count.language, term_id: id }
              const key = keyOf(delta)
              deltas.set(key, { ...delta, ads: (deltas.get(key)?.ads ?? 0) + sign })
            }
          }
          for (const { after, before } of changes) {
            if (before !== null) add(before, -1)
            add(after, 1)
          }
          const moved = [...deltas.values()].filter((d) => d.ads !== 0)
          return repo.apply([...terms.values()], moved)
        })

    /** One batch of uncounted ads counted and marked, in one transaction; how many. */
    const countBatch = (size: number) =>
      repo.transaction(Effect.gen(function*() {
        const ads = yield* repo.uncounted(size)
        yield* record(ads.map((ad) => ({ before: null, after: ad })))
        yield* repo.markCounted(ads.map((ad) => ad.id))
        return ads.length
      }))

    return {
      record,
      /**
       * Counts the ads stored before trends existed (migration 0051), batch by batch, until
       * none is left; how many it counted. Imports meanwhile count what they write themselves.
       */
      countUncounted: (batchSize = 1_000): Effect.Effect<number> =>
        Effect.iterate({ total: 0, last: -1 }, {
          while: ({ last }) => last !== 0,
          body: ({ total }) => Effect.map(countBatch(batchSize), (n) => ({ total: total + n, last: n }))
        }).pipe(Effect.map(({ total }) => total))
    }
  }),
  dependencies: [TrendsRepo.Default]
}) {}
