import { Schema } from "effect"
import {
  Amount,
  Choice,
  CountryCode,
  Count,
  Currency,
  Day,
  Domain,
  ExternalId,
  Instant,
  LanguageCode,
  List,
  listOf,
  maybe,
  Provenance,
  Range,
  Text,
  Url
} from "../../kernel/Fields.js"

export const AdLibrary = Choice("social", "pinboard", "clipapp", "search").annotations({
  description: "Which ad library: social network, image board, short video, search engine"
})
export type AdLibrary = typeof AdLibrary.Type

/** Whether an ad runs. */
export const AdStatus = Choice("active", "inactive")
export type AdStatus = typeof AdStatus.Type

/** What an ad's creative is. */
export const AdFormat = Choice("image", "video", "carousel", "text", "dpa")
export type AdFormat = typeof AdFormat.Type

/** The page or account behind ads; `platform` is the library its ads appear in. */
export const Advertiser = Schema.Struct({
  platform: AdLibrary,
  external_id: ExternalId,
  name: Text(300),
  domain: maybe(Domain),
  verified: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  followers: maybe(Count),
  country: maybe(CountryCode),
  niche: maybe(Text(100)),
  ...Provenance
}).annotations({ identifier: "Advertiser", description: "An advertiser (page) of an ad library" })
export type Advertiser = typeof Advertiser.Type

/** One image or video of an ad's creative. */
export const MediaAsset = Schema.Struct({
  type: Choice("image", "video"),
  url: Url,
  thumbnail_url: maybe(Url),
  duration_seconds: maybe(Amount),
  width: maybe(Count),
  height: maybe(Count)
}).annotations({ identifier: "AdMedia" })

export const SearchCreative = Schema.Struct({
  advertiser_verified: Schema.Boolean,
  display_url: Text(500),
  regions: List(
    Schema.Struct({ region: CountryCode, impressions: Schema.NullOr(Range) }),
    250
  )
}).annotations({ identifier: "SearchCreative", description: "Search-engine creatives only" })

/** One ad of any of the four libraries. */
export const Ad = Schema.Struct({
  library: AdLibrary,
  external_id: ExternalId,
  advertiser_external_id: ExternalId.annotations({
    description: "external_id of an advertiser whose platform is this ad's library"
  }),
  status: AdStatus,
  first_seen: Instant,
  last_seen: Instant,
  start_date: maybe(Day),
  end_date: maybe(Day),
  days_running: maybe(Count).annotations({ description: "Computed from the dates when absent" }),
  format: AdFormat,
  media: listOf(MediaAsset, 20),
  body: maybe(Text(10_000)),
  headline: maybe(Text(500)),
  description: maybe(Text(2_000)),
  cta: maybe(Schema.Struct({ text: Text(100), type: Text(50) })),
  landing: maybe(Schema.Struct({ url: Url, final_url: Schema.NullOr(Url), domain: Domain })),
  lander_external_id: maybe(ExternalId),
  store_external_id: maybe(ExternalId),
  publisher_platforms: listOf(Text(50), 20),
  countries: listOf(CountryCode, 250),
  languages: listOf(LanguageCode, 50),
  impressions: maybe(Range),
  spend: maybe(Range),
  reach: maybe(Range),
  engagement: maybe(
    Schema.Struct({ likes: maybe(Count), comments: maybe(Count), shares: maybe(Count), views: maybe(Count) })
  ).annotations({ description: "Counts where the library shows them; null where it does not" }),
  niche: maybe(Text(100)),
  ai_tags: maybe(Schema.Struct({ hook: maybe(Text(300)), angle: maybe(Text(300)), persona: maybe(Text(300)) })),
  variant_group: maybe(ExternalId).annotations({ description: "Ads sharing it are variants (duplicates) of one creative" }),
  search: maybe(SearchCreative),
  ...Provenance
}).pipe(
  Schema.filter((ad) => Date.parse(ad.last_seen) >= Date.parse(ad.first_seen) || { path: ["last_seen"], message: "must not be before first_seen" }),
  Schema.filter((ad) => ad.start_date == null || ad.end_date == null || ad.end_date >= ad.start_date || { path: ["end_date"], message: "must not be before start_date" }),
  Schema.filter((ad) => ad.search == null || ad.library === "search" || { path: ["search"], message: "is only for the search library" }),
  Schema.filter((ad) => ad.spend == null || ad.spend.currency !== undefined || { path: ["spend", "currency"], message: "is required for a spend range" })
).annotations({ identifier: "Ad", description: "An ad of the social, image-board, short-video or search-engine library" })
export type Ad = typeof Ad.Type

