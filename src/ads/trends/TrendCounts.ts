import { SqlClient } from "@effect/sql"
import { Clock, Context, Duration, Effect, Option, Queue, Schedule, SubscriptionRef } from "effect"
import { addDays, startOf, today, type UtcDay } from "../../kernel/UtcDay.js"
import { historyDays } from "./Api.js"
import * as Packed from "./Packed.js"
import { type AdCopy, termKinds, termsOf } from "./Phrases.js"
import { kept, type Tally } from "./Ranking.js"
import { type Cell, type KeptRanking, type NumberedCell, TrendsRepo } from "./TrendsRepo.js"
import { cellKey, cellsOfAd, filtersOf, rankedDays, roleOf, windowsEnding } from "./Windows.js"

/** An ad's change: what it counted before (null: new, or never counted) and what it counts now (null: nothing yet). */
export interface AdChange {
  readonly before: AdCopy | null
  readonly after: AdCopy | null
}

/** A backlog at least this long is counted in batches of `bulkBatch` ads: each batch rewrites the packed rows it touches once. */
export const bulkBacklog = 10_000
const bulkBatch = 10_000
const batch = 1_000

/** Keys of a statement's arrays at most: a batch's rows are read and written this many at a time. */
const rowsPerStatement = 20_000

/** Terms and cells whose ids are remembered, at most (past it the memory starts again). */
const maxRemembered = 2_000_000

/** The first day of `day`'s month, and the day's index in it (0 for the first). */
const monthOf = (day: UtcDay) => `${day.slice(0, 8)}01`
const dayInMonth = (day: UtcDay) => Number(day.slice(8, 10)) - 1

/** Runs `effect` outside the caller's transaction, on a connection of its own, committed at once. */
const ownTransaction = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.mapInputContext(effect, (context: Context.Context<never>) => Context.omit(SqlClient.TransactionConnection)(context))

/** Lists of at most `size`. */
const chunks = <A>(items: ReadonlyArray<A>, size: number): ReadonlyArray<ReadonlyArray<A>> =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))

/**
 * Keeps the daily phrase and hook counts of trends (issues 20 and 29, INTERPRETATIONS L2) and the
 * rankings built from them in step with the ads and the clock.
 *
 * The ad import stores each new or changed ad as not counted yet and, in the batch's own
 * transaction, takes back what a changed ad counted before (so counts never hold a copy that is
 * gone). `run`, one fiber per replica, counts what is not counted yet, batch by batch: a batch's
 * phrases are extracted here, summed in memory per day, cell and term, and merged into the packed
 * rows they touch with one read and one write per few thousand rows. After counting, and at each
 * midnight, it builds the rankings of the windows ending yesterday again when the counts in them
 * changed (`current`): rankings read one row, and a count never waits for a ranking.
 */
