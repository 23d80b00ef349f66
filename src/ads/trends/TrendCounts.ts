import { Clock, Duration, Effect, Option, Queue, Schedule, SubscriptionRef } from "effect"
import { addDays, startOf, today, type UtcDay } from "../../kernel/UtcDay.js"
import { historyDays } from "./Api.js"
import { type AdCopy, termId, termKinds, termsOf } from "./Phrases.js"
import { type DailyDelta, type TermText, type TotalDelta, TrendsRepo } from "./TrendsRepo.js"
import { cellsOf, roleOf, shiftsBetween, Tally, windowsEnding } from "./Windows.js"

/** A backlog at least this long is counted into the daily counts only, and the window totals built from them after. */
export const bulkBacklog = 10_000

/** An ad's change: what it counted before (null: new, or never counted) and what it counts now (null: nothing yet). */
export interface AdChange {
  readonly before: AdCopy | null
  readonly after: AdCopy | null
}

/**
 * Keeps the daily phrase and hook counts of trends (issue 20, INTERPRETATIONS L2) and their
 * window totals in step with the ads and the clock. The ad import stores each new or changed ad
 * as not counted yet and, in the batch's own transaction, takes back what a changed ad counted
 * before (so counts never hold a copy that is gone); `run`, one fiber per replica, counts what
 * is not counted yet, batch by batch, at start and after each import (`kick`), and moves the
 * totals at midnight. Counting an ad writes about 110 daily rows and, for the windows its day
 * falls in, a thousand or so cells of totals (about 13 ms at the bench scale, against 2-4 ms for
 * the daily rows alone, hence the bulk path for backlogs), which an import would otherwise wait
 * for: the counts follow an import by the time it takes to count it, never by a stale copy.
 */
