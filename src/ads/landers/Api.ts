import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { NotFoundBody } from "../../kernel/Errors.js"
import { Schema } from "effect"
import { metered } from "../../access/gateway/Api.js"
import { contractPart } from "../../kernel/Contract.js"
import { CountryCode, Currency, Domain, ExternalId, LanguageCode } from "../../kernel/Fields.js"
import { defaultPageSize, maxPageSize, maxPageWindow } from "../../kernel/Paging.js"
import { Choice } from "../../kernel/Params.js"
import { param, strictStruct } from "../../kernel/QueryParams.js"
import { fieldsOf } from "../../kernel/RouteParams.js"
import { pageTypes } from "../records/Ads.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, pagePaging, tool } from "../../kernel/McpTool.js"

/**
 * The lander library (issue 20; spec: "lander library search", lander favorites;
 * INTERPRETATIONS L1, P2). Contract only.
 */

const prefix = "/api/v1/landers"

/** An account keeps at most this many favorite landers (like the short-video shop's favorites). */
export const maxLanderFavorites = 10_000
/** The ads a lander lists by id: its newest. */
export const adIdsShown = 5

export const landerSorts = ["relevance", "newest", "most_ads", "longest_running"] as const
export type LanderSort = (typeof landerSorts)[number]

const message = (text: string) => ({ message: () => ({ message: text, override: true }) })
const Word = (what: string) => Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_.-]{1,100}$/), Schema.annotations(message(`must be ${what}`)))
const Price = 1_000_000_000

/** The filters of explore, declared once (their body form; `kernel/QueryParams.ts`). */
export const landerFilters = {
  q: param.text(500, "Full text over the title, headline and page text (web-search syntax: \"phrase\", or, -word; English stemming)"),
  type: param.list(Choice(...pageTypes), `Any of these page types: ${pageTypes.join(", ")} (vsl: video sales letter)`),
  niche: param.list(Word("a niche such as beauty"), "Any of these niches"),
  domain: param.list(Domain, "Landers on any of these domains"),
  platform: param.list(Word("a store software such as shopify"), "Built with any of these (the store software: shopify, woocommerce, wordpress, ...)"),
  country: param.list(CountryCode, "Served to any of these countries (ISO 3166-1 alpha-2)"),
  language: param.list(LanguageCode, "In any of these languages (ISO 639-1)"),
  first_seen_from: param.day("First seen on or after this day (UTC)"),
  first_seen_to: param.day("First seen on or before this day (UTC)"),
  last_seen_from: param.day("Last seen on or after this day (UTC)"),
  last_seen_to: param.day("Last seen on or before this day (UTC)"),
  min_ads: param.int(0, 1_000_000_000, "At least this many ads link to it"),
  max_ads: param.int(0, 1_000_000_000, "At most this many ads link to it"),
  min_price: param.number(0, Price, "The offer's price at least this (landers without a known price are left out)"),
  max_price: param.number(0, Price, "The offer's price at most this (landers without a known price are left out)"),
  currency: param.same(Currency.annotations({ description: "The offer's price is in this currency (ISO 4217)" })),
  sort: param.same(Choice(...landerSorts).annotations({
    description: "relevance (default with q; needs q), newest (default without: first seen), most_ads, longest_running (first to last seen)"
  })),
  page: param.int(1, maxPageWindow, `Page, from 1; page × page_size is at most ${maxPageWindow}`),
  page_size: param.int(1, maxPageSize, `Landers per page, 1 to ${maxPageSize} (default ${defaultPageSize})`)
}

export const ExploreBody = strictStruct(fieldsOf(landerFilters, "body"), "body")
export type ExploreBody = typeof ExploreBody.Type

export const Lander = Schema.Struct({
  id: Schema.String.annotations({ description: "The lander's id, as imported" }),
  url: Schema.String,
  final_url: Schema.String.annotations({ description: "Where the URL lands after redirects (the URL itself when no redirect is known)" }),
  domain: Schema.String,
  type: Schema.String.annotations({ description: `The page type: ${pageTypes.join(", ")}` }),
  title: Schema.NullOr(Schema.String),
  headline: Schema.NullOr(Schema.String),
  niche: Schema.NullOr(Schema.String),
  platform: Schema.NullOr(Schema.String).annotations({ description: "The store software (shopify, woocommerce, wordpress, ...)" }),
  countries: Schema.Array(Schema.String),
  languages: Schema.Array(Schema.String),
  price: Schema.NullOr(Schema.Number).annotations({ description: "The offer's price where the page shows one" }),
  currency: Schema.NullOr(Schema.String),
  screenshot_url: Schema.NullOr(Schema.String),
  store_id: Schema.NullOr(Schema.String).annotations({ description: "The hosted store it belongs to" }),
  first_seen: Schema.NullOr(Schema.String).annotations({ description: "UTC instant" }),
  last_seen: Schema.NullOr(Schema.String).annotations({ description: "UTC instant" }),
  days_running: Schema.NullOr(Schema.Int).annotations({ description: "Whole days from first to last seen" }),
  ads: Schema.Struct({
    count: Schema.Int.annotations({ description: "Ads of the libraries that link to it" }),
    ids: Schema.Array(Schema.String).annotations({ description: `The ids of its newest ${adIdsShown} ads (first seen), newest first` })
  })
}).annotations({ identifier: "Lander" })
export type Lander = typeof Lander.Type

