import { SqlClient } from "@effect/sql"
import { randomBytes } from "node:crypto"
import { Array as Arr, Clock, Context, Duration, Effect, Option, Ref, Schedule, Stream, SubscriptionRef } from "effect"
import { addDays, startOf, today, type UtcDay } from "../../kernel/UtcDay.js"
import { progressOf } from "../../platform/Progress.js"
import { record as recordMetric, trendCounted } from "../../platform/telemetry/Metrics.js"
import { lazyThreadOf, siblingModule } from "../../platform/Threads.js"
import { historyDays } from "./Api.js"
import { buffersOfRead, type Copies, type CountReply, type CountRequest, type Learned, type Rows, type Summed } from "./CountThread.js"
import * as Packed from "./Packed.js"
import { type AdCopy, countingRule, termKinds } from "./Phrases.js"
import { kept, type Tally } from "./Ranking.js"
import { dayNumber, dayOfNumber, dayRowKey, monthNumber, monthOfNumber, monthsKept } from "./Sums.js"
import { type Cell, type CountSignal, type KeptRanking, type NumberedCell, TrendsRepo } from "./TrendsRepo.js"
import { cellKey, filtersOf, rankedDays, roleOf, windowsEnding } from "./Windows.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/** An ad's change: what it counted before (null: new, or never counted) and what it counts now (null: nothing yet). */
export interface AdChange {
  readonly before: AdCopy | null
  readonly after: AdCopy | null
}

/** A backlog at least this long is counted in batches of `bulkBatch` ads: each batch rewrites the packed rows it touches once. */
export const bulkBacklog = 10_000
/**
 * A month's ads are some 170,000 at the bench's million: batches of 100,000 rewrite each term's
 * month row about half as often as batches of 50,000 did, which took a quarter of PostgreSQL's
 * time per ad off.
 */
const bulkBatch = 100_000
const batch = 1_000

/** Keys of a statement's arrays at most: a batch's rows are read and written this many at a time. */
const rowsPerStatement = 20_000

/** The first day of `day`'s month. */
const monthOf = (day: UtcDay) => `${day.slice(0, 8)}01`

/** Runs `effect` outside the caller's transaction, on a connection of its own, committed at once. */
const ownTransaction = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.mapInputContext(effect, (context: Context.Context<never>) => Context.omit(SqlClient.TransactionConnection)(context))

/** Changes as the columns the counting thread reads: each change's copy before (taken back), then after. */
const copiesOf = (changes: ReadonlyArray<AdChange>): Copies => {
  const copies: { -readonly [K in keyof Copies]: Array<Copies[K][number]> } = {
    signs: [],
    library: [],
    first_seen: [],
    niche: [],
    country_counts: [],
    countries: [],
    language_counts: [],
    languages: [],
    headline: [],
    body: [],
    description: [],
    hook: []
  }
  const add = (copy: AdCopy, sign: number) => {
    copies.signs.push(sign)
    copies.library.push(copy.library)
    copies.first_seen.push(copy.first_seen)
    copies.niche.push(copy.niche)
    copies.country_counts.push(copy.countries.length)
    copies.countries.push(...copy.countries)
    copies.language_counts.push(copy.languages.length)
    copies.languages.push(...copy.languages)
    copies.headline.push(copy.headline)
    copies.body.push(copy.body)
    copies.description.push(copy.description)
    copies.hook.push(copy.hook)
  }
  for (const { after, before } of changes) {
    if (before !== null) add(before, -1)
    if (after !== null) add(after, 1)
  }
  return copies
}

/** Row `r` of summed rows, its entries as a count list of `width` key components. */
const listOf = (rows: Rows, r: number, width: 1 | 2): Packed.CountList => {
  const start = rows.starts[r]!
  const end = rows.starts[r + 1]!
  const first = rows.first.subarray(start, end)
  return { width, length: end - start, keys: width === 1 ? [first] : [first, rows.second.subarray(start, end)], counts: rows.counts.subarray(start, end) }
}

/** The parts of `n` rows a statement reads or writes: their first row and the one past their last. */
const partsOf = (n: number) => Array.from({ length: Math.ceil(n / rowsPerStatement) }, (_, i) => [i * rowsPerStatement, Math.min(n, (i + 1) * rowsPerStatement)] as const)