export class TrendCounts extends Effect.Service<TrendCounts>()("adintel/TrendCounts", {
  effect: Effect.gen(function*() {
    const repo = yield* TrendsRepo

    /** Adds `changes` to the daily counts and, for the windows the totals are kept for, to their cells. Takes the totals' lock. */
    const record = (changes: ReadonlyArray<AdChange>): Effect.Effect<void> =>
      Effect.flatMap(repo.lockTotals, (dateTo) => {
        // Per batch: each term hashed once, each count a key of its own (a batch's ads share many).
        const terms = new Map<string, TermText>()
        const daily = new Tally<DailyDelta, "ads">(["ads"])
        const totals = new Tally<TotalDelta, "count" | "previous">(["count", "previous"])
        const windows = Option.map(dateTo, windowsEnding)
        const add = (ad: AdCopy, sign: 1 | -1) => {
          const { countries, day, language, library, niche, terms: used } = termsOf(ad)
          // The windows this ad's day falls in, and as what.
          const roles = Option.match(windows, { onNone: () => [], onSome: (all) => all.flatMap((w) => roleOf(w, day)) })
          const cells = roles.length === 0 ? [] : cellsOf(library, niche, countries)
          for (const [kind, term] of used) {
            const termKey = `${kind}\u0000${term}`
            let known = terms.get(termKey)
            if (known === undefined) terms.set(termKey, known = { id: termId(kind, term), kind: termKinds[kind], term })
            const { id } = known
            for (const country of countries) {
              daily.add(`${id}\u0000${country}\u0000${day}\u0000${library}\u0000${niche}\u0000${language}`,
                () => ({ kind: known.kind, country, day, library, niche, language, termId: id }), "ads", sign)
            }
            for (const { counts, windowDays } of roles) {
              for (const [cellLibrary, cellNiche, country] of cells) {
                totals.add(`${id}\u0000${windowDays}\u0000${cellLibrary}\u0000${cellNiche}\u0000${country}`,
                  () => ({ kind: known.kind, windowDays, library: cellLibrary, niche: cellNiche, country, termId: id }), counts, sign)
              }
            }
          }
        }
        for (const { after, before } of changes) {
          if (before !== null) add(before, -1)
          if (after !== null) add(after, 1)
        }
        return repo.apply([...terms.values()], daily.columns(), totals.columns())
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

    /**
     * Counts until nothing is left to count; how many. A backlog of `rebuildFrom` ads or more
     * (a first start, a bulk load) drops the window totals first: counting then writes the
     * daily counts only, and the totals are built from them once (`current`): keeping every
     * cell of every window current ad by ad is three to six times slower.
     */
    const countAll = (batchSize: number, wait: boolean, rebuildFrom = bulkBacklog): Effect.Effect<number> =>
      Effect.gen(function*() {
        if (yield* repo.pendingAtLeast(rebuildFrom)) yield* repo.transaction(Effect.zipRight(repo.lockTotals, repo.dropTotals))
        const { total } = yield* Effect.iterate({ total: 0, last: -1 }, {
          while: ({ last }) => last !== 0,
          body: ({ total }) => Effect.map(countBatch(batchSize, wait), (n) => ({ total: total + n, last: n }))
        })
        return total
      })

    /** Whether totals kept for `kept` are for `to` or a later day (another replica's clock may run ahead). */
    const reaches = (kept: Option.Option<UtcDay>, to: UtcDay) => Option.exists(kept, (day) => day >= to)

    /**
     * The totals moved on to the windows ending `to` (built from the daily counts when there
     * are none yet), and the daily counts no history reaches dropped, unless they are there or later already. Holds the totals' lock while it
     * moves them: counting waits, and rankings read the totals as they were until it commits.
     */
    const moveTo = (to: UtcDay): Effect.Effect<void> =>
      Effect.flatMap(repo.dateTo, (dateTo) =>
        reaches(dateTo, to) ? Effect.void : repo.transaction(Effect.flatMap(repo.lockTotals, (locked) =>
          reaches(locked, to) ? Effect.void : repo.shift(shiftsBetween(locked, to), to, addDays(to, -(historyDays - 1)))
        )))

    /** The totals moved on to the windows ending yesterday, by the clock; that day. */
    const current: Effect.Effect<UtcDay> = Effect.flatMap(today, (day) => {
      const yesterday = addDays(day, -1)
      return Effect.as(moveTo(yesterday), yesterday)
    })

    /** The day the fiber last moved the windows to. */
    const moved = yield* SubscriptionRef.make(Option.none<UtcDay>())

    /**
     * At each midnight (UTC, by the clock), the totals move on a day; a failed move is tried
     * again each minute. The next wake is the midnight after the day moved to: a move that
     * ends past it (or a clock that jumped) moves again at once.
     */
    const eachMidnight = Effect.flatMap(today, (day) =>
      Effect.iterate(addDays(day, -1), {
        while: () => true,
        body: (kept) =>
          Effect.gen(function*() {
            const now = yield* Clock.currentTimeMillis
            yield* Effect.sleep(Duration.millis(Math.max(0, startOf(addDays(kept, 2)) - now)))
            const day = yield* current.pipe(
              Effect.sandbox,
              Effect.tapError((cause) => Effect.logWarning("Trends: moving the windows failed; trying again in a minute", cause)),
              Effect.retry(Schedule.spaced(Duration.minutes(1)))
            )
            yield* SubscriptionRef.set(moved, Option.some(day))
            return day
          })
      }))

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
      countUncounted: (batchSize = 1_000, rebuildFrom = bulkBacklog): Effect.Effect<number> => countAll(batchSize, false, rebuildFrom),

      /**
       * Counts everything not counted yet, waiting for what another replica is counting, and
       * moves the totals to yesterday's windows: when it returns, they hold every ad stored before.
       */
      flush: Effect.zipRight(countAll(1_000, true), current),

      /** The totals moved on to the windows ending yesterday (by the clock), if they are not there or later: that day. */
      current,

      /** How many ads the counting fiber has counted, as it changes: what a test waits on. */
      countedByFiber: counted.changes,

      /** The last day the fiber moved the windows to at midnight, as it changes: what a test waits on. */
      movedByFiber: moved.changes,

      /** Tells this replica's counting fiber that an import stored ads to count. */
      kick: Effect.asVoid(Queue.offer(pending, undefined)),

      /**
       * The counting fiber: what is not counted at start (ads of another replica's import, of
       * a process that stopped, or stored before migration 0051), then after each kick, each
       * time followed by the move of the totals to yesterday's windows (their build at the
       * first start, or after a backlog dropped them); beside it, the move at each midnight.
       */
      run: Effect.all([
        Effect.forever(
          countAll(1_000, false).pipe(
            Effect.tap((n) => (n > 0 ? SubscriptionRef.update(counted, (total) => total + n) : Effect.void)),
            Effect.zipLeft(current),
            Effect.catchAllCause((cause) => Effect.logWarning("Trends: counting failed; it is tried again after the next import or start", cause)),
            Effect.zipRight(Queue.take(pending))
          )
        ),
        eachMidnight
      ], { concurrency: 2, discard: true })
    }
  }),
  dependencies: [TrendsRepo.Default]
}) {}
