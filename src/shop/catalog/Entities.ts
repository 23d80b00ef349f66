import { Schema } from "effect"
import { keysOf } from "../../kernel/Guards.js"
import { CountryCode, ExternalId } from "../../kernel/Fields.js"
import { defaultPageSize, maxPageSize, maxPageWindow } from "../../kernel/Paging.js"
import { Choice } from "../../kernel/Params.js"
import { type Param, param } from "../../kernel/QueryParams.js"
import type { AnyParam } from "../../kernel/RouteParams.js"

/**
 * The short-video shop's explorable entities, each declared once (issue 5, "One engine, not
 * sixty handlers"): its filters (a parameter and the column it constrains), its period metrics
 * (computed over `date_from`..`date_to` from the daily series) and its other sorts. The
 * explore and count routes, their OpenAPI parameters and their SQL all derive from this, and
 * so do their types: the declaration is a `const` table, so each entity's parameters are known
 * by name. Column names here are plain data; the repository turns them into parameterised SQL.
 */

export const shopEntities = ["categories", "shops", "creators", "videos", "products"] as const
export type ShopEntity = (typeof shopEntities)[number]

/** A shop record's id at its source (what imports upsert by), branded once decoded. */
export const ShopRecordId = ExternalId.pipe(Schema.brand("ShopRecordId"))
export type ShopRecordId = typeof ShopRecordId.Type

/** How two entities relate through the products videos show (`shop_video_products`). */
export type Link =
  | "videoProduct"
  | "videoShop"
  | "videoSimilar"
  | "creatorProduct"
  | "creatorShop"
  | "productCreator"
  | "productVideo"
  | "shopCreator"

/** How a filter constrains its entity. */
export type Constraint =
  /** `min_<name>`/`max_<name>` on a column */
  | { readonly kind: "range"; readonly column: string; readonly integer: boolean; readonly max: number }
  /** any of the listed values */
  | { readonly kind: "choice"; readonly column: string }
  /** another record by its id, within the same region */
  | { readonly kind: "ref"; readonly column: string; readonly table: string }
  /** a category and everything below it; `many`: the column is an array of category ids */
  | { readonly kind: "category"; readonly column: string; readonly many: boolean }
  /** `<name>_from`/`<name>_to`: UTC days, both included */
  | { readonly kind: "days"; readonly column: string }
  | { readonly kind: "bool"; readonly column: string }
  /** a few words in any of the columns (case-insensitive) */
  | { readonly kind: "keyword"; readonly columns: ReadonlyArray<string> }
  /**
   * related through what videos show: a video showing a product (or any of a shop's), a
   * creator whose videos show it, a product or shop shown in a creator's videos
   */
  | { readonly kind: "linked"; readonly through: Link }

/** A filter of two parameters on a column: a range (`min_`/`max_`) or days (`_from`/`_to`). */
export interface BoundsFilter<Kind extends "range" | "days"> {
  readonly constraint: Extract<Constraint, { readonly kind: Kind }>
  readonly description: string
}

/** A filter of one parameter (choice, ref, category, bool, keyword, linked). */
export interface ValueFilter<P extends AnyParam = AnyParam> {
  readonly constraint: Exclude<Constraint, { readonly kind: "range" | "days" }>
  readonly description: string
  readonly param: P
}

export type FilterSpec = BoundsFilter<"range"> | BoundsFilter<"days"> | ValueFilter

/** A metric of the daily series, over the period: a sum, or a level's change ("gained"). */
export interface MetricSpec {
  readonly column: string
  readonly kind: "sum" | "gained"
  readonly integer: boolean
}

export interface EntitySpec {
  /** Singular, for messages: "Product not found". */
  readonly one: string
  readonly table: string
  readonly daily: { readonly table: string; readonly key: string }
  readonly filters: Readonly<Record<string, FilterSpec>>
  readonly metrics: Readonly<Record<string, MetricSpec>>
  /** Other sorts: a column each. */
  readonly sorts: Readonly<Record<string, string>>
  /** The metric explore sorts by when asked for none. */
  readonly defaultSort: string
}

const Big = 1_000_000_000_000
const range = (column: string, description: string, max = Big, integer = true): BoundsFilter<"range"> => ({
  constraint: { kind: "range", column, integer, max },
  description
})
const days = (column: string, description: string): BoundsFilter<"days"> => ({ constraint: { kind: "days", column }, description })
const keyword = (description: string, ...columns: ReadonlyArray<string>) => ({
  constraint: { kind: "keyword", columns },
  description,
  param: param.text(200, description)
}) satisfies ValueFilter
const recordId = (description: string) => param.same(ShopRecordId.annotations({ description }))
const ref = (column: string, table: string, description: string) => ({
  constraint: { kind: "ref", column, table },
  description,
  param: recordId(description)
}) satisfies ValueFilter
const category = (column: string, many: boolean) => ({
  constraint: { kind: "category", column, many },
  description: "A category's id: it and every category below it",
  param: recordId("A category's id: it and every category below it")
}) satisfies ValueFilter
const linked = (through: Link, description: string) => ({
  constraint: { kind: "linked", through },
  description,
  param: recordId(description)
}) satisfies ValueFilter
const choice = <const L extends ReadonlyArray<string>>(column: string, description: string, ...values: L) => ({
  constraint: { kind: "choice", column },
  description,
  param: param.list(Choice(...values), description)
}) satisfies ValueFilter
const sum = (column: string, integer = true): MetricSpec => ({ column, kind: "sum", integer })

