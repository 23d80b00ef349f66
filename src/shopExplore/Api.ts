import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { metered } from "../gateway/Api.js"
import { paramFields, strictStruct } from "../QueryParams.js"
import { DailyQuotaBody, shopPrefix } from "../shop/Api.js"
import { entities, exploreParams, type ExploreParams, shopEntities, type ShopEntity } from "./Entities.js"

/**
 * Explore and count of the short-video shop's categories, shops, creators, videos and products
 * (spec: Short-video shop API; INTERPRETATIONS G7, P2, P3): twenty endpoints derived from the
 * entity declarations. Contract only.
 */

const Ref = Schema.Struct({ id: Schema.String, name: Schema.String })

/** Period metrics over `date_from`..`date_to`, and their growth against the period before. */
export const Period = Schema.Struct({
  date_from: Schema.String,
  date_to: Schema.String,
  metrics: Schema.Record({ key: Schema.String, value: Schema.NullOr(Schema.Number) }).annotations({
    description: "Each metric over the period (null: no data), and `<metric>_growth`: (this - previous) / previous"
  })
})

const base = { id: Schema.String, region: Schema.String, period: Period }

export const entityViews = {
  categories: Schema.Struct({ ...base, name: Schema.String, level: Schema.Number, parent_id: Schema.NullOr(Schema.String) }),
  shops: Schema.Struct({
    ...base,
    name: Schema.String,
    shop_type: Schema.String,
    rating: Schema.NullOr(Schema.Number),
    followers: Schema.NullOr(Schema.Number),
    main_category: Schema.NullOr(Ref)
  }),
  creators: Schema.Struct({
    ...base,
    handle: Schema.String,
    nickname: Schema.NullOr(Schema.String),
    followers: Schema.NullOr(Schema.Number),
    engagement_rate: Schema.NullOr(Schema.Number)
  }),
  videos: Schema.Struct({
    ...base,
    description: Schema.NullOr(Schema.String),
    creator: Schema.Struct({ id: Schema.String, handle: Schema.String }),
    duration_seconds: Schema.NullOr(Schema.Number),
    published_at: Schema.String,
    is_ad: Schema.Boolean
  }),
  products: Schema.Struct({
    ...base,
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
  })
} satisfies Record<ShopEntity, Schema.Schema.Any>

export type EntityView = Schema.Schema.Type<(typeof entityViews)[ShopEntity]>

export const explorePage = (entity: ShopEntity) =>
  Schema.Struct({
    success: Schema.Literal(true),
    data: Schema.Array(entityViews[entity]),
    total: Schema.Int,
    page: Schema.Int,
    page_size: Schema.Int
  }).annotations({ identifier: `${entities[entity].one}Explore` })

export const CountAnswer = Schema.Struct({ success: Schema.Literal(true), total: Schema.Int })

/** The endpoint names of an entity: `productsExplore`, `productsExplorePost`, `productsCount`, `productsCountPost`. */
export const endpointNames = (entity: ShopEntity) =>
  ({
    explore: `${entity}Explore`,
    explorePost: `${entity}ExplorePost`,
    count: `${entity}Count`,
    countPost: `${entity}CountPost`
  }) as const

const asQuery = (entity: ShopEntity, route: "explore" | "count") =>
  strictStruct(paramFields(exploreParams(entity, route), "query"), "query") as unknown as Schema.Schema<ExploreParams, any>
const asBody = (entity: ShopEntity, route: "explore" | "count") =>
  strictStruct(paramFields(exploreParams(entity, route), "body"), "body") as unknown as Schema.Schema<ExploreParams, any>

const summaries = {
  explore: (entity: ShopEntity) => `List or search ${entity}, with period metrics (1 daily search)`,
  count: (entity: ShopEntity) => `Count matching ${entity} (1 daily search)`
}
const bodyNote = "The same parameters as the GET form; both may be sent, merged, and the body wins on a conflict (P3)."

const endpointsOf = (entity: ShopEntity) => {
  const names = endpointNames(entity)
  const path = (route: "explore" | "count") => `${shopPrefix}/${entity}/${route}` as const
  const answer = { explore: explorePage(entity), count: CountAnswer }
  return (["explore", "count"] as const).flatMap((route) => [
    HttpApiEndpoint.get(names[route], path(route))
      .setUrlParams(asQuery(entity, route))
      .addSuccess(answer[route])
      .addError(DailyQuotaBody)
      .annotate(OpenApi.Summary, summaries[route](entity)),
    HttpApiEndpoint.post(route === "explore" ? names.explorePost : names.countPost, path(route))
      .setUrlParams(asQuery(entity, route))
      .setPayload(asBody(entity, route))
      .addSuccess(answer[route])
      .addError(DailyQuotaBody)
      .annotate(OpenApi.Summary, summaries[route](entity))
      .annotate(OpenApi.Description, bodyNote)
  ])
}

type AnyEndpoint = HttpApiEndpoint.HttpApiEndpoint.Any

/** Every explore and count endpoint (the names are listed by `endpointNames`). */
type ExploreGroup = HttpApiGroup.HttpApiGroup<"shopExplore", AnyEndpoint>

// Built in a loop, so typed as a group of some endpoints; handlers are attached by name.
export class ShopExploreApi extends metered(
  shopEntities.flatMap(endpointsOf).reduce(
    (group: ExploreGroup, endpoint) => group.add(endpoint as AnyEndpoint) as ExploreGroup,
    HttpApiGroup.make("shopExplore") as unknown as ExploreGroup
  )
) {}