export class TrendCounts extends Effect.Service<TrendCounts>()("adintel/TrendCounts", {
  effect: Effect.gen(function*() {
    const repo = yield* TrendsRepo

    // The dictionaries as far as this replica has met them: an id never changes once given. Ids
    // are given by statements of their own (committed at once), so none remembered can be
    // rolled back with a failed import.
    const termIds = new Map<string, number>()
    const cellIds = new Map<string, number>()
    const remember = (memory: Map<string, number>, key: string, id: number) => {
      if (memory.size >= maxRemembered) memory.clear()
      memory.set(key, id)
    }

    const idsOfTerms = (wanted: ReadonlyMap<string, { readonly kind: number; readonly term: string }>) =>
      Effect.gen(function*() {
        const unknown = [...wanted].filter(([key]) => !termIds.has(key)).map(([, t]) => t)
        for (const part of chunks(unknown, rowsPerStatement)) {
          for (const t of yield* ownTransaction(repo.termIds(part))) remember(termIds, `${t.kind}\u0000${t.term}`, t.id)
        }
      })

    const idsOfCells = (wanted: ReadonlyMap<string, Cell>) =>
      Effect.gen(function*() {
        const unknown = [...wanted].filter(([key]) => !cellIds.has(key)).map(([, c]) => c)
        if (unknown.length > 0) for (const c of yield* ownTransaction(repo.cellIds(unknown))) remember(cellIds, cellKey(c), c.id)
      })

    /**
     * Adds `changes` to the packed counts, in the caller's transaction (which takes the counts'
     * lock): a batch's counts summed in memory by day, cell and term, each touched row read,
     * merged and written once. Counts within the rankings' windows mark them stale.
     */
    const record = (changes: ReadonlyArray<AdChange>): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (changes.length === 0) return
        const state = yield* repo.lock
        const signed = changes.flatMap(({ after, before }) => [
          ...(before === null ? [] : [{ terms: termsOf(before), sign: -1 }]),
          ...(after === null ? [] : [{ terms: termsOf(after), sign: 1 }])
        ])
        const terms = new Map<string, { kind: number; term: string }>()
        const cells = new Map<string, Cell>()
        for (const { terms: ad } of signed) {
          for (const [kind, term] of ad.terms) terms.set(`${termKinds[kind]}\u0000${term}`, { kind: termKinds[kind], term })
          for (const cell of cellsOfAd(ad.library, ad.niche, ad.countries)) cells.set(cellKey(cell), cell)
        }
        yield* idsOfTerms(terms)
        yield* idsOfCells(cells)

        const days = new Map<string, Map<number, number>>()
        const months = new Map<string, Map<number, number>>()
        const add = (into: Map<string, Map<number, number>>, key: string, entry: number, by: number) => {
          let counts = into.get(key)
          if (counts === undefined) into.set(key, counts = new Map())
          counts.set(entry, (counts.get(entry) ?? 0) + by)
        }
        let touchesWindows = false
        const span = Option.map(state.dateTo, (to) => [addDays(to, -(rankedDays - 1)), to] as const)
        for (const { sign, terms: ad } of signed) {
          const adCells = cellsOfAd(ad.library, ad.niche, ad.countries).map((cell) => cellIds.get(cellKey(cell))!)
          const month = monthOf(ad.day)
          const inMonth = dayInMonth(ad.day)
          touchesWindows ||= Option.exists(span, ([from, to]) => ad.day >= from && ad.day <= to)
          const dayKeys = [0, 1].map((kind) => adCells.map((cell) => `${kind}\u0000${ad.day}\u0000${cell}`))
          for (const [kind, term] of ad.terms) {
            const k = termKinds[kind]
            const id = termIds.get(`${k}\u0000${term}`)!
            const monthKey = `${id}\u0000${month}`
            adCells.forEach((cell, i) => {
              add(days, dayKeys[k]![i]!, id, sign)
              add(months, monthKey, Packed.pairKey(inMonth, cell), sign)
            })
          }
        }

        const dayRows = [...days].map(([key, deltas]) => {
          const [kind, day, cell] = key.split("\u0000")
          return { key, kind: Number(kind), day: day!, cell: Number(cell), deltas }
        })
        for (const part of chunks(dayRows, rowsPerStatement)) {
          const stored = new Map((yield* repo.daysOf(part)).map((r) => [`${r.kind}\u0000${r.day}\u0000${r.cell}`, r.counts]))
          yield* repo.writeDays(part.map((r) => ({ ...r, counts: Packed.merge(stored.get(r.key), Packed.sortedDeltas(r.deltas, 1)) })))
        }
        const monthRows = [...months].map(([key, deltas]) => {
          const [term, month] = key.split("\u0000")
          return { key, term: Number(term), month: month!, deltas }
        })
        for (const part of chunks(monthRows, rowsPerStatement)) {
          const stored = new Map((yield* repo.monthsOf(part)).map((r) => [`${r.term}\u0000${r.month}`, r.counts]))
          yield* repo.writeMonths(part.map((r) => ({ ...r, counts: Packed.merge(stored.get(r.key), Packed.sortedDeltas(r.deltas, 2)) })))
        }
        if (touchesWindows && !state.stale) yield* repo.markStale
      }).pipe(Effect.withSpan("TrendCounts.record", { attributes: { changes: changes.length } }))

    /**
     * One batch of uncounted ads counted and marked, in one transaction; how many. `wait`: take
     * the ads another transaction is counting too, once it is done (`flush`); else skip them.
     */
    const countBatch = (size: number, wait: boolean) =>
      repo.transaction(Effect.gen(function*() {
        // The ads first, the counts' lock after (in `record`), as an import takes them.
        const ads = yield* repo.uncounted(size, wait)
        yield* record(ads.map((ad) => ({ before: null, after: ad })))
        yield* repo.markCounted(ads.map((ad) => ad.id))
        return ads.length
      }))

    /** Counts until nothing is left to count; how many. A backlog of `bulkBacklog` ads or more is counted in larger batches. */
    const countAll = (batchSize: number | undefined, wait: boolean): Effect.Effect<number> =>
      Effect.gen(function*() {
        const size = batchSize ?? ((yield* repo.pendingCount) >= bulkBacklog ? bulkBatch : batch)
        const { total } = yield* Effect.iterate({ total: 0, last: -1 }, {
          while: ({ last }) => last !== 0,
          body: ({ total }) => Effect.map(countBatch(size, wait), (n) => ({ total: total + n, last: n }))
        })
        return total
      }).pipe(Effect.withSpan("TrendCounts.countAll"))

    /**
     * The rankings of the windows ending `to`, built from the daily counts: per kind and country
     * ('*' included), the days of that country's cells are read once and summed into each filter
     * cell they count in (library or any, niche or any), one filter cell at a time, over the
     * three windows at once; each window's rising terms are then cut to the kept ones.
     */
    const build = (to: UtcDay, prune: boolean) =>
      Effect.gen(function*() {
        const from = addDays(to, -(rankedDays - 1))
        const windows = windowsEnding(to)
        const slots = windows.length * 2
        const cells = yield* repo.cells
        const byCountry = new Map<string, Array<NumberedCell>>()
        for (const cell of cells) byCountry.set(cell.country, [...(byCountry.get(cell.country) ?? []), cell])
        const rankings: Array<KeptRanking> = []
        for (const kind of Object.values(termKinds)) {
          const terms = yield* repo.termsOfKind(kind)
          const text = new Map(terms.map((t) => [t.id, t.term]))
          const textOf = (id: number) => text.get(id) ?? ""
          const maxId = terms.reduce((m, t) => Math.max(m, t.id), 0)
          // Per term, its count and previous count in each window: dense, reused for every filter cell.
          const sums = new Int32Array((maxId + 1) * slots)
          const seen = new Uint8Array(maxId + 1)
          for (const [, countryCells] of byCountry) {
            const rows = yield* repo.daysIn(kind, from, to, countryCells.map((c) => c.id))
            const cellOf = new Map(countryCells.map((c) => [c.id, c]))
            const filters = new Map<string, { cell: Cell; rows: Array<(typeof rows)[number]> }>()
            for (const row of rows) {
              for (const filter of filtersOf(cellOf.get(row.cell)!)) {
                const key = cellKey(filter)
                let entry = filters.get(key)
                if (entry === undefined) filters.set(key, entry = { cell: filter, rows: [] })
                entry.rows.push(row)
              }
            }
            for (const { cell, rows: filterRows } of filters.values()) {
              const touched: Array<number> = []
              for (const row of filterRows) {
                const at = windows.flatMap((w, i) => {
                  const role = roleOf(w, row.day)
                  return role === undefined ? [] : [i * 2 + (role === "count" ? 0 : 1)]
                })
                Packed.forEach(row.counts, 1, (id, _, count) => {
                  if (seen[id] === 0) {
                    seen[id] = 1
                    touched.push(id)
                  }
                  for (const slot of at) sums[id * slots + slot]! += count
                })
                yield* Effect.yieldNow()
              }
              windows.forEach((w, i) => {
                const rising: Array<Tally> = []
                for (const id of touched) {
                  const count = sums[id * slots + i * 2]!
                  const previous = sums[id * slots + i * 2 + 1]!
                  if (count > previous) rising.push({ id, count, previous })
                }
                if (rising.length > 0) rankings.push({ kind, windowDays: w.windowDays, ...cell, kept: Packed.packTallies(kept(rising, textOf)) })
              })
              for (const id of touched) {
                seen[id] = 0
                sums.fill(0, id * slots, id * slots + slots)
              }
              yield* Effect.yieldNow()
            }
          }
        }
        // Pruned: days no window reads and months no history reads any more.
        yield* repo.replaceRankings(rankings, to, prune ? from : "-infinity", prune ? monthOf(addDays(to, -(historyDays - 1))) : "-infinity")
      }).pipe(Effect.withSpan("TrendCounts.build", { attributes: { to } }))

    /** Whether rankings built for `built` serve `to`: built for it or a later day (another replica's clock may run ahead) and not stale. */
    const serves = (built: { readonly dateTo: Option.Option<UtcDay>; readonly stale: boolean }, to: UtcDay) =>
      !built.stale && Option.exists(built.dateTo, (day) => day >= to)

    /**
     * The rankings of the windows ending `to` (or the later day they are kept for), built unless
     * they are there and current. Holds the counts' lock while it builds: counting waits, and
     * rankings read those before until it commits.
     */
    const moveTo = (to: UtcDay): Effect.Effect<void> =>
      Effect.flatMap(repo.state, (state) =>
        serves(state, to) ? Effect.void : repo.transaction(Effect.flatMap(repo.lock, (locked) =>
          serves(locked, to) ? Effect.void : build(Option.match(locked.dateTo, { onNone: () => to, onSome: (day) => (day > to ? day : to) }), true)
        )))

    /** The rankings moved on to the windows ending yesterday, by the clock, and built again if counts in them changed; that day. */
    const current: Effect.Effect<UtcDay> = Effect.flatMap(today, (day) => {
      const yesterday = addDays(day, -1)
      return Effect.as(moveTo(yesterday), yesterday)
    })

    /** The day the fiber last moved the windows to. */
    const moved = yield* SubscriptionRef.make(Option.none<UtcDay>())

    /**
     * At each midnight (UTC, by the clock), the rankings move on a day; a failed move is tried
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
      countUncounted: (batchSize?: number): Effect.Effect<number> => countAll(batchSize, false),

      /**
       * Counts everything not counted yet, waiting for what another replica is counting, and
       * builds the rankings of yesterday's windows if they changed: when it returns, they hold
       * every ad stored before.
       */
      flush: Effect.zipRight(countAll(undefined, true), current),

      /** The rankings moved on to the windows ending yesterday (by the clock) and current: that day. */
      current,

      /** The rankings built for the windows ending `to`, whatever they were built for, nothing pruned: what a benchmark times. */
      rebuild: (to: UtcDay) => repo.transaction(Effect.zipRight(repo.lock, build(to, false))),

      /** How many ads the counting fiber has counted, as it changes: what a test waits on. */
      countedByFiber: counted.changes,

      /** The last day the fiber moved the windows to at midnight, as it changes: what a test waits on. */
      movedByFiber: moved.changes,

      /** Tells this replica's counting fiber that an import stored ads to count. */
      kick: Effect.asVoid(Queue.offer(pending, undefined)),

      /**
       * The counting fiber: what is not counted at start (ads of another replica's import, of
       * a process that stopped, or stored before migration 0077), then after each kick, each
       * time followed by the build of the rankings if counts in their windows changed; beside
       * it, the move at each midnight.
       */
      run: Effect.all([
        Effect.forever(
          countAll(undefined, false).pipe(
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