/** The kinds of page lander libraries tell apart (issue 20): `vsl` is a video sales letter. */
export const pageTypes = ["product", "listicle", "advertorial", "quiz", "vsl", "presell", "collection", "home"] as const
export const PageType = Choice(...pageTypes)

export const Lander = Schema.Struct({
  external_id: ExternalId,
  url: Url,
  final_url: maybe(Url),
  domain: Domain,
  title: maybe(Text(500)),
  headline: maybe(Text(500)).annotations({ description: "The page's main heading" }),
  text: maybe(Text(20_000)).annotations({ description: "The page's visible text (searched with the title and headline)" }),
  page_type: PageType,
  niche: maybe(Text(100)),
  countries: listOf(CountryCode, 250).annotations({ description: "Countries the page is served to or written for" }),
  languages: listOf(LanguageCode, 50).annotations({ description: "Languages of the page; the first is its main one" }),
  screenshot_url: maybe(Url),
  platform: maybe(Text(100)).annotations({ description: "Site technology, e.g. shopify, wordpress" }),
  offer_price: maybe(Amount).annotations({ description: "The offer's price where the page shows one, in `currency`" }),
  currency: maybe(Currency),
  linked_ads: Schema.optionalWith(Count, { default: () => 0 }),
  first_seen: maybe(Instant),
  last_seen: maybe(Instant),
  store_external_id: maybe(ExternalId),
  ...Provenance
}).annotations({ identifier: "Lander", description: "A landing page ads lead to" })
export type Lander = typeof Lander.Type

export const Store = Schema.Struct({
  external_id: ExternalId,
  domain: Domain,
  name: maybe(Text(300)),
  platform: maybe(Text(100)),
  country: maybe(CountryCode),
  currency: maybe(Currency),
  product_count: maybe(Count),
  created_on: maybe(Day),
  monthly_visits: listOf(
    Schema.Struct({
      month: Schema.String.pipe(
        Schema.pattern(/^(19\d{2}|2\d{3})-(0[1-9]|1[0-2])$/),
        Schema.annotations({ message: () => ({ message: "must be a month YYYY-MM from 1900-01 to 2999-12", override: true }) })
      ),
      visits: Count
    }),
    60
  ),
  active_ads: Schema.optionalWith(Count, { default: () => 0 }),
  best_sellers: listOf(
    Schema.Struct({
      title: Text(500),
      price: maybe(Amount),
      currency: maybe(Currency),
      image_url: maybe(Url),
      url: maybe(Url)
    }),
    50
  ),
  // Hosted stores (issue 20): what the store explorer shows and filters by.
  theme: maybe(Text(100)).annotations({ description: "The storefront theme, e.g. dawn" }),
  apps: listOf(Text(100), 100).annotations({ description: "Apps detected on the storefront, e.g. klaviyo" }),
  language: maybe(LanguageCode),
  social_links: listOf(
    Schema.Struct({
      network: Choice("instagram", "facebook", "tiktok", "pinterest", "youtube", "x", "linkedin", "snapchat"),
      url: Url
    }),
    20
  ),
  ...Provenance
}).annotations({ identifier: "Store", description: "A hosted online store (Shopify-like)" })
export type Store = typeof Store.Type
