import { Schema } from "effect"

/**
 * How hosted stores look in every answer of the tracker, the explorer and the visual search
 * (issue 20; INTERPRETATIONS L3, L4). Contract only: schemas, no runtime.
 */

/** A sales figure, or `"unknown"` where the store hides its stock: never a 0 that is not one. */
export const Estimate = Schema.Union(Schema.Number, Schema.Literal("unknown")).annotations({
  description: "An estimate from observed inventory changes, or \"unknown\" where the store hides its stock"
})
export type Estimate = typeof Estimate.Type

export const SocialLink = Schema.Struct({ network: Schema.String, url: Schema.String })

export const BestSeller = Schema.Struct({
  id: Schema.NullOr(Schema.String).annotations({ description: "The product's id in its store; null when only the store record names it" }),
  title: Schema.String,
  price: Schema.NullOr(Schema.Number),
  currency: Schema.NullOr(Schema.String),
  image_url: Schema.NullOr(Schema.String),
  url: Schema.NullOr(Schema.String),
  estimated_sales_30d: Estimate.annotations({ description: "Units sold in the last 30 days (estimated)" })
})
export type BestSeller = typeof BestSeller.Type

export const StoreView = Schema.Struct({
  id: Schema.String.annotations({ description: "The store's id (`store_id` of ads and landers)" }),
  domain: Schema.String,
  name: Schema.NullOr(Schema.String),
  platform: Schema.NullOr(Schema.String).annotations({ description: "The store software: shopify, woocommerce, ..." }),
  theme: Schema.NullOr(Schema.String),
  apps: Schema.Array(Schema.String).annotations({ description: "Apps detected on the storefront" }),
  country: Schema.NullOr(Schema.String),
  currency: Schema.NullOr(Schema.String),
  language: Schema.NullOr(Schema.String),
  product_count: Schema.NullOr(Schema.Int),
  launch_date: Schema.NullOr(Schema.String).annotations({ description: "When the store opened (YYYY-MM-DD)" }),
  monthly_visits: Schema.NullOr(Schema.Int).annotations({ description: "Visits in the latest month measured (estimate)" }),
  estimated_daily_sales: Estimate.annotations({ description: "Units a day, the mean of the last 30 days with known stock" }),
  estimated_daily_revenue: Estimate.annotations({ description: "Revenue a day in the store's currency, likewise" }),
  estimated_revenue_30d: Estimate.annotations({ description: "30 times the daily revenue" }),
  growth_30d: Schema.NullOr(Schema.Number).annotations({
    description: "Daily revenue of the last 30 days against the 30 before, as a fraction (0.25: +25%); null when either is unknown or 0"
  }),
  ads_running: Schema.Int.annotations({ description: "Active ads of the ad libraries that link to the store" }),
  best_sellers: Schema.Array(BestSeller).annotations({ description: "Its products that sold most in the last 30 days, at most 3" }),
  social_links: Schema.Array(SocialLink)
})
export type StoreView = typeof StoreView.Type

export const StoreProductView = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  price: Schema.NullOr(Schema.Number),
  compare_at_price: Schema.NullOr(Schema.Number),
  currency: Schema.NullOr(Schema.String),
  images: Schema.Array(Schema.String),
  url: Schema.NullOr(Schema.String),
  product_type: Schema.NullOr(Schema.String),
  published_on: Schema.NullOr(Schema.String),
  estimated_sales_30d: Estimate.annotations({ description: "Units sold in the last 30 days (estimated)" }),
  estimated_revenue_30d: Estimate,
  inventory: Schema.NullOr(Schema.Int).annotations({ description: "Stock at the last observation; null when hidden" })
})
export type StoreProductView = typeof StoreProductView.Type

export const DailyPoint = Schema.Struct({
  day: Schema.String,
  units: Estimate,
  revenue: Estimate,
  observed_products: Schema.Int.annotations({ description: "Products observed that day" }),
  new_products: Schema.Int.annotations({ description: "Products published that day" })
})
export type DailyPoint = typeof DailyPoint.Type