export const entities = {
  categories: {
    one: "Category",
    table: "shop_categories",
    daily: { table: "shop_category_daily", key: "category_id" },
    filters: {
      keyword: keyword("Words in the category's name", "e.name"),
      level: choice("e.level", "Any of these levels (1 top, 3 leaf)", "1", "2", "3"),
      parent_id: ref("e.parent_id", "shop_categories", "The parent category's id")
    },
    metrics: { gmv: sum("gmv", false), units: sum("units") },
    sorts: { name: "e.name", level: "e.level" },
    defaultSort: "gmv"
  },
  shops: {
    one: "Shop",
    table: "shop_shops",
    daily: { table: "shop_shop_daily", key: "shop_id" },
    filters: {
      keyword: keyword("Words in the shop's name", "e.name"),
      category_id: category("e.main_category_id", false),
      shop_type: choice("e.shop_type", "Any of these shop types", "brand", "retailer", "cross-border"),
      creator_id: linked("shopCreator", "Shops whose products this creator's videos show (its id)"),
      rating: range("e.rating", "Rating, 0 to 5", 5, false),
      followers: range("e.followers", "Followers now")
    },
    metrics: { gmv: sum("gmv", false), units: sum("units"), followers_gained: { column: "followers", kind: "gained", integer: true } },
    sorts: { rating: "e.rating", followers: "e.followers", name: "e.name" },
    defaultSort: "gmv"
  },
  creators: {
    one: "Creator",
    table: "shop_creators",
    daily: { table: "shop_creator_daily", key: "creator_id" },
    filters: {
      keyword: keyword("Words in the creator's handle or nickname", "e.handle", "e.nickname"),
      category_id: category("e.category_ids", true),
      shop_id: linked("creatorShop", "Creators whose videos show a product of this shop (its id)"),
      product_id: linked("creatorProduct", "Creators whose videos show this product (its id)"),
      followers: range("e.followers", "Followers now"),
      engagement_rate: range("e.engagement_rate", "Interactions per view, 0 to 1", 1, false)
    },
    metrics: {
      gmv: sum("gmv", false),
      views: sum("views"),
      likes: sum("likes"),
      followers_gained: { column: "followers", kind: "gained", integer: true }
    },
    sorts: { followers: "e.followers", engagement_rate: "e.engagement_rate" },
    defaultSort: "gmv"
  },
  videos: {
    one: "Video",
    table: "shop_videos",
    daily: { table: "shop_video_daily", key: "video_id" },
    filters: {
      keyword: keyword("Words in the video's description", "e.description"),
      creator_id: ref("e.creator_id", "shop_creators", "The creator's id"),
      product_id: linked("videoProduct", "Videos showing this product (its id)"),
      shop_id: linked("videoShop", "Videos showing a product of this shop (its id)"),
      similar_to: linked("videoSimilar", "Other videos showing a product this video (its id) shows"),
      is_ad: {
        constraint: { kind: "bool", column: "e.is_ad" },
        description: "Paid ads only (true) or organic only (false)",
        param: param.bool("Paid ads only (true) or organic only (false)")
      },
      duration: range("e.duration_seconds", "Length in seconds", 86_400),
      published: days("e.published_at", "Published")
    },
    metrics: { views: sum("views"), likes: sum("likes"), comments: sum("comments"), shares: sum("shares") },
    sorts: { published_at: "e.published_at", duration: "e.duration_seconds" },
    defaultSort: "views"
  },
  products: {
    one: "Product",
    table: "shop_products",
    daily: { table: "shop_product_daily", key: "product_id" },
    filters: {
      keyword: keyword("Words in the product's title", "e.title"),
      category_id: category("e.category_id", false),
      shop_id: ref("e.shop_id", "shop_shops", "The shop's id"),
      creator_id: linked("productCreator", "Products shown in this creator's videos (its id)"),
      video_id: linked("productVideo", "Products this video (its id) shows"),
      price: range("e.price_min", "Price (the lowest of the product's variants)", Big, false),
      commission_rate: range("e.commission_rate", "Affiliate commission, 0 to 1", 1, false),
      rating: range("e.rating", "Rating, 0 to 5", 5, false),
      reviews: range("e.reviews", "Number of reviews"),
      launched: days("e.launched_on", "Launched")
    },
    metrics: { gmv: sum("gmv", false), units: sum("units"), views: sum("views") },
    sorts: { price: "e.price_min", rating: "e.rating", reviews: "e.reviews", commission_rate: "e.commission_rate", launched_on: "e.launched_on" },
    defaultSort: "gmv"
  }
} as const satisfies Readonly<Record<ShopEntity, EntitySpec>>

