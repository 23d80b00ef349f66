import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import type { Schema } from "effect"
import { metered } from "../../access/gateway/Api.js"
import { strictStruct } from "../../kernel/QueryParams.js"
import { DailyQuotaBody, shopPrefix } from "../account/Api.js"
import { exploreParams, type ShopEntity } from "../catalog/Entities.js"
import { fieldsOf, queryOf } from "../../kernel/RouteParams.js"
import { CountAnswer, explorePage, shopPeriodText } from "../catalog/Views.js"
import { contractPart } from "../../kernel/Contract.js"
import { legacy } from "../../access/session/Legacy.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, type McpDecision, noTool, pagePaging, tool } from "../../kernel/McpTool.js"

/**
 * Explore and count of the short-video shop's categories, shops, creators, videos and products
 * (spec: Short-video shop API; INTERPRETATIONS G7, P2, P3): twenty endpoints derived from the
 * entity declarations, each typed as its own (name, parameters, answer). Contract only.
 */

type ExploreRoute = "explore" | "count"

const bodyOf = <E extends ShopEntity, Route extends ExploreRoute>(entity: E, route: Route) =>
  strictStruct(fieldsOf(exploreParams(entity, route), "body"), "body")

const summaries = {
  explore: (entity: ShopEntity) => `List or search ${entity}, with period metrics (1 daily search)`,
  count: (entity: ShopEntity) => `Count matching ${entity} (1 daily search)`
}
const bodyNote = "The same parameters as the GET form; both may be sent, merged, and the body wins on a conflict (P3)."

/** What each entity's tools say its period metrics are. */
const metricsOf: Record<ShopEntity, string> = {
  categories: "GMV, units, products, shops",
  shops: "GMV, units sold, followers, products",
  creators: "views, GMV they drove, followers gained",
  videos: "views, likes, comments, shares, GMV of the products shown",
  products: "GMV, units, price, reviews"
}

/** The POST form of each route is its MCP tool (`explore_shop_products`, `count_shops`, ...); the GET form is none. */
const toolOf = (entity: ShopEntity, route: ExploreRoute): McpDecision => {
  const what = metricsOf[entity]
  const name = entity === "shops" ? `${route}_shops` : `${route}_shop_${entity}`
  return route === "explore"
    ? tool(name, {
      title: `Explore short-video shop ${entity}`,
      description:
        `Lists short-video shop ${entity} matching filters, with their period metrics (${what}). ${shopPeriodText} Sort by a metric, its growth or a column (sort, order). ${pagePaging} Use it to find and rank ${entity}; use the count tool when only the number matters.`,
      alsoUses: "a daily short-video search"
    })
    : tool(name, {
      title: `Count short-video shop ${entity}`,
      description: `Counts the short-video shop ${entity} that the same filters as the explore tool match (${what}). Answers { total }.`,
      alsoUses: "a daily short-video search"
    })
}
const getForm = noTool("The GET form of explore and count: the tool is the POST form, which takes the same filters")

/** One route of an entity: `GET <entity>/<route>` (`productsExplore`) and its POST form (`productsExplorePost`). */
const routeOf = <E extends ShopEntity, Route extends ExploreRoute, const Suffix extends string, Answer extends Schema.Schema.Any>(
  entity: E,
  route: Route,
  suffix: Suffix,
  answer: Answer
) => {
  const name = `${entity}${suffix}` as const
  const path = `${shopPrefix}/${entity}/${route}` as const
  return [
    HttpApiEndpoint.get(name, path)
      .setUrlParams(queryOf(exploreParams(entity, route)))
      .addSuccess(answer)
      .addError(DailyQuotaBody)
      .annotate(OpenApi.Summary, summaries[route](entity))
      .annotate(McpTool, getForm),
    HttpApiEndpoint.post(`${name}Post`, path)
      .setUrlParams(queryOf(exploreParams(entity, route)))
      .setPayload(bodyOf(entity, route))
      .addSuccess(answer)
      .addError(DailyQuotaBody)
      .annotate(OpenApi.Summary, summaries[route](entity))
      .annotate(OpenApi.Description, bodyNote)
      .annotate(McpTool, toolOf(entity, route))
  ] as const
}

/** An entity's four endpoints: `productsExplore`, `productsExplorePost`, `productsCount`, `productsCountPost`. */
const endpointsOf = <E extends ShopEntity>(entity: E) => [
  ...routeOf(entity, "explore", "Explore", explorePage(entity)),
  ...routeOf(entity, "count", "Count", CountAnswer)
] as const

/** Each entity's endpoints (`satisfies`: an entity added to the declaration must be added here). */
const endpoints = {
  categories: endpointsOf("categories"),
  shops: endpointsOf("shops"),
  creators: endpointsOf("creators"),
  videos: endpointsOf("videos"),
  products: endpointsOf("products")
} satisfies Record<ShopEntity, ReadonlyArray<HttpApiEndpoint.HttpApiEndpoint.Any>>

export class ShopExploreApi extends metered(
  [...endpoints.categories, ...endpoints.shops, ...endpoints.creators, ...endpoints.videos, ...endpoints.products].reduce(
    (group: HttpApiGroup.HttpApiGroup<"shopExplore", (typeof endpoints)[ShopEntity][number], never>, endpoint) => group.add(endpoint),
    HttpApiGroup.make("shopExplore").annotateContext(inProduct("Short-video shop"))
  )
) {}

/** Explore's part of the contract (kernel/Contract.ts), also under the browser session's legacy prefix (S4). */
export class ShopExploreContract extends contractPart()
  .add(ShopExploreApi)
  .add(legacy(ShopExploreApi, { from: shopPrefix, to: "/api/clipapp-shop" }))
{}
