import { Schema } from "effect"
import { entities, type ShopEntity } from "./Entities.js"

/**
 * What the catalog answers of a record: its view, the same in explore, the detail pages, their
 * lists, trending and search (spec: Short-video shop API). Schemas only: the contracts use them
 * for the answers, the read model decodes its rows with the record's part of them.
 */

const Ref = Schema.Struct({ id: Schema.String, name: Schema.String })

/** The period metrics, as the MCP tools' descriptions say them. */
export const shopPeriodText =
  "Period metrics cover date_from..date_to (UTC days; default the 30 days up to yesterday) with growth against the period before."

/** Each metric over the period, and `<metric>_growth` against the period before. */
export const PeriodMetrics = Schema.Record({ key: Schema.String, value: Schema.NullOr(Schema.Number) })
export type PeriodMetrics = typeof PeriodMetrics.Type

/** Period metrics over `date_from`..`date_to`, and their growth against the period before. */
export const PeriodView = Schema.Struct({
  date_from: Schema.String,
  date_to: Schema.String,
  metrics: PeriodMetrics.annotations({
    description: "Each metric over the period (null: no data), and `<metric>_growth`: (this - previous) / previous"
  })
})

/** Each entity's own fields, after `id`, `region` and `period`: what its rows hold. */
export const recordFields = {
  categories: { name: Schema.String, level: Schema.Number, parent_id: Schema.NullOr(Schema.String) },
  shops: {
    name: Schema.String,
    shop_type: Schema.String,
    rating: Schema.NullOr(Schema.Number),
    followers: Schema.NullOr(Schema.Number),
    main_category: Schema.NullOr(Ref)
  },
  creators: {
    handle: Schema.String,
    nickname: Schema.NullOr(Schema.String),
    followers: Schema.NullOr(Schema.Number),
    engagement_rate: Schema.NullOr(Schema.Number)
  },
  videos: {
    description: Schema.NullOr(Schema.String),
    creator: Schema.Struct({ id: Schema.String, handle: Schema.String }),
    duration_seconds: Schema.NullOr(Schema.Number),
    published_at: Schema.String,
    is_ad: Schema.Boolean
  },
  products: {
    title: Schema.String,
    shop: Ref,
    category: Ref,
    price_min: Schema.Number,
    price_max: Schema.Number,
    currency: Schema.String,
    commission_rate: Schema.NullOr(Schema.Number),
    rating: Schema.NullOr(Schema.Number),
    reviews: Schema.NullOr(Schema.Number),
    launched_on: Schema.NullOr(Schema.String),
    images: Schema.Array(Schema.String)
  }
} as const satisfies Record<ShopEntity, Schema.Struct.Fields>

type RecordFields = typeof recordFields

/** A record's own fields, decoded. */
export type RecordOf<E extends ShopEntity> = Schema.Struct.Type<RecordFields[E]>

/** A record's own fields, by entity: what the read model decodes its rows with. */
export const records: { readonly [E in ShopEntity]: Schema.Schema<RecordOf<E>, Schema.Struct.Encoded<RecordFields[E]>> } = {
  categories: Schema.Struct(recordFields.categories),
  shops: Schema.Struct(recordFields.shops),
  creators: Schema.Struct(recordFields.creators),
  videos: Schema.Struct(recordFields.videos),
  products: Schema.Struct(recordFields.products)
}

const head = { id: Schema.String, region: Schema.String, period: PeriodView }

export const entityViews = {
  categories: Schema.Struct({ ...head, ...recordFields.categories }),
  shops: Schema.Struct({ ...head, ...recordFields.shops }),
  creators: Schema.Struct({ ...head, ...recordFields.creators }),
  videos: Schema.Struct({ ...head, ...recordFields.videos }),
  products: Schema.Struct({ ...head, ...recordFields.products })
} as const satisfies Record<ShopEntity, Schema.Schema.AnyNoContext>

/** A P2 page of an entity's views (the explore answer, and every list that is an explore). */
export const explorePage = <E extends ShopEntity>(entity: E) =>
  Schema.Struct({
    success: Schema.Literal(true),
    data: Schema.Array(entityViews[entity]),
    total: Schema.Int,
    page: Schema.Int,
    page_size: Schema.Int
  }).annotations({ identifier: `${entities[entity].one}Explore` })

export const CountAnswer = Schema.Struct({ success: Schema.Literal(true), total: Schema.Int })