/**
 * Keeps the daily phrase and hook counts of trends (issues 20 and 29, INTERPRETATIONS L2) and the
 * rankings built from them in step with the ads and the clock.
 *
 * The ad import stores each new or changed ad as not counted yet and, in the batch's own
 * transaction, takes back what a changed ad counted before (so counts never hold a copy that is
 * gone). `run`, one fiber per replica, counts what is not counted yet, batch by batch: a batch's
 * phrases are extracted and summed in memory per day, cell and term on a thread of its own
 * (CountThread.ts, so that both cores work), and merged into the packed
 * rows they touch with one read and one write per few thousand rows. After counting, and at each
 * midnight, it builds the rankings of the windows ending yesterday again when the counts in them
 * changed (`current`): rankings read one row, and a count never waits for a ranking.
 */
export class TrendCounts extends Effect.Service<TrendCounts>()("adintel/TrendCounts", {
  scoped: Effect.gen(function*() {
    const repo = yield* TrendsRepo

    /**
     * Counts made by an older rule than this code's (`countingRule`) are dropped and every ad
     * is counted again (issue 46): rankings built from them would go on listing topics the rule
     * now refuses, and an import taking back a changed ad's old copy by the new rule would take
     * back terms the counts never held. Done here, before this process counts or imports
     * anything; replicas starting at once do it once (the rule is read again under its lock).
     * Counts a later version made are left alone: a replica not upgraded yet must not undo them.
     */
    yield* Effect.gen(function*() {
      const stored = yield* repo.countingRule
      if (stored > countingRule) {
        return yield* Effect.logWarning(`Trends: counting rule ${stored} made the counts, later than this version's ${countingRule}; upgrade this replica`)
      }
      if (stored === countingRule) return
      const marked = yield* repo.transaction(Effect.flatMap(repo.lockCountingRule, (locked) =>
        locked < countingRule ? repo.countAgain(countingRule) : Effect.succeed(0)))
      // A fresh database (no ad) takes the rule without a word: nothing was counted by another.
      if (marked > 0) yield* Effect.logInfo(`Trends: the counting rule changed (${stored} to ${countingRule}); every ad (${marked.toLocaleString("en")}) is counted again`)
    }).pipe(Effect.withSpan("TrendCounts.countingRule"))

    /**
     * The thread that extracts a batch's terms and sums them (CountThread.ts), started at the
     * first count and ended with the service; it holds the dictionaries of terms and cells as
     * far as this replica has met them. A thread that fails fails the count it served (its
     * transaction rolls back: its ads stay pending) and is started again at the next.
     */
    const thread = yield* lazyThreadOf<CountRequest, CountReply>(siblingModule(import.meta.url, "CountThread"))
    const ask = <T extends CountReply["_tag"]>(tag: T, request: CountRequest, transfer?: ReadonlyArray<ArrayBuffer>) => {
      const answers = (reply: CountReply): reply is Extract<CountReply, { _tag: T }> => reply._tag === tag
      return Effect.flatMap(thread.run(request, transfer), (reply) =>
        answers(reply) ? Effect.succeed(reply) : Effect.die(new Error(`the counting thread answered ${reply._tag}, not ${tag}`)))
    }

    /**
     * Counting lanes read their batches one at a time, so that each takes the next few days
     * (imports never take it); the reading only: the sums are the counting thread's.
     */
    const reading = yield* Effect.makeSemaphore(1)

    /**
     * A batch's counts summed (Sums.ts), on the counting thread: the rows of trend_days it adds
     * to, by kind, day and cell, and those of trend_series, by term and month. The ids of texts
     * the thread's dictionaries lack are asked for in statements of their own (committed at
     * once, so that none the thread remembers can be rolled back with a failed import); takes
     * no lock. A failed thread is a defect: the caller's transaction rolls back.
     */
    const sum = (copies: Copies) =>
      Effect.gen(function*() {
        const { read } = yield* ask("read", { _tag: "terms", copies })
        const learned: Learned = {
          terms: [new Int32Array(read.newTerms[0].length), new Int32Array(read.newTerms[1].length)],
          cells: new Int32Array(read.newCells.length)
        }
        const wanted = read.newTerms.flatMap((texts, kind) => texts.map((term) => ({ kind, term })))
        if (wanted.length > 0) {
          const at = read.newTerms.map((texts) => new Map(texts.map((text, i) => [text, i])))
          for (const part of Arr.chunksOf(wanted, rowsPerStatement)) {
            for (const t of yield* ownTransaction(repo.termIds(part))) {
              const kind = t.kind === termKinds.hook ? termKinds.hook : termKinds.phrase
              learned.terms[kind][at[kind]!.get(t.term)!] = t.id
            }
          }
        }
        if (read.newCells.length > 0) {
          const at = new Map(read.newCells.map((cell, i) => [cellKey(cell), i]))
          for (const c of yield* ownTransaction(repo.cellIds(read.newCells))) learned.cells[at.get(cellKey(c))!] = c.id
        }
        const transfer = [...buffersOfRead(read), learned.terms[0].buffer, learned.terms[1].buffer, learned.cells.buffer]
        return (yield* ask("summed", { _tag: "sums", read, learned }, transfer)).summed
      }).pipe(Effect.orDie)

    /**
     * Adds summed counts to the packed rows, in the caller's transaction, under the counts'
     * lock: each touched row read, merged and written once. Counts within the rankings'
     * windows mark them stale.
     */
    const apply = ({ counted, days, months }: Summed) =>
      Effect.gen(function*() {
        const state = yield* repo.lock
        // A batch's rows fall on a few days and months: each spelt once.
        const dayText = new Map<number, UtcDay>()
        const dayTextOf = (n: number) => {
          let text = dayText.get(n)
          if (text === undefined) dayText.set(n, text = dayOfNumber(n))
          return text
        }
        const monthText = new Map<number, UtcDay>()
        const monthTextOf = (n: number) => {
          let text = monthText.get(n)
          if (text === undefined) monthText.set(n, text = monthOfNumber(n))
          return text
        }
        for (const [from, to] of partsOf(days.a.length)) {
          const keys = Array.from({ length: to - from }, (_, i) => ({ kind: days.a[from + i]!, day: dayTextOf(days.b[from + i]!), cell: days.c[from + i]! }))
          const stored = new Map((yield* repo.daysOf(keys)).map((r) => [dayRowKey(r.kind, dayNumber(r.day), r.cell), r.counts]))
          yield* repo.writeDays(keys.map((key, i) => ({
            ...key,
            counts: Packed.merge(stored.get(dayRowKey(key.kind, days.b[from + i]!, key.cell)), listOf(days, from + i, 1))
          })))
        }
        for (const [from, to] of partsOf(months.a.length)) {
          const keys = Array.from({ length: to - from }, (_, i) => ({ term: months.a[from + i]!, month: monthTextOf(months.b[from + i]!) }))
          const stored = new Map((yield* repo.monthsOf(keys)).map((r) => [r.term * monthsKept + monthNumber(r.month), r.counts]))
          yield* repo.writeMonths(keys.map((key, i) => ({
            ...key,
            counts: Packed.merge(stored.get(key.term * monthsKept + months.b[from + i]!), listOf(months, from + i, 2))
          })))
        }
        const touchesWindows = Option.exists(state.dateTo, (to) => {
          const from = addDays(to, -(rankedDays - 1))
          return Array.from(counted).some((day) => {
            const text = dayOfNumber(day)
            return text >= from && text <= to
          })
        })
        if (touchesWindows && !state.stale) yield* repo.markStale
      })

    /** Adds `changes` to the packed counts, in the caller's transaction (which takes the counts' lock). */
    const record = (changes: ReadonlyArray<AdChange>): Effect.Effect<void> =>
      changes.length === 0 ? Effect.void : sum(copiesOf(changes)).pipe(
        Effect.flatMap(apply),
        Effect.withSpan("TrendCounts.record", { attributes: { changes: changes.length } })
      )

    /**
     * One batch of uncounted ads counted and marked, in one transaction; how many. `wait`: take
     * the ads another transaction is counting too, once it is done (`flush`); else skip them.
     * The ads are locked first, the counts' lock taken after (in `apply`), as an import takes them.
     */
    const countBatch = (size: number, wait: boolean) =>
      repo.transaction(Effect.gen(function*() {
        const { id: ids, ...copies } = yield* reading.withPermits(1)(repo.uncounted(size, wait))
        if (ids.length > 0) yield* apply(yield* sum({ ...copies, signs: ids.map(() => 1) }))
        yield* repo.markCounted(ids)
        return ids.length
      }).pipe(Effect.withSpan("TrendCounts.countBatch", { attributes: { size } }))).pipe(
        // Counted once committed, by whichever fiber counted (the counting fiber, a flush).
        Effect.tap((n) => n > 0 ? recordMetric(trendCounted, n) : Effect.void)
      )

    /**
     * Counts until nothing is left to count; how many. A backlog of `bulkBacklog` ads or more is
     * counted in larger batches. Unless it waits for ads others hold, two batches run at once:
     * one is read and summed (on the counting thread) while the other is merged and written
     * (the counts' lock orders their writes). A third lane was slower: the two cores were
     * already busy. `wholeOnly`: only while whole large batches wait (a
     * smaller batch rewrites the same packed rows for fewer ads), what is left for later.
     */
    const countAll = (batchSize: number | undefined, wait: boolean, wholeOnly = false): Effect.Effect<number> =>
      Effect.gen(function*() {
        // Each import batch's signal asks this: whole batches waiting, read without counting them all.
        if (wholeOnly && !(yield* repo.pendingAtLeast(bulkBatch))) return 0
        const backlog = yield* repo.pendingCount
        const bulk = backlog >= bulkBacklog
        const size = batchSize ?? (bulk ? bulkBatch : batch)
        // A long count says how far it is, with its rate and the time left (issue 29).
        const progress = yield* progressOf("ads")
        let done = 0
        const counted = (n: number) =>
          Effect.suspend(() => {
            done += n
            return bulk && n > 0 ? Effect.flatMap(progress.text(done, Math.max(backlog, done)), (text) => Effect.logInfo(`Trends: counted ${text}`)) : Effect.void
          })
        const lane = Effect.iterate({ total: 0, last: -1 }, {
          while: ({ last }) => last !== 0 && (!wholeOnly || last === -1 || last === size),
          body: ({ total }) => Effect.flatMap(countBatch(size, wait), (n) => Effect.as(counted(n), { total: total + n, last: n }))
        })
        const totals = yield* Effect.all(wait ? [lane] : [lane, lane], { concurrency: "unbounded" })
        if (bulk) yield* repo.compactPending
        return totals.reduce((n, { total }) => n + total, 0)
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
              for (const [r, row] of filterRows.entries()) {
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
                // Requests go on meanwhile: a long build yields every few rows.
                if (r % 64 === 63) yield* Effect.yieldNow()
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

    /** This process, in the signals it sends: its own imports wake its fiber directly. */
    const self = randomBytes(8).toString("hex")
    /** Whether the fiber is to run a round (one wake stands for any number of them), and whether it is running one. */
    const fiber = yield* SubscriptionRef.make({ wanted: true, busy: false })
    /** An import ended since the fiber last built the rankings (or the fiber has not built yet). */
    const buildDue = yield* Ref.make(true)
    const wake = (what: CountSignal) => Effect.zipRight(what === "build" ? Ref.set(buildDue, true) : Effect.void, SubscriptionRef.update(fiber, (f) => ({ ...f, wanted: true })))
    /** Ads the fiber has counted since it started. */
    const counted = yield* SubscriptionRef.make(0)
    /** Of those, how many the rankings the fiber last built (or found current) hold. */
    const ranked = yield* SubscriptionRef.make(0)

    const countByFiber = (wholeOnly: boolean) =>
      Effect.tap(countAll(undefined, false, wholeOnly), (n) => (n > 0 ? SubscriptionRef.update(counted, (total) => total + n) : Effect.void))

    /**
     * What the fiber does when woken. When an import ended (or at start), it counts what waits
     * (everything that import committed before it said so) and builds the rankings if counts in
     * their windows changed. Else (a long import's batches committing) it counts the whole large
     * batches that wait, as the import goes, and leaves the rest to the import's end: the
     * rankings are built once, when it ends. A failed round builds at the next.
     */
    const round = Effect.gen(function*() {
      if (!(yield* Ref.getAndSet(buildDue, false))) return yield* countByFiber(true)
      yield* Effect.onError(
        Effect.gen(function*() {
          yield* countByFiber(false)
          const holds = yield* SubscriptionRef.get(counted)
          yield* current
          yield* SubscriptionRef.set(ranked, holds)
        }),
        () => Ref.set(buildDue, true)
      )
    }).pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("Trends: counting failed; it is tried again after the next import or start", cause))
    )
    /** A round once woken: the wake taken and the round marked running at once. */
    const nextRound = Stream.runDrain(Stream.takeUntil(fiber.changes, (f) => f.wanted)).pipe(
      Effect.zipRight(SubscriptionRef.set(fiber, { wanted: false, busy: true })),
      Effect.zipRight(round),
      Effect.ensuring(SubscriptionRef.update(fiber, (f) => ({ ...f, busy: false })))
    )

    /** Whether the fiber listens for other processes' signals now. */
    const listens = yield* SubscriptionRef.make(false)

    /**
     * Other processes' signals (`TrendsRepo.signals`) wake the fiber. When the listening
     * connection is lost, it listens again 5 s later; once it listens, what was signalled
     * meanwhile is made up for by a round that counts and builds.
     */
    const listening = repo.signals.pipe(
      Stream.runForEach((heard) =>
        heard === "listening"
          ? Effect.zipRight(SubscriptionRef.set(listens, true), wake("build"))
          : heard.from === self ? Effect.void : wake(heard.what)),
      Effect.catchAllCause((cause) => Effect.logWarning("Trends: listening for other processes' imports failed; listening again in 5 s", cause)),
      Effect.zipRight(SubscriptionRef.set(listens, false)),
      Effect.zipRight(Effect.sleep(Duration.seconds(5))),
      Effect.forever
    )

    return {
      record,
      /**
       * Of these ads (row ids), the ones whose copy the counts hold, in the caller's transaction,
       * which has written their new copies: their pending rows are locked first, so a counter
       * holding one of them (it counted the old copy) has committed by then, and none counts
       * them until the caller ends.
       */
      countedOf: Effect.fn("TrendCounts.countedOf", serviceSpan)((ids: ReadonlyArray<string>) => Effect.map(repo.pendingOf(ids), (pending) => new Set(ids.filter((id) => !pending.has(id))))),
      /**
       * Ads an import wrote (new, or changed), in the import's transaction: other processes'
       * counting fibers are told once it commits (this process's is told when the import ends,
       * by `kick`), and count them.
       */
      pending: Effect.fn("TrendCounts.pending", serviceSpan)((ads: ReadonlyArray<{ readonly id: string; readonly day: string }>) =>
        ads.length === 0 ? Effect.void : Effect.zipRight(repo.markPending(ads), repo.signal("count", self))),
      /**
       * Counts what is not counted yet (ads stored before trends existed, or by imports), batch
       * by batch, until none is left, skipping what another transaction holds; how many it counted.
       */
      countUncounted: Effect.fn("TrendCounts.countUncounted", serviceSpan)((batchSize?: number): Effect.Effect<number> => countAll(batchSize, false)),

      /**
       * Counts everything not counted yet, waiting for what another replica is counting, and
       * builds the rankings of yesterday's windows if they changed: when it returns, they hold
       * every ad stored before.
       */
      flush: Effect.zipRight(countAll(undefined, true), current),

      /** The rankings moved on to the windows ending yesterday (by the clock) and current: that day. */
      current,

      /** The rankings built for the windows ending `to`, whatever they were built for, nothing pruned: what a benchmark times. */
      rebuild: Effect.fn("TrendCounts.rebuild", serviceSpan)((to: UtcDay) => repo.transaction(Effect.zipRight(repo.lock, build(to, false)))),

      /** Imported ads not counted yet: what `/metrics` shows as the trends' backlog. */
      backlog: repo.pendingCount,

      /** How many ads the counting fiber has counted, as it changes: what a test waits on. */
      countedByFiber: counted.changes,

      /** How many of those the rankings hold, as it changes: what a test waits on. */
      rankedByFiber: ranked.changes,

      /** Whether the fiber listens for other processes' signals, as it changes: what a test waits on. */
      listensByFiber: listens.changes,

      /** Waits until the fiber is between rounds with nothing to wake it: what a test waits on. */
      idle: Stream.runDrain(Stream.takeUntil(fiber.changes, (f) => !f.wanted && !f.busy)),

      /** The last day the fiber moved the windows to at midnight, as it changes: what a test waits on. */
      movedByFiber: moved.changes,

      /** Tells every counting fiber (this replica's at once, others' through PostgreSQL) that an import ended: its ads are to be counted and ranked. */
      kick: Effect.zipRight(wake("build"), repo.signal("build", self)),

      /**
       * The counting fiber: what is not counted at start (ads of another replica's import, of
       * a process that stopped, or stored before migration 0077) and the rankings built, then
       * a `round` at each wake: an import's batch committed or an import ended, in any process
       * on the database. Beside it, the signals listened for and the move at each midnight.
       */
      run: Effect.all([
        Effect.forever(nextRound),
        listening,
        eachMidnight
      ], { concurrency: "unbounded", discard: true })
    }
  }),
  dependencies: [TrendsRepo.Default]
}) {}