export const FavoriteLander = Schema.Struct({
  ...Lander.fields,
  favorited_at: Schema.String.annotations({ description: "When it was favorited (UTC instant)" })
}).annotations({ identifier: "FavoriteLander" })
export type FavoriteLander = typeof FavoriteLander.Type

/** P2's answer. */
const pageOf = <A, I>(item: Schema.Schema<A, I>, order: string) =>
  Schema.Struct({
    success: Schema.Literal(true),
    data: Schema.Array(item).annotations({ description: order }),
    total: Schema.Int.annotations({ description: "Landers matching, on every page" }),
    page: Schema.Int,
    page_size: Schema.Int
  })
export const LanderPage = pageOf(Lander, "In the order `sort` asks")
export const FavoritePage = pageOf(FavoriteLander, "Newest favorite first")

export const FavoritesQuery = strictStruct({
  // No account holds more than `maxLanderFavorites`: no later page could hold anything.
  page: Schema.optional(param.int(1, maxLanderFavorites, "Page number, from 1").query),
  page_size: Schema.optional(param.int(1, maxPageSize, `Favorites per page, 1 to ${maxPageSize} (default ${defaultPageSize})`).query)
}, "query")
export type FavoritesQuery = typeof FavoritesQuery.Type

export const ToggleBody = strictStruct({ id: ExternalId.annotations({ description: "The lander's id (`id` of explore's landers)" }) }, "body")
export type ToggleBody = typeof ToggleBody.Type

export const Favorited = Schema.Struct({
  success: Schema.Literal(true),
  favorited: Schema.Boolean.annotations({ description: "Whether the lander is a favorite of the account after the toggle" })
})

export class LandersApi extends metered(
  HttpApiGroup.make("landers").annotateContext(inProduct("Landers"))
    .add(
      HttpApiEndpoint.post("explore", `${prefix}/explore`)
        .annotate(McpTool, tool("explore_landers", {
          title: "Explore landing pages",
          description: `Searches the landing-page library: full text (q) over title, headline and page text; filters type (product, listicle, advertorial, quiz, vsl, presell, collection, home), niche, domain, platform, countries, languages, seen dates, how many ads link to it, offer price; sorts relevance, newest, most_ads, longest_running. Each lander has its final URL and the ads linking to it. ${pagePaging}`
        }))
        .setPayload(ExploreBody)
        .addSuccess(LanderPage)
        .annotate(OpenApi.Summary, "Search the lander library: full text, filters and sorts, each lander with the ads that link to it")
        .annotate(OpenApi.Description, `Filters in the JSON body; paged (INTERPRETATIONS P2): \`page\` from 1, \`page_size\` 1-${maxPageSize}.`)
    )
    .add(
      HttpApiEndpoint.get("favorites", `${prefix}/favorites`)
        .annotate(McpTool, tool("list_lander_favorites", {
          title: "Favorite landing pages",
          description: `The account's favorite landers. ${pagePaging}`
        }))
        .setUrlParams(FavoritesQuery)
        .addSuccess(FavoritePage)
        .annotate(OpenApi.Summary, "The account's favorite landers, newest favorite first")
        .annotate(OpenApi.Description, `Paged (INTERPRETATIONS P2): \`page\` from 1, \`page_size\` 1-${maxPageSize}.`)
    )
    .add(
      HttpApiEndpoint.post("toggle", `${prefix}/favorites/toggle`)
        .annotate(McpTool, tool("toggle_lander_favorite", {
          title: "Favorite or unfavorite a landing page",
          description: "Toggles a lander (id from explore_landers) in the account's favorites; answers whether it is a favorite now."
        }))
        .addError(NotFoundBody)
        .setPayload(ToggleBody)
        .addSuccess(Favorited)
        .annotate(OpenApi.Summary, "Toggle a favorite lander: adds it when absent, removes it when present")
        .annotate(OpenApi.Description, `An unknown id is a 404 \`Lander not found\`. An account holds at most ${maxLanderFavorites} favorite landers.`)
    )
) {}

/** Landers' part of the contract (kernel/Contract.ts). */
export class LandersContract extends contractPart().add(LandersApi) {}
