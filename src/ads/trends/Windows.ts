import { Option } from "effect"
import { addDays, daysIn, type UtcDay } from "../../kernel/UtcDay.js"
import { nichePattern, windowDays } from "./Api.js"

/**
 * The windows trends rank over and what of an ad falls in them (issue 20, INTERPRETATIONS L2):
 * pure functions, shared by the import (which adds an ad's share to the totals of the windows
 * it falls in), the move of the windows when the day changes, and the rankings.
 */

/** A cell's value for "any" (no library, niche or country filter): no value the filters accept is spelt so. */
export const anyValue = "*"

/** A niche the trend filters can ask for (others count only under any niche). */
export const askableNiche = (niche: string) => nichePattern.test(niche)

/** Rows of one shape, column by column (row i of each), as `unnest` takes them. */
export type Columns<Row> = { readonly [K in keyof Row]: Array<Row[K]> }

/** A day whose counts move into or out of a window's totals: +1 adds its counts, -1 takes them away. */
export interface DayShift {
  readonly windowDays: number
  readonly day: string
  readonly count: number
  readonly previous: number
}

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

/** Every window the totals keep, ending `to`. */
export const windowsEnding = (to: UtcDay): ReadonlyArray<TrendWindow> => windowDays.map((days) => windowOf(days, to))

/** How a day's ads count in a window's totals: in `count` (+1, 0) or `previous` (0, +1). */
export interface Role {
  readonly windowDays: number
  readonly counts: "count" | "previous"
}

/** The role of `day` in `window`: none when it falls in neither half. */
export const roleOf = (window: TrendWindow, day: UtcDay): ReadonlyArray<Role> =>
  day >= window.from && day <= window.to
    ? [{ windowDays: window.windowDays, counts: "count" }]
    : day >= window.previousFrom && day < window.from
    ? [{ windowDays: window.windowDays, counts: "previous" }]
    : []

/**
 * The cells an ad counts in: its library or any, its niche or any (a niche no filter can name
 * counts under any only), and each of its countries ('*' first, then those it targets).
 */
export const cellsOf = (library: string, niche: string, countries: ReadonlyArray<string>): ReadonlyArray<readonly [library: string, niche: string, country: string]> => {
  const niches = askableNiche(niche) ? [niche, anyValue] : [anyValue]
  return [library, anyValue].flatMap((l) => niches.flatMap((n) => countries.map((c) => [l, n, c] as const)))
}

/**
 * The days whose counts move when the totals go from the windows ending `from` (none: empty
 * totals) to those ending `to`: each with what it adds to `count` and `previous` (+1 enters,
 * -1 leaves). A day later than both is in no window.
 */
export const shiftsBetween = (from: Option.Option<UtcDay>, to: UtcDay): ReadonlyArray<DayShift> =>
  windowDays.flatMap((days) => {
    const after = windowOf(days, to)
    const before = Option.map(from, (day) => windowOf(days, day))
    const weight = (window: TrendWindow, day: UtcDay) => {
      const [role] = roleOf(window, day)
      return { count: role?.counts === "count" ? 1 : 0, previous: role?.counts === "previous" ? 1 : 0 }
    }
    const first = Option.match(before, { onNone: () => after.previousFrom, onSome: (b) => (b.previousFrom < after.previousFrom ? b.previousFrom : after.previousFrom) })
    const last = Option.match(before, { onNone: () => after.to, onSome: (b) => (b.to > after.to ? b.to : after.to) })
    return Array.from({ length: daysIn(first, last) }, (_, i) => addDays(first, i)).flatMap((day) => {
      const now = weight(after, day)
      const was = Option.match(before, { onNone: () => ({ count: 0, previous: 0 }), onSome: (b) => weight(b, day) })
      const shift = { windowDays: days, day, count: now.count - was.count, previous: now.previous - was.previous }
      return shift.count === 0 && shift.previous === 0 ? [] : [shift]
    })
  })

/** Sums of rows by key, kept for writing column by column: rows whose sums are all zero are left out. */
export class Tally<Row extends object, Sum extends keyof Row> {
  private readonly entries = new Map<string, { readonly row: Omit<Row, Sum>; readonly sums: Map<Sum, number> }>()
  constructor(private readonly sums: ReadonlyArray<Sum>) {}

  /** Adds `by` to the `sum` of the row under `key` (made by `row` the first time). */
  add(key: string, row: () => Omit<Row, Sum>, sum: Sum, by: number) {
    let entry = this.entries.get(key)
    if (entry === undefined) {
      entry = { row: row(), sums: new Map(this.sums.map((s) => [s, 0])) }
      this.entries.set(key, entry)
    }
    entry.sums.set(sum, (entry.sums.get(sum) ?? 0) + by)
  }

  /** The rows column by column; undefined when no row is kept. */
  columns(): Columns<Row> | undefined {
    const columns: Record<string, Array<unknown>> = {}
    let kept = 0
    for (const { row, sums } of this.entries.values()) {
      if ([...sums.values()].every((n) => n === 0)) continue
      kept++
      for (const [name, value] of [...Object.entries(row), ...sums]) (columns[String(name)] ??= []).push(value)
    }
    // Built name by name from rows of `Row`: each name of the row and of its sums has its column.
    return kept === 0 ? undefined : columns as Columns<Row>
  }
}
