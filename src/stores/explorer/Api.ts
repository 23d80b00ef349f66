import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { NotFoundBody } from "../../kernel/Errors.js"
import { Schema } from "effect"
import { metered } from "../../access/gateway/Api.js"
import { contractPart } from "../../kernel/Contract.js"
import { CountryCode, Currency, ExternalId, LanguageCode, Text } from "../../kernel/Fields.js"
import { alias } from "../../kernel/Mirror.js"
import { defaultPageSize, maxPageSize, maxPageWindow } from "../../kernel/Paging.js"
import { Choice } from "../../kernel/Params.js"
import { type Param, param, strictStruct } from "../../kernel/QueryParams.js"
import { DailyPoint, StoreProductView, StoreView } from "../catalog/Views.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, pagePaging, tool } from "../../kernel/McpTool.js"

/**
 * The store explorer (issue 20; INTERPRETATIONS L4, S3): a body without `id` searches hosted
 * stores (P2), a body with `id` is that store's drill-down. Contract only.
 */

export const explorerPrefix = "/api/v1/store-explorer"

/** The days of a drill-down's daily series. */
export const seriesDays = 365
/** The newest ads a drill-down lists (its totals count them all). */
export const newestAds = 20
/** The landers a drill-down lists at most. */
export const maxLanders = 50

const bigCount = 1_000_000_000_000

/**
 * The explorer's filters, declared once: the search takes them in its JSON body, the visual
 * search in its JSON body or as multipart form fields (their query-string encoding).
 */
export const filterParams = {
  q: param.text(200, "Words in the store's name or domain"),
  platform: param.list(Text(100), "Store software, any of: shopify, woocommerce, bigcommerce, ..."),
  theme: param.list(Text(100), "Storefront theme, any of"),
  app: param.list(Text(100), "Detected app, any of (e.g. klaviyo)"),
  country: param.list(CountryCode, "Store country (ISO 3166-1 alpha-2), any of"),
  currency: param.list(Currency, "Store currency (ISO 4217), any of"),
  language: param.list(LanguageCode, "Store language (ISO 639-1), any of"),
  min_products: param.int(0, 10_000_000, "At least this many products"),
  max_products: param.int(0, 10_000_000, "At most this many products"),
  min_revenue: param.number(0, 1e12, "Estimated revenue of the last 30 days at least this (store currency); stores whose sales are unknown are left out"),
  max_revenue: param.number(0, 1e12, "Estimated revenue of the last 30 days at most this; stores whose sales are unknown are left out"),
  min_visits: param.int(0, bigCount, "Monthly visits (latest estimate) at least this"),
  max_visits: param.int(0, bigCount, "Monthly visits (latest estimate) at most this"),
  min_ads: param.int(0, 10_000_000, "At least this many running ads link to the store"),
  max_ads: param.int(0, 10_000_000, "At most this many running ads link to the store"),
  ads_running: param.bool("true: stores some running ad links to; false: none"),
  launched_from: param.day("Launched on or after this day (YYYY-MM-DD)"),
  launched_to: param.day("Launched on or before this day (YYYY-MM-DD)")
}

type Encoding = "query" | "body"
type OptionalFields<P extends Record<string, Param<any>>, E extends Encoding> = { readonly [K in keyof P]: Schema.optional<P[K][E]> }

/** The filters as optional fields of one encoding, each keeping its type. */
export const filterFields = <E extends Encoding>(encoding: E): OptionalFields<typeof filterParams, E> =>
  // (`as`: Object.fromEntries forgets the keys that the mapped type restores.)
  Object.fromEntries(Object.entries(filterParams).map(([name, p]) => [name, Schema.optional(p[encoding])])) as OptionalFields<typeof filterParams, E>

export const storeSorts = ["revenue", "visits", "growth_30d", "ads", "newest"] as const
export const productSorts = ["sales", "newest", "price_low", "price_high"] as const

