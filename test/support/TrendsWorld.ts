import { Effect } from "effect"
import { copyOfAd, termsOf } from "../../src/ads/trends/Phrases.js"
import { recordsOf, type WorldRecord } from "./AdWorld.js"
import { call } from "./TestServer.js"

// What the trends' tests share (test/trends.test.ts, test/trendsServer.test.ts).

export const DAY = 86_400_000
export const yesterday = "1969-12-31"
export const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10)
export const dayOf = (instant: string) => new Date(instant).toISOString().slice(0, 10)

export interface Scope {
  readonly library?: string
  readonly niche?: string
  readonly country?: string
}

/** Brute force: each ad's terms of a kind (once per ad), counted over the window and the one before. */
export const risingOf = (ads: ReadonlyArray<WorldRecord>, kind: "phrase" | "hook", scope: Scope, windowDays: number, minCount: number, limit: number, to = yesterday) => {
  const from = addDays(to, -(windowDays - 1))
  const previousFrom = addDays(from, -windowDays)
  const current = new Map<string, number>()
  const previous = new Map<string, number>()
  for (const ad of ads) {
    if (scope.library !== undefined && ad.library !== scope.library) continue
    if (scope.niche !== undefined && ad.niche !== scope.niche) continue
    if (scope.country !== undefined && !(ad.countries ?? []).includes(scope.country)) continue
    const day = dayOf(ad.first_seen)
    const into = day >= from && day <= to ? current : day >= previousFrom && day < from ? previous : undefined
    if (into === undefined) continue
    const copy = termsOf(copyOfAd(ad as Parameters<typeof copyOfAd>[0]))
    const terms = new Set(kind === "phrase" ? copy.phrases : copy.hook === undefined ? [] : [copy.hook])
    for (const term of terms) into.set(term, (into.get(term) ?? 0) + 1)
  }
  // Smoothed growth (c + 10) / (p + 10), compared exactly; the 200 best are the candidates, and a
  // phrase within a longer candidate of at least 90 % of its count folds into it.
  const ranked = [...current]
    .map(([term, count]) => ({ term, count, previous_count: previous.get(term) ?? 0 }))
    .filter((r) => r.count >= minCount && r.count > r.previous_count)
    .sort((a, b) =>
      (b.count + 10) * (a.previous_count + 10) - (a.count + 10) * (b.previous_count + 10) || b.count - a.count ||
      Buffer.compare(Buffer.from(a.term), Buffer.from(b.term))
    )
    .slice(0, 200)
  const folds = (r: (typeof ranked)[number]) =>
    kind === "phrase" && ranked.some((o) => o.term.length > r.term.length && ` ${o.term} `.includes(` ${r.term} `) && o.count >= 0.9 * r.count)
  const rows = ranked.filter((r) => !folds(r)).slice(0, limit)
  return {
    window: { date_from: from, date_to: to },
    data: rows.map((r) => ({
      [kind === "phrase" ? "topic" : "hook"]: r.term,
      count: r.count,
      previous_count: r.previous_count,
      growth: Math.round(((r.count + 10) / (r.previous_count + 10) - 1) * 10_000) / 10_000
    }))
  }
}

export const worldAds = recordsOf("ads")

export const post = (key: string, path: string, body: unknown) =>
  Effect.map(
    call(path, { method: "POST", headers: { "X-API-Key": key, "content-type": "application/json" }, body: JSON.stringify(body) }),
    (a) => ({ ...a, json: JSON.parse(a.body) })
  )

