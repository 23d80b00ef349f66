import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { CountryCode } from "../../kernel/Fields.js"
import { metered } from "../../access/gateway/Api.js"
import { defaultPageSize, maxPageSize, maxPageWindow } from "../../kernel/Paging.js"
import { Choice } from "../../kernel/Params.js"
import { param } from "../../kernel/QueryParams.js"
import { shopPrefix } from "../account/Api.js"
import { ShopRecordId } from "../catalog/Entities.js"
import { queryOf } from "../../kernel/RouteParams.js"
import { entityViews } from "../catalog/Views.js"
import { contractPart } from "../../kernel/Contract.js"
import { legacy } from "../../access/session/Legacy.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, pagePaging, tool } from "../../kernel/McpTool.js"

/**
 * Trending products, product search and autocomplete of the short-video shop (spec:
 * Short-video shop API, "Search, credits, trending, country"; issue 5; INTERPRETATIONS P2).
 * None of them takes a daily search: G7 names explore and count only. Contract only.
 */

export const trendingMetrics = ["gmv", "units", "views"] as const
export type TrendingMetric = (typeof trendingMetrics)[number]
export const maxTrendingDays = 90
export const defaultTrendingDays = 7

export const maxQueryLength = 200
export const maxPrefixLength = 50
export const maxSuggestions = 20
export const defaultSuggestions = 10

/** What suggestions complete, in the order their turns come (see `ShopSearch.suggestions`). */
export const suggestionTypes = ["products", "shops", "creators", "categories"] as const
export type SuggestionType = (typeof suggestionTypes)[number]

const country = param.same(CountryCode.annotations({ description: "Shop region; default: the account's country (request-country), else US" }))
const paging = {
  page: param.int(1, maxPageWindow, `Page, from 1; page × page_size is at most ${maxPageWindow}`),
  page_size: param.int(1, maxPageSize, `Results per page, 1 to ${maxPageSize} (default ${defaultPageSize})`)
}

// A route's query string, declared once from its parameters (`required` ones must be sent);
// anything else is `<name>: unknown parameter`.

export const TrendingQuery = queryOf({
  metric: param.same(Choice(...trendingMetrics).annotations({ description: "What grows: gmv (default), units or views" })),
  days: param.int(
    1,
    maxTrendingDays,
    `The window: this many days up to yesterday (UTC), 1 to ${maxTrendingDays} (default ${defaultTrendingDays}), against as many days before it`
  ),
  country,
  category_id: param.same(ShopRecordId.annotations({ description: "A category's id: it and every category below it" })),
  ...paging
})
export type TrendingParams = typeof TrendingQuery.Type

export const SearchQuery = queryOf(
  { country, ...paging, q: param.text(maxQueryLength, `Words of the product's title, 1 to ${maxQueryLength} characters`) },
  "q"
)
export type SearchParams = typeof SearchQuery.Type

export const SuggestionsQuery = queryOf(
  {
    types: param.list(Choice(...suggestionTypes), `What to complete (default all): ${suggestionTypes.join(", ")}`),
    country,
    limit: param.int(1, maxSuggestions, `How many strings, 1 to ${maxSuggestions} (default ${defaultSuggestions})`),
    prefix: param.text(maxPrefixLength, `What the user has typed, 1 to ${maxPrefixLength} characters`)
  },
  "prefix"
)
export type SuggestionsParams = typeof SuggestionsQuery.Type

const ProductView = entityViews.products

export const TrendingProduct = Schema.extend(
  ProductView,
  Schema.Struct({
    growth: Schema.Number.annotations({ description: "(current - previous) / previous, to 4 decimals" }),
    current: Schema.Number.annotations({ description: "The metric over the window" }),
    previous: Schema.Number.annotations({ description: "The metric over the same number of days before it" })
  })
).annotations({ identifier: "TrendingProduct" })
export type TrendingProduct = typeof TrendingProduct.Type

export const FoundProduct = Schema.extend(
  ProductView,
  Schema.Struct({ relevance: Schema.Number.annotations({ description: "How well the title matches `q`, 0 to 1 (1: the title is `q`)" }) })
).annotations({ identifier: "FoundProduct" })
export type FoundProduct = typeof FoundProduct.Type

