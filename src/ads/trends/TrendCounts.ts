import { Effect, Queue, SubscriptionRef } from "effect"
import { type AdCopy, termId, termKinds, termsOf } from "./Phrases.js"
import { type CountDeltas, type TermText, TrendsRepo } from "./TrendsRepo.js"

/** An ad's change: what it counted before (null: new, or never counted) and what it counts now (null: nothing yet). */
export interface AdChange {
  readonly before: AdCopy | null
  readonly after: AdCopy | null
}

/**
 * Keeps the daily phrase and hook counts of trends (issue 20, INTERPRETATIONS L2) in step with
 * the ads. The ad import stores each new or changed ad as not counted yet and, in the batch's
 * own transaction, takes back what a changed ad counted before (so counts never hold a copy
 * that is gone); `run`, one fiber per replica, counts what is not counted yet, batch by batch,
 * at start and after each import (`kick`). Counting costs about 2 ms of database time per ad
 * (a hundred or so daily rows), which an import would otherwise wait for: the counts follow
 * an import by the time it takes to count it, never by a stale copy.
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
          if (after !== null) add(after, 1)
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

    /**
     * One batch of uncounted ads counted and marked, in one transaction; how many. `wait`: take
     * the ads another transaction is counting too, once it is done (`flush`); else skip them.
     */
    const countBatch = (size: number, wait: boolean) =>
      repo.transaction(Effect.gen(function*() {
        const ads = yield* repo.uncounted(size, wait)
        yield* record(ads.map((ad) => ({ before: null, after: ad })))
        yield* repo.markCounted(ads.map((ad) => ad.id))
        return ads.length
      }))

    const countAll = (batchSize: number, wait: boolean): Effect.Effect<number> =>
      Effect.iterate({ total: 0, last: -1 }, {
        while: ({ last }) => last !== 0,
        body: ({ total }) => Effect.map(countBatch(batchSize, wait), (n) => ({ total: total + n, last: n }))
      }).pipe(Effect.map(({ total }) => total))

    /** Imports say "there is something to count"; one signal stands for any number of them. */
    const pending = yield* Queue.sliding<void>(1)
    /** Ads the fiber has counted since it started. */
    const counted = yield* SubscriptionRef.make(0)

    return {
      record,
      /**
       * Of these ads (row ids), the ones whose copy the counts hold. Read by a statement of its
       * own once the caller has locked the ads: a counter holding one of them (it locks the ads
       * it counts) has committed by then, and a statement that waited for a lock would still
       * see what its own start saw of trend_pending.
       */
      countedOf: (ids: ReadonlyArray<string>) => Effect.map(repo.pendingOf(ids), (pending) => new Set(ids.filter((id) => !pending.has(id)))),
      /** Ads an import wrote (new, or changed): the counting fiber counts them after it. In the import's transaction. */
      pending: repo.markPending,
      /**
       * Counts what is not counted yet (ads stored before trends existed, or by imports), batch
       * by batch, until none is left, skipping what another transaction holds; how many it counted.
       */
      countUncounted: (batchSize = 1_000): Effect.Effect<number> => countAll(batchSize, false),

      /** Counts everything not counted yet, waiting for what another replica is counting: when it returns, the counts hold every ad stored before. */
      flush: Effect.asVoid(countAll(1_000, true)),

      /** How many ads the counting fiber has counted, as it changes: what a test waits on. */
      countedByFiber: counted.changes,

      /** Tells this replica's counting fiber that an import stored ads to count. */
      kick: Effect.asVoid(Queue.offer(pending, undefined)),

      /**
       * The counting fiber: what is not counted at start (ads of another replica's import, of
       * a process that stopped, or stored before migration 0051), then after each kick.
       */
      run: Effect.forever(
        countAll(1_000, false).pipe(
          Effect.tap((n) => (n > 0 ? SubscriptionRef.update(counted, (total) => total + n) : Effect.void)),
          Effect.catchAllCause((cause) => Effect.logWarning("Trends: counting failed; it is tried again after the next import or start", cause)),
          Effect.zipRight(Queue.take(pending))
        )
      )
    }
  }),
  dependencies: [TrendsRepo.Default]
}) {}
