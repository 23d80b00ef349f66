import { addDays, type UtcDay } from "../../kernel/Days.js"
import type { Cell } from "./TrendsRepo.js"

/**
 * The windows trends rank over, and the cells an ad counts in (issue 20, INTERPRETATIONS L2):
 * pure functions, shared by the counting, the build of the rankings and the routes. The
 * counting thread runs them: nothing here imports Effect, the contract or a service.
 */

/** The windows a trend ranks over, in days up to yesterday. */
export const windowDays = [7, 30, 90] as const

/** What a niche filter accepts (an ad's niche spelt otherwise counts under any niche only). */
export const nichePattern = /^[A-Za-z0-9_.-]{1,100}$/

/** A filter's value for "any" (no library, niche or country filter): no value the filters accept is spelt so. */
export const anyValue = "*"

/** The niche cell of ads whose niche no filter can name (or none): they count under any niche only. */
export const unnamedNiche = ""

/** A niche the trend filters can ask for (others count only under any niche). */
export const askableNiche = (niche: string) => nichePattern.test(niche)

/** A window of `windowDays` days ending `to`, and the window of as many days before it (both ends included). */
export interface TrendWindow {
  readonly windowDays: number
  readonly from: UtcDay
  readonly to: UtcDay
  readonly previousFrom: UtcDay
}

export const windowOf = (days: number, to: UtcDay): TrendWindow => {
  const from = addDays(to, -(days - 1))
  return { windowDays: days, from, to, previousFrom: addDays(from, -days) }
}

/** Every window the rankings are kept for, ending `to`. */
export const windowsEnding = (to: UtcDay): ReadonlyArray<TrendWindow> => windowDays.map((days) => windowOf(days, to))

/** The days every ranking reads, ending `to`: the longest window and the one before it. */
export const rankedDays = 2 * Math.max(...windowDays)

/** How a day's ads count in a window: in `count`, in `previous`, or not at all. */
export const roleOf = (window: TrendWindow, day: UtcDay): "count" | "previous" | undefined =>
  day >= window.from && day <= window.to ? "count" : day >= window.previousFrom && day < window.from ? "previous" : undefined

/** The cells an ad counts in: its library and niche (named or not), under any country ('*') and under each it targets. */
export const cellsOfAd = (library: string, niche: string, countries: ReadonlyArray<string>): ReadonlyArray<Cell> => {
  const named = askableNiche(niche) ? niche : unnamedNiche
  return [anyValue, ...new Set(countries)].map((country) => ({ library, niche: named, country }))
}

/** The filter cells an ad's cell counts in: its library or any, its niche (if named) or any, its country. */
export const filtersOf = (cell: Cell): ReadonlyArray<Cell> => {
  const niches = cell.niche === unnamedNiche ? [anyValue] : [cell.niche, anyValue]
  return [cell.library, anyValue].flatMap((library) => niches.map((niche) => ({ library, niche, country: cell.country })))
}

/** A filter cell as a key. */
export const cellKey = (cell: Cell) => `${cell.library}\u0000${cell.niche}\u0000${cell.country}`

/** Which ads a trend reads: every value optional (absent: any). */
export interface TrendScope {
  readonly library?: string | undefined
  readonly niche?: string | undefined
  readonly country?: string | undefined
}