const pageOf = <A, I>(item: Schema.Schema<A, I>, identifier: string) =>
  Schema.Struct({
    success: Schema.Literal(true),
    data: Schema.Array(item),
    total: Schema.Int.annotations({ description: "Matches, on every page" }),
    page: Schema.Int,
    page_size: Schema.Int
  }).annotations({ identifier })

export const TrendingPage = pageOf(TrendingProduct, "TrendingPage")
export const SearchPage = pageOf(FoundProduct, "ProductSearchPage")

export const Suggestion = Schema.Struct({
  text: Schema.String.annotations({ description: "The string to offer: a product's title, a shop's or category's name, a creator's handle" }),
  type: Choice(...suggestionTypes).annotations({ description: "What it names" }),
  id: Schema.String.annotations({ description: "Its id (the most popular one when several share the text)" })
})
export type Suggestion = typeof Suggestion.Type

export const Suggestions = Schema.Struct({ success: Schema.Literal(true), data: Schema.Array(Suggestion) })

export class ShopSearchApi extends metered(
  HttpApiGroup.make("shopSearch").annotateContext(inProduct("Short-video shop"))
    .add(
      HttpApiEndpoint.get("trending", `${shopPrefix}/trending`)
        .annotate(McpTool, tool("trending_shop_products", {
          title: "Trending short-video shop products",
          description: `Products whose GMV, units or views (metric) grew most over the last days (days, default 7) against the days before. ${pagePaging}`
        }))
        .setUrlParams(TrendingQuery)
        .addSuccess(TrendingPage)
        .annotate(OpenApi.Summary, "Products ranked by the growth of a metric over the last days against the days before")
        .annotate(
          OpenApi.Description,
          `Growth is (current - previous) / previous over the last \`days\` up to yesterday (UTC) against the same number of days before them. Only products with activity in both windows are ranked (previous > 0 and current > 0). Highest growth first, then the larger current value, then id. Each item is the products-explore view, its period the window, plus \`growth\`, \`current\` and \`previous\`. Takes no daily search.`
        )
    )
    .add(
      HttpApiEndpoint.get("search", `${shopPrefix}/search`)
        .annotate(McpTool, tool("search_shop_products", {
          title: "Search short-video shop products",
          description: `Products whose title matches words (q), best match first, with relevance from 0 to 1. ${pagePaging} Prefer explore_shop_products to filter and rank by metrics.`
        }))
        .setUrlParams(SearchQuery)
        .addSuccess(SearchPage)
        .annotate(OpenApi.Summary, "Products whose title matches words, best match first")
        .annotate(
          OpenApi.Description,
          "A title matches when it holds the words of `q` or close spellings of them (trigram word similarity at least 0.6, case-insensitive). `relevance` is the mean of that word similarity and the whole title's trigram similarity, so the product titled exactly `q` comes first; equal relevance: more reviews first. Each item is the products-explore view (period: the 30 days up to yesterday) plus `relevance`. Takes no daily search."
        )
    )
    .add(
      HttpApiEndpoint.get("suggestions", `${shopPrefix}/suggestions`)
        .annotate(McpTool, tool("shop_suggestions", {
          title: "Autocomplete short-video shop names",
          description: "Product titles, shop names, creator handles and category names that start with a prefix, with their ids: the quickest way from a name to an id."
        }))
        .setUrlParams(SuggestionsQuery)
        .addSuccess(Suggestions)
        .annotate(OpenApi.Summary, "Autocomplete: product titles, shop names, creator handles and category names starting with a prefix")
        .annotate(
          OpenApi.Description,
          "A string matches when it, or one of its words, starts with `prefix` (case-insensitive; a word starts after a space or ASCII punctuation). Strings that start with the prefix come first, then those where a later word does. Within each, the types take turns (products, shops, creators, categories), each offering its next most popular string: products by reviews, shops and creators by followers, categories by GMV over the 30 days up to yesterday. Equal strings of one type are offered once. Takes no daily search."
        )
    )
) {}

/** Trending, search and suggestions' part of the contract (kernel/Contract.ts), also under the browser session's legacy prefix (S4). */
export class ShopSearchContract extends contractPart()
  .add(ShopSearchApi)
  .add(legacy(ShopSearchApi, { from: shopPrefix, to: "/api/clipapp-shop" }))
{}
