import { Clock, Effect } from "effect"
import { dayOf, type UtcDay } from "./Days.js"

/**
 * Days as the service names them: UTC calendar days written `YYYY-MM-DD` (spec: "Dates are UTC
 * days"). Periods, windows, daily counters and day filters all count in these; the current day
 * comes from Effect's `Clock`, so `TestClock` moves it in tests. The arithmetic is `Days.ts`'s.
 */
export { addDays, dayMillis, dayOf, daysIn, startOf, type UtcDay } from "./Days.js"

/** The clock's instant, as a `Date` (what services stamp rows and compare times with). */
export const now: Effect.Effect<Date> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** Today, by the clock. */
export const today: Effect.Effect<UtcDay> = Effect.map(Clock.currentTimeMillis, dayOf)
