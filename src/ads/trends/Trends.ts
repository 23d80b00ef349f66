import { Clock, Effect, Option } from "effect"
import { InvalidRequest } from "../../kernel/Errors.js"
import { addDays, today } from "../../kernel/UtcDay.js"
import { ShopSearch } from "../../shop/search/ShopSearch.js"
import {
  defaultLimit,
  defaultMinCount,
  defaultWindowDays,
  type HistoryBody,
  maxLimit,
  historyDays,
  type Hook,
  type ProductsBody,
  type RisingBody,
  type Topic,
  type TrendWindow
} from "./Api.js"
import { maxPhraseWords, type TermKind, termId, wordsOf } from "./Phrases.js"
import { type AnswerKey, type Rising, type TrendScope, TrendsRepo } from "./TrendsRepo.js"

/** Stored answers kept at most (the oldest go first): every filter combination may be asked. */
export const maxStoredAnswers = 10_000

const round4 = (n: number) => Math.round(n * 10_000) / 10_000
const growthOf = (r: Rising) => round4((r.count - r.previous_count) / Math.max(r.previous_count, 1))

/** The window of `days` days up to yesterday (by the clock), and the first day of the one before. */
const windowsOf = (days: number) =>
  Effect.map(today, (day) => {
    const to = addDays(day, -1)
    const from = addDays(to, -(days - 1))
    return { from, to, previousFrom: addDays(from, -days) }
  })

const scopeOf = (body: TrendScope): TrendScope => ({ library: body.library, niche: body.niche, country: body.country, language: body.language })

/**
 * Trends (issue 20, INTERPRETATIONS L2): rising phrases and hooks of new ads, read from the
 * daily counts the ad import keeps (`TrendCounts`), one phrase's history, and the short-video
 * shop's products by units growth through the shop's own service. Windows come from the clock.
 */
export class Trends extends Effect.Service<Trends>()("adintel/Trends", {
  effect: Effect.gen(function*() {
    const repo = yield* TrendsRepo
    const shop = yield* ShopSearch

    /**
     * The rising terms: the stored answer when it was computed from the counts as they are and
     * for this window, else computed from the daily counts (the whole `maxLimit`, so any
     * `limit` is a prefix) and stored. The version is read first: counts written meanwhile only
     * make the stored answer look older than it is, never newer.
     */
    const rising = (kind: TermKind, body: RisingBody) =>
      Effect.gen(function*() {
        const windowDays = body.window_days ?? defaultWindowDays
        const windows = yield* windowsOf(windowDays)
        const key: AnswerKey = { kind, windowDays, minCount: body.min_count ?? defaultMinCount, ...scopeOf(body) }
        const stored = yield* repo.stored(key, windows.to)
        const rows = yield* Option.match(stored.rows, {
          onSome: Effect.succeed,
          onNone: () =>
            Effect.tap(repo.rising(kind, key, windows, key.minCount, maxLimit), (computed) =>
              Effect.flatMap(Clock.currentTimeMillis, (now) => repo.store(key, windows.to, stored.version, computed, new Date(now), maxStoredAnswers)))
        })
        const window: TrendWindow = { date_from: windows.from, date_to: windows.to }
        return { window, rows: rows.slice(0, body.limit ?? defaultLimit) }
      })

    return {
      topics: (body: RisingBody): Effect.Effect<{ readonly window: TrendWindow; readonly data: ReadonlyArray<Topic> }> =>
        Effect.map(rising("phrase", body), ({ rows, window }) => ({
          window,
          data: rows.map((r) => ({ topic: r.term, count: r.count, previous_count: r.previous_count, growth: growthOf(r) }))
        })),

      hooks: (body: RisingBody): Effect.Effect<{ readonly window: TrendWindow; readonly data: ReadonlyArray<Hook> }> =>
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
          const windows = yield* windowsOf(days)
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
