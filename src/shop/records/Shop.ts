import { Schema } from "effect"
import { Amount, Choice, CountryCode, Count, Currency, Day, ExternalId, Instant, List, listOf, maybe, Provenance, Text, Url } from "../../kernel/Fields.js"

/**
 * The short-video shop world. Every record carries its `region` (the shop country), and
 * references other records of the same region by their external ids.
 */

const region = CountryCode.annotations({ description: "Shop region (ISO 3166-1 alpha-2)" })

const Rating = Schema.Number.pipe(
  Schema.between(0, 5),
  Schema.annotations({ message: () => ({ message: "must be a number from 0 to 5", override: true }) })
)

const Fraction = Schema.Number.pipe(
  Schema.between(0, 1),
  Schema.annotations({ message: () => ({ message: "must be a number from 0 to 1", override: true }) })
)

export const ShopCategory = Schema.Struct({
  region,
  external_id: ExternalId,
  name: Text(200),
  level: Schema.Literal(1, 2, 3).annotations({ message: () => ({ message: "must be 1, 2 or 3", override: true }) }),
  parent_external_id: maybe(ExternalId).annotations({ description: "Required below level 1; the parent is one level up" }),
  ...Provenance
}).pipe(
  Schema.filter((c) =>
    (c.level === 1) === (c.parent_external_id == null) ||
    { path: ["parent_external_id"], message: c.level === 1 ? "must be null for a level 1 category" : "is required below level 1" }
  )
).annotations({ identifier: "ShopCategory", description: "A product category, levels 1 to 3" })
export type ShopCategory = typeof ShopCategory.Type

export const ShopShop = Schema.Struct({
  region,
  external_id: ExternalId,
  name: Text(300),
  shop_type: Choice("brand", "retailer", "cross-border"),
  rating: maybe(Rating),
  followers: maybe(Count),
  main_category_external_id: maybe(ExternalId),
  ...Provenance
}).annotations({ identifier: "ShopShop", description: "A shop selling on the short-video platform" })
export type ShopShop = typeof ShopShop.Type

export const ShopCreator = Schema.Struct({
  region,
  external_id: ExternalId,
  handle: Text(100),
  nickname: maybe(Text(200)),
  followers: maybe(Count),
  engagement_rate: maybe(Fraction).annotations({ description: "Interactions per view, 0 to 1" }),
  category_external_ids: listOf(ExternalId, 50),
  ...Provenance
}).annotations({ identifier: "ShopCreator", description: "A creator who posts shoppable videos" })
export type ShopCreator = typeof ShopCreator.Type

export const ShopProduct = Schema.Struct({
  region,
  external_id: ExternalId,
  title: Text(500),
  shop_external_id: ExternalId,
  category_external_id: ExternalId.annotations({ description: "A leaf (level 3) category, or the deepest one the source has" }),
  price_min: Amount,
  price_max: Amount,
  currency: Currency,
  commission_rate: maybe(Fraction),
  rating: maybe(Rating),
  reviews: maybe(Count),
  launched_on: maybe(Day),
  images: listOf(Url, 20),
  ...Provenance
}).pipe(
  Schema.filter((p) => p.price_max >= p.price_min || { path: ["price_max"], message: "must not be below price_min" })
).annotations({ identifier: "ShopProduct", description: "A product sold by a shop" })
export type ShopProduct = typeof ShopProduct.Type

export const ShopVideo = Schema.Struct({
  region,
  external_id: ExternalId,
  creator_external_id: ExternalId,
  description: maybe(Text(5_000)),
  duration_seconds: maybe(Count),
  published_at: Instant,
  is_ad: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  playback_url: maybe(Url),
  cdn_url: maybe(Url),
  product_external_ids: listOf(ExternalId, 50).annotations({ description: "Products shown or linked in the video" }),
  ...Provenance
}).annotations({ identifier: "ShopVideo", description: "A short video, with the products it features" })
export type ShopVideo = typeof ShopVideo.Type

/** Which metrics each subject's daily series may carry. */
export const metricsOf = {
  category: ["units", "gmv", "products"],
  shop: ["units", "gmv", "followers"],
  creator: ["followers", "views", "likes", "gmv"],
  product: ["units", "gmv", "views"],
  video: ["views", "likes", "comments", "shares"]
} as const
export type MetricSubject = keyof typeof metricsOf

const DailyPoint = Schema.Struct({
  day: Day,
  units: maybe(Count),
  gmv: maybe(Amount),
  views: maybe(Count),
  likes: maybe(Count),
  comments: maybe(Count),
  shares: maybe(Count),
  followers: maybe(Count),
  products: maybe(Count)
})
export type DailyPoint = typeof DailyPoint.Type

/** A daily metric series of one subject; a day sent again replaces that day. */
export const ShopMetrics = Schema.Struct({
  region,
  subject: Choice("category", "shop", "creator", "product", "video"),
  external_id: ExternalId,
  currency: maybe(Currency).annotations({ description: "Of gmv" }),
  series: List(DailyPoint, 400).annotations({ description: "At most 400 days per record" })
}).pipe(
  Schema.filter((m) => {
    const allowed: ReadonlyArray<string> = metricsOf[m.subject]
    for (const [i, point] of m.series.entries()) {
      for (const [key, value] of Object.entries(point)) {
        if (key !== "day" && value != null && !allowed.includes(key)) {
          return { path: ["series", i, key], message: `is not a ${m.subject} metric (${allowed.join(", ")})` }
        }
      }
    }
    return true
  })
).annotations({ identifier: "ShopMetrics", description: "Daily metrics of a category, shop, creator, product or video" })
export type ShopMetrics = typeof ShopMetrics.Type

