import { Schema } from "effect"
import { keysOf } from "../../kernel/Guards.js"

/**
 * The brand insight tabs (issue 19; INTERPRETATIONS W2), declared once: each tab is a name, a
 * description and the schema of its `data`. The routes (`Api.ts`), `GET /api/v1/brands/tabs`,
 * the OpenAPI document and the typed client are generated from this table; each tab's SQL is
 * in `BrandInsightsRepo.ts`, keyed by the same names. Contract only.
 *
 * Every tab reads "the period's ads" of the brand: its ads (in the libraries asked for, in the
 * countries asked for) that ran at some time within the period, `first_seen` to `last_seen`
 * meeting `date_from` 00:00 to `date_to` 24:00 UTC. `ads` counts them, `active` those of them
 * whose status is active now.
 */

/** How many items a ranked list shows at most (the most ads first). */
export const topItems = 20
/** How many ads a list of ads shows at most. */
export const adsShown = 20

const Int = Schema.Int
const Instant = Schema.String.annotations({ description: "UTC instant, ISO 8601" })
const counted = {
  ads: Int.annotations({ description: "The period's ads with it" }),
  active: Int.annotations({ description: "Of those, the active ones" })
}
const spanned = {
  first_seen: Instant.annotations({ description: "The earliest first_seen of those ads" }),
  last_seen: Instant.annotations({ description: "The latest last_seen of those ads" })
}
const ranked = <F extends Schema.Struct.Fields>(fields: F, what: string, limit: number = topItems) =>
  Schema.Array(Schema.Struct(fields)).annotations({ description: `${what}; most ads first, at most ${limit}` })

/** An ad in a tab's list: enough to recognise it and open it (`GET /api/v1/adlibrary?...`). */
export const TabAd = Schema.Struct({
  id: Schema.String,
  library: Schema.String,
  status: Schema.String,
  format: Schema.String,
  headline: Schema.NullOr(Schema.String),
  first_seen: Instant,
  last_seen: Instant,
  days_running: Int,
  landing_url: Schema.NullOr(Schema.String)
}).annotations({ identifier: "BrandTabAd" })
export type TabAd = typeof TabAd.Type

const Lengths = Schema.Struct({
  ads: Int.annotations({ description: "Ads with this text" }),
  min: Schema.NullOr(Int),
  median: Schema.NullOr(Schema.Number),
  max: Schema.NullOr(Int)
}).annotations({ description: "Length in characters (Unicode code points)" })

const Tagged = {
  tagged: Int.annotations({ description: "Ads whose record carries it (`ai_tags`)" }),
  derived: Int.annotations({ description: "Ads without it in the record, derived from the copy" }),
  unknown: Int.annotations({ description: "Ads where neither says" })
}

const RangeCount = Schema.Struct({ lower: Schema.Number, upper: Schema.NullOr(Schema.Number), ads: Int })
const RangeStats = Schema.Struct({
  reported: Int.annotations({ description: "Ads whose library shows the range" }),
  unreported: Int,
  lower_total: Schema.Number.annotations({ description: "Sum of the lower bounds: at least this much" }),
  upper_total: Schema.NullOr(Schema.Number).annotations({ description: "Sum of the upper bounds; null when a range is open-ended or none is reported" }),
  ranges: Schema.Array(RangeCount).annotations({ description: "Each reported range with its ads, smallest first" })
})

const Week = Schema.String.annotations({ description: "The week's Monday (UTC), YYYY-MM-DD" })

const Bucket = Schema.Struct({ ads: Int, items: Schema.Array(TabAd) })

