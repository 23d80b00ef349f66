import { Schema } from "effect"
import { Amount, Count, Currency, Day, ExternalId, List, listOf, maybe, Provenance, Text, Url } from "../../kernel/Fields.js"
import { MediaPath } from "../media/MediaPath.js"

/**
 * The records of hosted stores beyond the store itself (src/ads/records/Ads.ts `Store`): their
 * products and the daily observations sales are estimated from (issue 20; docs/DATA.md).
 */

/** An image: an http(s) URL, or a path of this service's own generated media. */
export const ImageRef = Schema.Union(Url, MediaPath).annotations({
  message: () => ({ message: "must be an http(s) URL or a path of this service's media such as /media/stores/abc.png", override: true })
})

export const StoreProduct = Schema.Struct({
  store_external_id: ExternalId.annotations({ description: "external_id of the store selling it" }),
  external_id: ExternalId.annotations({ description: "The product's id in its store; unique within the store" }),
  title: Text(500),
  price: maybe(Amount),
  compare_at_price: maybe(Amount).annotations({ description: "The crossed-out price, when discounted" }),
  currency: maybe(Currency),
  images: listOf(ImageRef, 20).annotations({ description: "The first is the main photo (the one visual search compares)" }),
  url: maybe(Url),
  product_type: maybe(Text(200)),
  published_on: maybe(Day).annotations({ description: "When the store published it (what 'new products' count)" }),
  ...Provenance
}).annotations({ identifier: "StoreProduct", description: "A product of a hosted store" })
export type StoreProduct = typeof StoreProduct.Type

export const StoreObservation = Schema.Struct({
  day: Day,
  price: maybe(Amount),
  inventory: maybe(Count).annotations({
    description: "Units in stock that day; null or absent when the store hides its stock (sales are then unknown, never 0)"
  })
})
export type StoreObservation = typeof StoreObservation.Type

export const maxObservationDays = 400

export const StoreMetrics = Schema.Struct({
  store_external_id: ExternalId,
  external_id: ExternalId.annotations({ description: "external_id of the product (of this store)" }),
  series: List(StoreObservation, maxObservationDays).annotations({ description: `At most ${maxObservationDays} days; a day sent again replaces it` })
}).pipe(
  Schema.filter((m) => new Set(m.series.map((p) => p.day)).size === m.series.length || { path: ["series"], message: "must not list a day twice" })
).annotations({ identifier: "StoreMetrics", description: "Daily observations of a hosted store's product: price and inventory" })
export type StoreMetrics = typeof StoreMetrics.Type