export const ExplorerBody = strictStruct({
  id: Schema.optional(ExternalId.annotations({ description: "A store's id: the answer is its drill-down instead of a search" })),
  ...filterFields("body"),
  sort: Schema.optional(Choice(...new Set([...storeSorts, ...productSorts])).annotations({
    description: `Search: ${storeSorts.join(", ")} (default revenue). Drill-down (its products): ${productSorts.join(", ")} (default sales)`
  })),
  page: Schema.optional(param.int(1, maxPageWindow, `Page number, from 1 (stores, or the drill-down's products); \`page\` × \`page_size\` at most ${maxPageWindow}`).body),
  page_size: Schema.optional(param.int(1, maxPageSize, `Per page, 1 to ${maxPageSize} (default ${defaultPageSize})`).body)
}, "body")
export type ExplorerBody = typeof ExplorerBody.Type

export const StoreSearchPage = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Array(StoreView),
  total: Schema.Int.annotations({ description: "Stores matching, on every page" }),
  page: Schema.Int,
  page_size: Schema.Int
}).annotations({ identifier: "StoreSearchPage" })

const Instant = Schema.NullOr(Schema.String)

export const StoreDetail = Schema.Struct({
  success: Schema.Literal(true),
  store: StoreView,
  products: Schema.Struct({
    data: Schema.Array(StoreProductView),
    total: Schema.Int,
    page: Schema.Int,
    page_size: Schema.Int
  }).annotations({ description: "The store's products, paged; sorted by estimated sales unless `sort` says otherwise" }),
  daily: Schema.Array(DailyPoint).annotations({ description: `The last ${seriesDays} days up to yesterday, oldest first` }),
  ads: Schema.Struct({
    total: Schema.Int,
    running: Schema.Int,
    by_library: Schema.Array(Schema.Struct({ library: Schema.String, total: Schema.Int, running: Schema.Int })),
    newest: Schema.Array(Schema.Struct({
      id: Schema.String,
      library: Schema.String,
      status: Schema.String,
      format: Schema.String,
      headline: Schema.NullOr(Schema.String),
      landing_url: Schema.NullOr(Schema.String),
      first_seen: Schema.String,
      last_seen: Schema.String
    })).annotations({ description: `The ${newestAds} newest ads that link to the store` })
  }).annotations({ description: "Ads of the ad libraries that link to the store" }),
  landers: Schema.Array(Schema.Struct({
    id: Schema.String,
    url: Schema.String,
    final_url: Schema.NullOr(Schema.String),
    domain: Schema.String,
    title: Schema.NullOr(Schema.String),
    page_type: Schema.String,
    linked_ads: Schema.Int,
    first_seen: Instant,
    last_seen: Instant
  })).annotations({ description: `Landing pages that point at the store, most recently seen first; at most ${maxLanders}` })
}).annotations({ identifier: "StoreDetail" })

export class StoreExplorerApi extends metered(
  HttpApiGroup.make("storeExplorer").annotateContext(inProduct("Hosted stores"))
    .add(
      HttpApiEndpoint.post("explore", explorerPrefix)
        .annotate(McpTool, tool("explore_stores", {
          title: "Explore online stores",
          description: `Without id: searches hosted online stores (text, platform, theme, app, country, currency, product count, revenue and visit ranges, ads running, launch date; sorts revenue, visits, growth_30d, ads_running, newest). With id: one store's drill-down (products sorted by estimated sales, 365 daily figures, apps, theme, the ads and landers pointing at it). ${pagePaging}`
        }))
        .addError(NotFoundBody)
        .setPayload(ExplorerBody)
        .addSuccess(Schema.Union(StoreSearchPage, StoreDetail))
        .annotate(OpenApi.Summary, "Search hosted stores, or one store's drill-down (a body with `id`)")
        .annotate(
          OpenApi.Description,
          "Without `id`: the stores matching the filters, paged (INTERPRETATIONS P2). With `id`: the store, its products " +
            `(paged), its last ${seriesDays} days, the ads and landers that point at it; an unknown id is a 404. ` +
            "Sales are estimated from inventory changes and are \"unknown\" where the store hides its stock."
        )
    )
) {}

/** The explorer's part of the contract (its visual search is `visual/Api.ts`), with S3's alias. */
export class StoreExplorerContract extends contractPart()
  .add(StoreExplorerApi)
  .add(alias(StoreExplorerApi, { from: explorerPrefix, to: "/api/store-explorer" }))
{}
