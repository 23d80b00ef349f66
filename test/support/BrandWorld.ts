import { Clock, Effect } from "effect"
import { ad as fixtureAd } from "../fixtures/world.js"
import { ingestAll } from "./AdWorld.js"

/**
 * The brands the brand tracker and notification tests follow: social-library advertisers and
 * their ads, dated relative to the test's clock. Tests compute what they expect from these.
 */

const DAY = 86_400_000
const provenance = { fetched_at: "2026-11-01T00:00:00Z", source: "test", method: "manual" }

export interface BrandAd {
  readonly id: string
  readonly brand: string
  readonly library?: "social" | "pinboard"
  /** Days before the clock's instant when it was first seen (fractions allowed). */
  readonly firstDaysAgo: number
  readonly lastDaysAgo: number
  readonly status: "active" | "inactive"
  readonly format: "image" | "video" | "carousel"
  readonly domain: string
  readonly headline?: string
}

export const advertiser = (id: string, name: string, domain?: string, platform: "social" | "pinboard" = "social") => ({
  platform,
  external_id: id,
  name,
  ...(domain === undefined ? {} : { domain }),
  ...provenance
})

const iso = (ms: number) => new Date(ms).toISOString()

/** The ad records of these ads, dated from `now`. */
export const adRecords = (ads: ReadonlyArray<BrandAd>, now: number) =>
  ads.map((a) =>
    fixtureAd(a.id, {
      library: a.library ?? "social",
      advertiser_external_id: a.brand,
      status: a.status,
      format: a.format,
      first_seen: iso(now - a.firstDaysAgo * DAY),
      last_seen: iso(now - a.lastDaysAgo * DAY),
      start_date: null,
      headline: a.headline ?? `Ad ${a.id}`,
      landing: { url: `https://${a.domain}/p`, final_url: null, domain: a.domain },
      lander_external_id: null,
      store_external_id: null,
      // Engagement and reach are social-library fields; the image board shows likes and comments only.
      ...(a.library === "pinboard" ? { engagement: { likes: 3, comments: 1 }, spend: null, impressions: null } : {})
    })
  )

/** Ingests advertisers, then ads dated from the clock's instant now. */
export const ingestBrands = (advertisers: ReadonlyArray<ReturnType<typeof advertiser>>, ads: ReadonlyArray<BrandAd>) =>
  Effect.gen(function*() {
    if (advertisers.length > 0) yield* ingestAll("advertisers", advertisers)
    if (ads.length > 0) yield* ingestAll("ads", adRecords(ads, yield* Clock.currentTimeMillis))
  })
