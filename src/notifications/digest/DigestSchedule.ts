import type { DigestPrefs } from "./Api.js"

const hour = 3_600_000
const day = 24 * hour

/**
 * The latest digest slot at or before `now` for these preferences: every day at `hour_utc`
 * (daily), every Monday at `hour_utc` (weekly); none when digests are off.
 */
export const latestSlot = (prefs: DigestPrefs, now: Date): Date | null => {
  if (prefs.frequency === "off") return null
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  if (prefs.frequency === "daily") {
    const today = midnight + prefs.hour_utc * hour
    return new Date(today <= now.getTime() ? today : today - day)
  }
  const monday = midnight - ((now.getUTCDay() + 6) % 7) * day + prefs.hour_utc * hour
  return new Date(monday <= now.getTime() ? monday : monday - 7 * day)
}

/**
 * The first digest slot after `at` (none when digests are off): what happened at `at` is told
 * in that slot's digest.
 */
export const nextSlot = (prefs: DigestPrefs, at: Date): Date | null => {
  const latest = latestSlot(prefs, at)
  return latest === null ? null : new Date(latest.getTime() + (prefs.frequency === "weekly" ? 7 : 1) * day)
}

/**
 * The slot to take now, if any: the latest one, when it comes after the previous digest (or,
 * before the first, after the account started tracking). Slots missed while no replica ran
 * are not made one by one: the next digest covers everything since the previous one.
 */
export const dueSlot = (prefs: DigestPrefs, now: Date, previous: Date | null, trackingSince: Date): Date | null => {
  const slot = latestSlot(prefs, now)
  return slot !== null && slot.getTime() > (previous ?? trackingSince).getTime() ? slot : null
}

