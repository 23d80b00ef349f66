import { Effect } from "effect"
import { type AdCopy, termId, termKinds, termsOf } from "./Phrases.js"
import { type CountDeltas, type TermText, TrendsRepo } from "./TrendsRepo.js"

/** An ad an import wrote: what it counted before (null: new, or never counted) and what it counts now. */
export interface AdChange {
  readonly before: AdCopy | null
  readonly after: AdCopy
}

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
        // Per batch: each term hashed once, each count a key of its own (a batch's ads share many).
        const terms = new Map<string, TermText>()
        const deltas = new Map<string, { readonly at: number; ads: number }>()
        const rows: Array<readonly [kind: number, country: string, day: string, library: string, niche: string, language: string, termId: string]> = []
        const add = (ad: AdCopy, sign: 1 | -1) => {
          const { countries, day, language, library, niche, terms: used } = termsOf(ad)
          const scope = `${day}\u0000${library}\u0000${niche}\u0000${language}`
          for (const [kind, term] of used) {
            const termKey = `${kind}\u0000${term}`
            let known = terms.get(termKey)
            if (known === undefined) terms.set(termKey, known = { id: termId(kind, term), kind: termKinds[kind], term })
            for (const country of countries) {
              const key = `${known.id}\u0000${country}\u0000${scope}`
              const delta = deltas.get(key)
              if (delta !== undefined) delta.ads += sign
              else {
                deltas.set(key, { at: rows.length, ads: sign })
                rows.push([known.kind, country, day, library, niche, language, known.id])
              }
            }
          }
        }
        for (const { after, before } of changes) {
          if (before !== null) add(before, -1)
          add(after, 1)
        }
        const moved: CountDeltas = { kind: [], country: [], day: [], library: [], niche: [], language: [], termId: [], ads: [] }
        for (const { ads, at } of deltas.values()) {
          if (ads === 0) continue
          const [kind, country, day, library, niche, language, id] = rows[at]!
          moved.kind.push(kind)
          moved.country.push(country)
          moved.day.push(day)
          moved.library.push(library)
          moved.niche.push(niche)
          moved.language.push(language)
          moved.termId.push(id)
          moved.ads.push(ads)
        }
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
