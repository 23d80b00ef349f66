import { Effect, Option } from "effect"
import { InvalidRequest } from "../../kernel/Errors.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"
import { addDays, today } from "../../kernel/UtcDay.js"
import { ShopSearch } from "../../shop/search/ShopSearch.js"
import {
  defaultLimit,
  defaultMinCount,
  defaultWindowDays,
  type HistoryBody,
  historyDays,
  type Hook,
  type ProductsBody,
  type RisingBody,
  type Topic,
  TrendsCounting,
  type TrendWindow
} from "./Api.js"
import { maxPhraseWords, type TermKind, termKinds, wordsOf } from "./Phrases.js"
import * as Packed from "./Packed.js"
import { growthOf, listed, phraseFolding, type Tally } from "./Ranking.js"
import { type NumberedCell, TrendsRepo } from "./TrendsRepo.js"
import { anyValue, type TrendScope, windowOf } from "./Windows.js"
import type { AccountId } from "../../kernel/Ids.js"

const scopeOf = (body: TrendScope): TrendScope => ({ library: body.library, niche: body.niche, country: body.country })

/** Whether an ad's cell counts in `scope`: its library and niche when they are asked, its country ('*': any). */
const inScope = (cell: NumberedCell, scope: TrendScope) =>
  (scope.library === undefined || cell.library === scope.library) &&
  (scope.niche === undefined || cell.niche === scope.niche) &&
  cell.country === (scope.country ?? anyValue)

/**
 * Trends (issues 20 and 29, INTERPRETATIONS L2): rising phrases and hooks of new ads, read from
 * the rankings the counting fiber keeps (`TrendCounts`), one phrase's history from its packed
 * daily counts, and the short-video shop's products by units growth through the shop's own service.
 * Windows come from the clock.
 */
export class Trends extends Effect.Service<Trends>()("adintel/Trends", {
  effect: Effect.gen(function*() {
    const repo = yield* TrendsRepo
    const shop = yield* ShopSearch

    /** The cells of the counts, as far as read: they are only ever added. */
    let cells = new Map<number, NumberedCell>()
    const cellsOf = (ids: Iterable<number>) =>
      Effect.gen(function*() {
        for (const id of ids) {
          if (cells.has(id)) continue
          cells = new Map((yield* repo.cells).map((c) => [c.id, c]))
          break
        }
        return cells
      })

    /**
     * The rising terms of a ranking, read off the kept ranking of its filter cell as built for
     * the windows ending the day it says (read in the same statement): the counting fiber builds
     * them again at midnight and after counts in them change, and a ranking meanwhile answers
     * those before, saying so in `window`, rather than wait. Rankings not built yet (a first
     * start, a migration that counts every ad again) are the counting fiber's to build: a
     * ranking never waits for that (issue 28), it says so (`TrendsCounting`, 503), and `/ready`
     * answers 503 meanwhile.
     */
    const rising = (kind: TermKind, body: RisingBody) =>
      Effect.gen(function*() {
        const days = body.window_days ?? defaultWindowDays
        const cell = { library: body.library ?? anyValue, niche: body.niche ?? anyValue, country: body.country ?? anyValue }
        const ranking = yield* repo.ranking(termKinds[kind], days, cell)
        if (ranking.dateTo === null) return yield* Effect.fail(new TrendsCounting())
        const window: TrendWindow = { date_from: windowOf(days, ranking.dateTo).from, date_to: ranking.dateTo }
        const ranked: ReadonlyArray<Tally> = ranking.kept === null ? [] : Packed.unpackTallies(ranking.kept)
        const minCount = body.min_count ?? defaultMinCount
        const shown = listed(ranked, minCount, Number.MAX_SAFE_INTEGER, undefined)
        const text = new Map((yield* repo.termsById(shown.map((t) => t.id))).map((t) => [t.id, t.term]))
        const textOf = (id: number) => text.get(id) ?? ""
        const rows = listed(ranked, minCount, body.limit ?? defaultLimit, kind === "phrase" ? phraseFolding(textOf) : undefined)
        return { window, rows: rows.map((r) => ({ term: textOf(r.id), count: r.count, previous_count: r.previous, growth: growthOf(r.count, r.previous) })) }
      }).pipe(Effect.withSpan("Trends.rising"))

    return {
      /** Whether the rankings are built (`/ready` waits for them). */
      counted: Effect.map(repo.state, (state) => Option.isSome(state.dateTo)),

      topics: Effect.fn("Trends.topics", serviceSpan)((body: RisingBody): Effect.Effect<{ readonly window: TrendWindow; readonly data: ReadonlyArray<Topic> }, TrendsCounting> =>
        Effect.map(rising("phrase", body), ({ rows, window }) => ({
          window,
          data: rows.map(({ term, ...counts }) => ({ topic: term, ...counts }))
        }))),

      hooks: Effect.fn("Trends.hooks", serviceSpan)((body: RisingBody): Effect.Effect<{ readonly window: TrendWindow; readonly data: ReadonlyArray<Hook> }, TrendsCounting> =>
        Effect.map(rising("hook", body), ({ rows, window }) => ({
          window,
          data: rows.map(({ term, ...counts }) => ({ hook: term, ...counts }))
        }))),

      /** Every day of the last `historyDays` up to yesterday, zeros included. */
      history: Effect.fn("Trends.history", serviceSpan)(function*(body: HistoryBody) {
        // As counted: its words, lowercased, one space apart (the import's phrase form).
        const words = wordsOf(body.topic)
        if (words.length === 0 || words.length > maxPhraseWords) {
          return yield* Effect.fail(new InvalidRequest({ error: "topic: must be one to three words" }))
        }
        const topic = words.join(" ")
        const to = addDays(yield* today, -1)
        const from = addDays(to, -(historyDays - 1))
        const days = Array.from({ length: historyDays }, (_, i) => addDays(from, i))
        const term = yield* repo.termId(termKinds.phrase, topic)
        const counted = new Map<string, number>()
        if (Option.isSome(term)) {
          const months = yield* repo.series(term.value, `${from.slice(0, 8)}01`, `${to.slice(0, 8)}01`)
          const scope = scopeOf(body)
          const entries = months.flatMap((m) => {
            const list: Array<{ day: string; cell: number; count: number }> = []
            Packed.forEach(m.counts, 2, (cell, inMonth, count) => list.push({ day: addDays(m.month, inMonth), cell, count }))
            return list
          })
          const known = yield* cellsOf(entries.map((e) => e.cell))
          for (const { cell, count, day } of entries) {
            const of = known.get(cell)
            if (of !== undefined && inScope(of, scope)) counted.set(day, (counted.get(day) ?? 0) + count)
          }
        }
        const data = days.map((day) => ({ day, count: counted.get(day) ?? 0 }))
        return { topic, window: { date_from: from, date_to: to }, data }
      }),

      /** The shop's trending ranking by units over the window (the shop's rollups when they hold). */
      products: Effect.fn("Trends.products", serviceSpan)(function*(accountId: AccountId, body: ProductsBody) {
        const days = body.window_days ?? defaultWindowDays
        const windows = windowOf(days, addDays(yield* today, -1))
        const page = yield* shop.trending(accountId, {
          metric: "units",
          days,
          country: body.country,
          category_id: body.category_id,
          page: 1,
          page_size: body.limit ?? defaultLimit
        })
        return { window: { date_from: windows.from, date_to: windows.to }, data: page.data }
      })
    }
  }),
  dependencies: [TrendsRepo.Default, ShopSearch.Default]
}) {}
