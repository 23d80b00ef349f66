/**
 * The arithmetic of UTC days, written `YYYY-MM-DD` (`UtcDay.ts` holds it with the clock's day).
 * It imports nothing: the trends' counting thread uses it, and a thread loads each module again
 * (platform/ServeThread.ts).
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
