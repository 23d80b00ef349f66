import { Effect, Option } from "effect"
import { InvalidRequest } from "../../kernel/Errors.js"
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
import { maxPhraseWords, type TermKind, termId, wordsOf } from "./Phrases.js"
import { type Rising, type TrendScope, TrendsRepo } from "./TrendsRepo.js"
import { windowOf } from "./Windows.js"

const round4 = (n: number) => Math.round(n * 10_000) / 10_000
const growthOf = (r: Rising) => round4((r.count - r.previous_count) / Math.max(r.previous_count, 1))

const scopeOf = (body: TrendScope): TrendScope => ({ library: body.library, niche: body.niche, country: body.country })

/**
 * Trends (issue 20, INTERPRETATIONS L2): rising phrases and hooks of new ads, read from the
 * window totals the ad import keeps (`TrendCounts`), one phrase's history from its daily
 * counts, and the short-video shop's products by units growth through the shop's own service.
 * Windows come from the clock.
 */
export class Trends extends Effect.Service<Trends>()("adintel/Trends", {
  effect: Effect.gen(function*() {
    const repo = yield* TrendsRepo
    const shop = yield* ShopSearch

    /**
     * The rising terms, read off the window totals as they are kept, with the day they were
     * kept for (read in the same statement): the counting fiber moves them at midnight, and a
     * ranking during that move (a minute and more at the bench scale) answers the windows
     * before it, saying so in `window`, rather than wait. Totals not built (a first start, a
     * backlog that dropped them) are the counting fiber's to build: a ranking never waits for
     * that (issue 28), it says so (`TrendsCounting`, 503), and `/ready` answers 503 meanwhile.
     */
    const rising = (kind: TermKind, body: RisingBody) =>
      Effect.gen(function*() {
        const days = body.window_days ?? defaultWindowDays
        const ranking = yield* repo.rising(kind, days, scopeOf(body), body.min_count ?? defaultMinCount, body.limit ?? defaultLimit)
        if (ranking.dateTo === null) return yield* Effect.fail(new TrendsCounting())
        const window: TrendWindow = { date_from: windowOf(days, ranking.dateTo).from, date_to: ranking.dateTo }
        return { window, rows: ranking.rows }
      }).pipe(Effect.withSpan("Trends.rising"))

    return {
      /** Whether the window totals are there to rank from (`/ready` waits for them). */
      counted: Effect.map(repo.dateTo, Option.isSome),

      topics: (body: RisingBody): Effect.Effect<{ readonly window: TrendWindow; readonly data: ReadonlyArray<Topic> }, TrendsCounting> =>
        Effect.map(rising("phrase", body), ({ rows, window }) => ({
          window,
          data: rows.map((r) => ({ topic: r.term, count: r.count, previous_count: r.previous_count, growth: growthOf(r) }))
        })),

      hooks: (body: RisingBody): Effect.Effect<{ readonly window: TrendWindow; readonly data: ReadonlyArray<Hook> }, TrendsCounting> =>
        Effect.map(rising("hook", body), ({ rows, window }) => ({
          window,
          data: rows.map((r) => ({ hook: r.term, count: r.count, previous_count: r.previous_count, growth: growthOf(r) }))
        })),

      /** Every day of the last `historyDays` up to yesterday, zeros included. */
      history: (body: HistoryBody) =>
        Effect.gen(function*() {
          // As counted: its words, lowercased, one space apart (the import's phrase form).
          const words = wordsOf(body.topic)
          if (words.length === 0 || words.length > maxPhraseWords) {
            return yield* Effect.fail(new InvalidRequest({ error: "topic: must be one to three words" }))
          }
          const topic = words.join(" ")
          const to = addDays(yield* today, -1)
          const from = addDays(to, -(historyDays - 1))
          const days = Array.from({ length: historyDays }, (_, i) => addDays(from, i))
          const counted = new Map((yield* repo.series(termId("phrase", topic), scopeOf(body), days)).map((d) => [d.day, d.count]))
          const data = days.map((day) => ({ day, count: counted.get(day) ?? 0 }))
          return { topic, window: { date_from: from, date_to: to }, data }
        }),

      /** The shop's trending ranking by units over the window (the shop's rollups when they hold). */
      products: (accountId: string, body: ProductsBody) =>
        Effect.gen(function*() {
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