/** The tabs: `name` -> what it shows and the schema of its `data`. */
export const brandTabs = {
  "overview-cards": {
    description: "Key figures: ads in the period, active, new in the last 1, 7 and 30 days of the period, median days running, top format, libraries and countries",
    data: Schema.Struct({
      total: Int,
      active: Int,
      new_1d: Int.annotations({ description: "First seen on date_to" }),
      new_7d: Int.annotations({ description: "First seen within the 7 days ending date_to" }),
      new_30d: Int.annotations({ description: "First seen within the 30 days ending date_to" }),
      median_days_running: Schema.NullOr(Schema.Number),
      top_format: Schema.NullOr(Schema.String),
      first_seen: Schema.NullOr(Instant),
      last_seen: Schema.NullOr(Instant),
      libraries: Schema.Array(Schema.Struct({ library: Schema.String, ads: Int })),
      countries: ranked({ country: Schema.String, ads: Int }, "Targeted countries", 10)
    })
  },
  "ad-copies": {
    description: "The most used body texts and headlines, copy lengths and emoji use",
    data: Schema.Struct({
      bodies: ranked({ text: Schema.String, ...counted }, "Body texts"),
      headlines: ranked({ text: Schema.String, ...counted }, "Headlines"),
      body_length: Lengths,
      headline_length: Lengths,
      emoji: Schema.Struct({
        ads: Int.annotations({ description: "Ads whose copy holds an emoji" }),
        top: ranked({ emoji: Schema.String, ads: Int }, "Emoji, by the ads using them", 10)
      })
    })
  },
  hooks: {
    description: "Opening lines, counted and ranked: the tagged hook, else the copy's first sentence",
    data: Schema.Struct({
      hooks: ranked({ hook: Schema.String, ...counted, ...spanned }, "Hooks"),
      tagged: Int,
      derived: Int
    })
  },
  angles: {
    description: "Creative angles: the tagged angle, else the first angle rule the copy matches",
    data: Schema.Struct({ angles: ranked({ angle: Schema.String, ...counted }, "Angles"), ...Tagged })
  },
  personas: {
    description: "Audiences addressed: the tagged persona, else the first audience rule the copy matches",
    data: Schema.Struct({ personas: ranked({ persona: Schema.String, ...counted }, "Personas"), ...Tagged })
  },
  offers: {
    description: "Offers found in the copy: discounts, free shipping, buy-X-get-Y, bundles, guarantees, free trials, urgency and codes",
    data: Schema.Struct({
      ads_with_offer: Int,
      offers: ranked({ offer: Schema.String, ...counted }, "Offer kinds"),
      discounts: ranked({ percent: Int, ads: Int }, "Percentages named in the copy"),
      codes: ranked({ code: Schema.String, ads: Int }, "Discount codes, upper case")
    })
  },
  ctas: {
    description: "Calls to action by type and text",
    data: Schema.Struct({
      ctas: ranked({ type: Schema.NullOr(Schema.String), text: Schema.NullOr(Schema.String), ...counted }, "Calls to action"),
      without_cta: Int
    })
  },
  "landing-pages": {
    description: "Ads grouped by landing URL and by domain, with first and last seen",
    data: Schema.Struct({
      urls: ranked({ url: Schema.String, domain: Schema.NullOr(Schema.String), ...counted, ...spanned }, "Landing URLs"),
      domains: ranked({ domain: Schema.String, urls: Int, ...counted, ...spanned }, "Landing domains"),
      without_landing: Int
    })
  },
  products: {
    description: "Products advertised, by ad count: the product handle of the landing URL",
    data: Schema.Struct({
      products: ranked({ product: Schema.String, ...counted, ...spanned }, "Product handles"),
      unknown: Int.annotations({ description: "Ads whose landing URL names no product" })
    })
  },
  formats: {
    description: "Formats (video, image, carousel, text, dpa), and per week the ads of each format running",
    data: Schema.Struct({
      formats: ranked({ format: Schema.String, ...counted }, "Formats"),
      weeks: Schema.Array(Schema.Struct({ week: Week, image: Int, video: Int, carousel: Int, text: Int, dpa: Int })).annotations({
        description: "Every week of the period, oldest first: ads of each format running at some time in it"
      })
    })
  },
  platforms: {
    description: "Libraries and publisher placements (feed, stories, reels, ...) the ads run on",
    data: Schema.Struct({
      libraries: ranked({ library: Schema.String, ...counted }, "Libraries"),
      placements: ranked({ placement: Schema.String, ...counted }, "Publisher placements")
    })
  },
  countries: {
    description: "Targeted countries",
    data: Schema.Struct({ countries: ranked({ country: Schema.String, ...counted }, "Countries", 250), untargeted: Int })
  },
  languages: {
    description: "Languages of the ads",
    data: Schema.Struct({ languages: ranked({ language: Schema.String, ...counted }, "Languages", 50), unknown: Int })
  },
  "launch-cadence": {
    description: "Ads started per week over the period",
    data: Schema.Struct({
      weeks: Schema.Array(Schema.Struct({ week: Week, launched: Int })).annotations({
        description: "Every week of the period, oldest first: ads first seen in it (within the period)"
      }),
      launched: Int,
      average_per_week: Schema.Number,
      busiest_week: Schema.NullOr(Week)
    })
  },
  winners: {
    description: "The longest running ads",
    data: Schema.Struct({
      ads: Schema.Array(TabAd).annotations({ description: `Most days running first, at most ${adsShown}` })
    })
  },
  "new-this-week": {
    description: "Ads first seen within the 7 days ending date_to",
    data: Schema.Struct({
      since: Schema.String.annotations({ description: "The first of those 7 days" }),
      total: Int,
      ads: Schema.Array(TabAd).annotations({ description: `Newest first, at most ${adsShown}` })
    })
  },
  movers: {
    description: "Scaling (active, first seen more than 14 days before date_to), testing (active, newer) and stopped (inactive) ads",
    data: Schema.Struct({
      scaling: Bucket.annotations({ description: `Longest running first, at most ${adsShown}` }),
      testing: Bucket.annotations({ description: `Newest first, at most ${adsShown}` }),
      stopped: Bucket.annotations({ description: `Most recently stopped first, at most ${adsShown}` })
    })
  },
  variants: {
    description: "Iterations of one creative: the variant groups, by ads",
    data: Schema.Struct({
      groups: ranked({ group: Schema.String, headlines: Int.annotations({ description: "Distinct headlines tried" }), ...counted, ...spanned }, "Variant groups"),
      grouped_ads: Int,
      single_ads: Int
    })
  },
  "video-lengths": {
    description: "Video ads by the length of their first video",
    data: Schema.Struct({
      video_ads: Int,
      with_length: Int,
      median_seconds: Schema.NullOr(Schema.Number),
      buckets: Schema.Array(Schema.Struct({ bucket: Schema.String, min_seconds: Int, max_seconds: Schema.NullOr(Int), ...counted })).annotations({
        description: "Every bucket, shortest first: [min_seconds, max_seconds)"
      })
    })
  },
  reach: {
    description: "Impression, reach and spend ranges where the library shows them",
    data: Schema.Struct({
      impressions: RangeStats,
      reach: RangeStats,
      spend: Schema.Struct({
        reported: Int,
        unreported: Int,
        currencies: Schema.Array(Schema.Struct({ currency: Schema.String, ...RangeStats.fields })).annotations({ description: "Per currency, A to Z" })
      })
    })
  },
  engagement: {
    description: "Likes, comments, shares and views where the library shows them, and the most engaging ads",
    data: Schema.Struct({
      ads_with_engagement: Int,
      likes: Schema.NullOr(Schema.Number).annotations({ description: "Sum over the ads showing it; null when none does" }),
      comments: Schema.NullOr(Schema.Number),
      shares: Schema.NullOr(Schema.Number),
      views: Schema.NullOr(Schema.Number),
      top: Schema.Array(Schema.extend(TabAd, Schema.Struct({
        likes: Schema.NullOr(Schema.Number),
        comments: Schema.NullOr(Schema.Number),
        shares: Schema.NullOr(Schema.Number),
        views: Schema.NullOr(Schema.Number),
        engagement: Schema.Number.annotations({ description: "likes + comments + shares" })
      }))).annotations({ description: `Most engagement first, at most ${adsShown}` })
    })
  },
  seasonality: {
    description: "Launches by month and by weekday",
    data: Schema.Struct({
      months: Schema.Array(Schema.Struct({ month: Schema.String, launched: Int })).annotations({
        description: "Every month of the period (YYYY-MM), oldest first: ads first seen in it, within the period"
      }),
      weekdays: Schema.Array(Schema.Struct({ weekday: Schema.String, launched: Int })).annotations({ description: "Monday to Sunday (UTC)" })
    })
  },
  niches: {
    description: "Niches of the ads",
    data: Schema.Struct({ niches: ranked({ niche: Schema.String, ...counted }, "Niches"), unknown: Int })
  },
  transcripts: {
    description: "Stored transcripts of the brand's video ads",
    data: Schema.Struct({
      video_ads: Int,
      transcribed: Int.annotations({ description: "Of them, with a stored transcript" }),
      transcripts: Schema.Array(Schema.Struct({
        ad_id: Schema.String,
        library: Schema.String,
        first_seen: Instant,
        duration_seconds: Schema.NullOr(Schema.Number),
        words: Int,
        transcript: Schema.String
      })).annotations({ description: `Newest ads first, at most ${adsShown}` })
    })
  }
} as const satisfies Record<string, { readonly description: string; readonly data: Schema.Schema.AnyNoContext }>

export type BrandTabs = typeof brandTabs
export type TabName = keyof BrandTabs
export const tabNames = keysOf(brandTabs)
/** What a tab answers in `data`. */
export type TabData<T extends TabName> = BrandTabs[T]["data"]["Type"]
