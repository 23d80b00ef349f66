import type { CreditBalance } from "./Api.js"

/**
 * How the numbers kept per account read on the wire. Pure functions shared by the gateway,
 * the shop quota and the admin view, so every answer derives them the same way.
 */

/** spec: Resources, Credit balance: `remaining` is limit minus used, `total_remaining` adds add-ons. */
export const creditBalance = (used: number, limit: number, addon: number): CreditBalance => {
  const remaining = Math.max(0, limit - used)
  return { used, limit, remaining, addon_remaining: addon, total_remaining: remaining + addon }
}

/** Daily searches reset at the next UTC midnight (G7). */
export const startOfNextUtcDay = (now: Date): Date =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1))

/** spec: "Limit resets in 30 days": script generations count per 30-day period. */
export const scriptPeriodDays = 30

export const scriptResetsAt = (periodStart: Date | null): Date | null =>
  periodStart === null ? null : new Date(periodStart.getTime() + scriptPeriodDays * 86_400_000)

/** Searches left today; null when unlimited. */
export const searchesLeft = (used: number, limit: number | null): number | null =>
  limit === null ? null : Math.max(0, limit - used)
