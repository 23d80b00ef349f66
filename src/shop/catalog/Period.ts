import { Effect } from "effect"
import { InvalidRequest } from "../../kernel/Errors.js"
import { addDays, daysIn, today, type UtcDay } from "../../kernel/UtcDay.js"
import { defaultPeriodDays, maxPeriodDays } from "./Entities.js"
import type { PeriodMetrics } from "./Views.js"

/** The days period metrics are computed over, and the period just before, of the same length. */
export interface Period {
  readonly from: UtcDay
  readonly to: UtcDay
  readonly previousFrom: UtcDay
  readonly previousTo: UtcDay
}

/** What selects a period: either end, or neither (every field a request may leave out). */
export interface PeriodSelection {
  readonly date_from?: string | undefined
  readonly date_to?: string | undefined
}

/** `from`..`to` and the run of as many days just before it. */
export const periodFrom = (from: UtcDay, to: UtcDay): Period => {
  const days = daysIn(from, to)
  return { from, to, previousFrom: addDays(from, -days), previousTo: addDays(from, -1) }
}

/**
 * The period a request selects on `day` (today): `date_from`..`date_to`, by default the 30
 * days up to yesterday; `date_from` alone runs to yesterday, `date_to` alone starts 29 days
 * before it. At most `maxPeriodDays` days, and never backwards.
 */
export const selectedOn = (day: UtcDay, selection: PeriodSelection): Effect.Effect<Period, InvalidRequest> => {
  const to = selection.date_to ?? addDays(day, -1)
  const from = selection.date_from ?? addDays(to, -(defaultPeriodDays - 1))
  if (from > to) return Effect.fail(new InvalidRequest({ error: "date_from: must not be after date_to" }))
  if (daysIn(from, to) > maxPeriodDays) {
    return Effect.fail(new InvalidRequest({ error: `date_from: the period is at most ${maxPeriodDays} days` }))
  }
  return Effect.succeed(periodFrom(from, to))
}

/** The period a request selects today, by the clock. */
export const selected = (selection: PeriodSelection): Effect.Effect<Period, InvalidRequest> =>
  Effect.flatMap(today, (day) => selectedOn(day, selection))

/** The last `days` days up to yesterday (by the clock), and as many days before them. */
export const lastDays = (days: number): Effect.Effect<Period> =>
  Effect.map(today, (day) => periodFrom(addDays(day, -days), addDays(day, -1)))

/** How many days a period holds. */
export const lengthOf = (period: Period): number => daysIn(period.from, period.to)

/** (current - previous) / previous, to 4 decimals; null without both or when previous is 0. */
export const growth = (current: number | null, previous: number | null): number | null =>
  current === null || previous === null || previous === 0 ? null : Math.round(((current - previous) / previous) * 10_000) / 10_000

/** Each metric over the period, then each one's growth against the period before (`<metric>_growth`). */
export const metricsOf = (
  names: ReadonlyArray<string>,
  current: Readonly<Record<string, number | null>>,
  previous: Readonly<Record<string, number | null>>
): PeriodMetrics => {
  const metrics: Record<string, number | null> = {}
  for (const name of names) metrics[name] = current[name] ?? null
  for (const name of names) metrics[`${name}_growth`] = growth(current[name] ?? null, previous[name] ?? null)
  return metrics
}
