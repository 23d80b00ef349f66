import { Clock, Effect } from "effect"

/**
 * Days as the service names them: UTC calendar days written `YYYY-MM-DD` (spec: "Dates are UTC
 * days"). Periods, windows, daily counters and day filters all count in these; the current day
 * comes from Effect's `Clock`, so `TestClock` moves it in tests.
 */
export type UtcDay = string

/** The length of a day in milliseconds. */
export const dayMillis = 86_400_000

/** The UTC day an instant falls on. */
export const dayOf = (millis: number): UtcDay => new Date(millis).toISOString().slice(0, 10)

/** The instant a UTC day starts (its midnight, UTC). */
export const startOf = (day: UtcDay): number => Date.parse(`${day}T00:00:00Z`)

/** The day `days` days after `day` (before it when negative). */
export const addDays = (day: UtcDay, days: number): UtcDay => dayOf(startOf(day) + days * dayMillis)

/** How many days `from`..`to` holds, both included (0 when `to` is before `from`). */
export const daysIn = (from: UtcDay, to: UtcDay): number => Math.max(0, Math.round((startOf(to) - startOf(from)) / dayMillis) + 1)

/** The clock's instant, as a `Date` (what services stamp rows and compare times with). */
export const now: Effect.Effect<Date> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** Today, by the clock. */
export const today: Effect.Effect<UtcDay> = Effect.map(Clock.currentTimeMillis, dayOf)