/** An entity's declaration, by the entity's name alone (its filters, metrics and sorts known by name). */
export type Declared<E extends ShopEntity> = (typeof entities)[E]

/** The entity's declaration as the engine reads it: any of its names, by string. */
export const specOf = (entity: ShopEntity): EntitySpec => entities[entity]

export type MetricName<E extends ShopEntity> = keyof Declared<E>["metrics"] & string

/** Every sort name of an entity: its metrics, their growth against the previous period, its columns. */
export type SortName<E extends ShopEntity> = MetricName<E> | `${MetricName<E>}_growth` | (keyof Declared<E>["sorts"] & string)

export const sortNames = <E extends ShopEntity>(entity: E): ReadonlyArray<SortName<E>> => {
  const metrics = keysOf(entities[entity].metrics)
  return [...metrics, ...metrics.map((m) => `${m}_growth` as const), ...keysOf(entities[entity].sorts)]
}

/** The longest period metrics are computed over, and the default one (30 days up to yesterday). */
export const maxPeriodDays = 366
export const defaultPeriodDays = 30

type Filters<E extends ShopEntity> = Declared<E>["filters"]
type FilterNamed<E extends ShopEntity, Kind> = {
  [K in keyof Filters<E>]: Filters<E>[K] extends { readonly constraint: { readonly kind: Kind } } ? K & string : never
}[keyof Filters<E>]
type Numbers<Names extends string> = { readonly [N in Names]: Param<number> }

/** The parameters every explore and count of an entity takes, each with its decoded type. */
export type ExploreParamsOf<E extends ShopEntity, Route extends "explore" | "count"> =
  & {
    readonly country: Param<string>
    readonly date_from: Param<string>
    readonly date_to: Param<string>
  }
  & Numbers<`min_${FilterNamed<E, "range"> | MetricName<E>}` | `max_${FilterNamed<E, "range"> | MetricName<E>}`>
  & { readonly [N in `${FilterNamed<E, "days">}_from` | `${FilterNamed<E, "days">}_to`]: Param<string> }
  & {
    readonly [N in Exclude<keyof Filters<E>, FilterNamed<E, "range" | "days">>]: Filters<E>[N] extends { readonly param: infer P } ? P
      : never
  }
  & (Route extends "explore" ? {
      readonly sort: Param<SortName<E>>
      readonly order: Param<"desc" | "asc">
      readonly page: Param<number>
      readonly page_size: Param<number>
    }
    : unknown)

/** The parameters of an entity's explore and count, derived from its declaration. */
export const exploreParams = <E extends ShopEntity, Route extends "explore" | "count">(entity: E, route: Route): ExploreParamsOf<E, Route> => {
  const spec = specOf(entity)
  const params: Record<string, AnyParam> = {
    country: param.same(CountryCode.annotations({ description: "Shop region; default: the account's country (request-country), else US" })),
    date_from: param.day("First day of the period metrics (UTC); default: 30 days before date_to"),
    date_to: param.day("Last day of the period metrics (UTC); default: yesterday")
  }
  for (const [name, filter] of Object.entries(spec.filters)) {
    const c = filter.constraint
    if (c.kind === "range") {
      const make = c.integer ? param.int : param.number
      params[`min_${name}`] = make(0, c.max, `${filter.description}: at least`)
      params[`max_${name}`] = make(0, c.max, `${filter.description}: at most`)
    } else if (c.kind === "days") {
      params[`${name}_from`] = param.day(`${filter.description} on or after this day (UTC)`)
      params[`${name}_to`] = param.day(`${filter.description} on or before this day (UTC)`)
    } else if ("param" in filter) {
      params[name] = filter.param
    }
  }
  for (const [name, metric] of Object.entries(spec.metrics)) {
    const make = metric.integer ? param.int : param.number
    const min = metric.kind === "gained" ? -Big : 0
    params[`min_${name}`] = make(min, Big, `${name} over the period: at least`)
    params[`max_${name}`] = make(min, Big, `${name} over the period: at most`)
  }
  if (route === "explore") {
    params.sort = param.same(Choice(...sortNames(entity)).annotations({
      description: `Order of the results (default ${spec.defaultSort}); \`<metric>_growth\` compares the period with the one before it`
    }))
    params.order = param.same(Choice("desc", "asc").annotations({ description: "desc (default) or asc; nulls last either way" }))
    params.page = param.int(1, maxPageWindow, "Page, from 1")
    params.page_size = param.int(1, maxPageSize, `Results per page, 1 to ${maxPageSize} (default ${defaultPageSize})`)
  }
  // Built by walking the declaration, which `ExploreParamsOf` walks at the type level.
  return params as ExploreParamsOf<E, Route>
}

/** What an explore or count request carries, decoded and merged (query, then body: P3), as the engine reads it. */
export type ExploreParams = Readonly<Record<string, unknown>> & {
  readonly country?: string | undefined
  readonly date_from?: string | undefined
  readonly date_to?: string | undefined
  readonly sort?: string | undefined
  readonly order?: "asc" | "desc" | undefined
  readonly page?: number | undefined
  readonly page_size?: number | undefined
}
