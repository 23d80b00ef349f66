import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { NotFoundBody } from "../../kernel/Errors.js"
import { Schema } from "effect"
import { AdView } from "../library/Api.js"
import { CountryCode, Day, Domain, ExternalId } from "../../kernel/Fields.js"
import { metered } from "../../access/gateway/Api.js"
import { Choice } from "../../kernel/Params.js"
import { param } from "../../kernel/QueryParams.js"
import { contractPart } from "../../kernel/Contract.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, noTool, pagePaging, tool } from "../../kernel/McpTool.js"

/** Why these routes are no MCP tools (kernel/McpTool.ts). */
const notTool = noTool("The list and overview tools answer the count; one creative is get_store_search_ad")

/**
 * A hosted store's search-engine creatives (issue 4; spec: Programmatic routes,
 * `/api/v1/store/search-ads` and `/api/v1/store/search-ads/*`). Contract only.
 */

const prefix = "/api/v1/store/search-ads"

/** P2 pages are offsets: deeper pages cost more, so `page * page_size` stops here. */
export const maxPageWindow = 10_000
export const maxPageSize = 100
export const defaultPageSize = 20
/** The weeks `active_over_time` shows at most: the latest ones. */
export const maxWeeks = 104
/** The advertisers the advertiser route lists at most: those with the most creatives. */
export const maxAdvertisers = 100

const QueryInt = (min: number, max: number, description: string) => param.int(min, max, description).query

/** `Day` with its description kept in the OpenAPI document (its last refinement has no JSON Schema of its own). */
const QueryDay = (description: string) => Day.annotations({ description, jsonSchema: { format: "date", description } })

/** Which store: exactly one of the two (the service checks it, naming the field). */
const storeFields = {
  store_id: Schema.optional(ExternalId.annotations({ description: "The store's id (`store_id` of an ad); send this or `domain`" })),
  domain: Schema.optional(Domain.annotations({ description: "The store's domain, lowercase, such as shop.example.com; send this or `store_id`" })),
  // Keys may come in the query string (spec: Authentication); the gateway reads them.
  api_key: Schema.optional(Schema.String).annotations({ description: "The API key, when no header carries it (fallback)" })
}

const filterFields = {
  status: Schema.optional(Choice("active", "inactive").annotations({ description: "Only active or only inactive creatives" })),
  region: Schema.optional(CountryCode.annotations({ description: "Creatives shown in this region (ISO 3166-1 alpha-2)" })),
  first_seen_from: Schema.optional(QueryDay("First seen on or after this day (UTC), YYYY-MM-DD")),
  first_seen_to: Schema.optional(QueryDay("First seen on or before this day (UTC), YYYY-MM-DD"))
}

/** Unknown parameters are refused, not ignored (G11): a misspelt filter would widen the answer. */
const strict = <Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.Struct(fields).annotations({ parseOptions: { onExcessProperty: "error" } })

export const StoreQuery = strict(storeFields)
export type StoreQuery = typeof StoreQuery.Type

export const StoreCountQuery = strict({ ...storeFields, ...filterFields })
export type StoreCountQuery = typeof StoreCountQuery.Type

export const StoreListQuery = strict({
  ...storeFields,
  ...filterFields,
  page: Schema.optional(QueryInt(1, maxPageWindow, `Page number, from 1; \`page\` × \`page_size\` at most ${maxPageWindow}`)),
  page_size: Schema.optional(QueryInt(1, maxPageSize, `Creatives per page, 1 to ${maxPageSize} (default ${defaultPageSize})`))
})
export type StoreListQuery = typeof StoreListQuery.Type

export const StoreCreativeQuery = strict({
  ...storeFields,
  id: ExternalId.annotations({ description: "The creative's id (`id` of an ad of the list)" })
})
export type StoreCreativeQuery = typeof StoreCreativeQuery.Type

/** P2's answer. */
export const StoreAdPage = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Array(AdView),
  total: Schema.Int.annotations({ description: "Creatives matching, on every page" }),
  page: Schema.Int,
  page_size: Schema.Int
})
export type StoreAdPage = typeof StoreAdPage.Type

export const StoreAdCount = Schema.Struct({
  success: Schema.Literal(true),
  total: Schema.Int,
  active: Schema.Int.annotations({ description: "Of `total`, the creatives whose status is active" })
})

export const StoreAdDetail = Schema.Struct({ success: Schema.Literal(true), data: AdView })

const Shown = Schema.NullOr(Schema.String).annotations({ description: "UTC instant; null when the store has no search creatives" })

export const StoreAdOverview = Schema.Struct({
  success: Schema.Literal(true),
  total: Schema.Int,
  active: Schema.Int,
  first_shown: Shown,
  last_shown: Shown,
  by_format: Schema.Array(Schema.Struct({ format: Schema.String, count: Schema.Int })).annotations({
    description: "Most creatives first"
  }),
  by_region: Schema.Array(Schema.Struct({ region: Schema.String, count: Schema.Int })).annotations({
    description: "Creatives shown in each region, most first"
  }),
  active_over_time: Schema.Array(Schema.Struct({
    week: Schema.String.annotations({ description: "The week's Monday (UTC), YYYY-MM-DD" }),
    active: Schema.Int.annotations({ description: "Creatives shown at some time in that week" })
  })).annotations({ description: `Every week from first_shown to last_shown, oldest first; the latest ${maxWeeks} at most` })
})
export type StoreAdOverview = typeof StoreAdOverview.Type

export const StoreAdvertiser = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  domain: Schema.NullOr(Schema.String),
  verified: Schema.Boolean,
  creatives: Schema.Int.annotations({ description: "Its search creatives for this store" }),
  active: Schema.Int,
  first_shown: Schema.String,
  last_shown: Schema.String,
  regions: Schema.Array(Schema.String).annotations({ description: "Where its creatives were shown, A to Z" })
})
export type StoreAdvertiser = typeof StoreAdvertiser.Type

export const StoreAdvertisers = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Array(StoreAdvertiser).annotations({
    description: `Most creatives first, then by id; at most ${maxAdvertisers}`
  })
})

const Impressions = Schema.Struct({ lower: Schema.Number, upper: Schema.NullOr(Schema.Number) })

export const StoreCreative = Schema.Struct({
  id: Schema.String,
  headline: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  display_url: Schema.NullOr(Schema.String),
  advertiser_verified: Schema.NullOr(Schema.Boolean),
  first_shown: Schema.String,
  last_shown: Schema.String,
  days_running: Schema.Int,
  regions: Schema.Array(Schema.Struct({
    region: Schema.String,
    impressions: Schema.NullOr(Impressions).annotations({ description: "The reported range; null when not reported" })
  }))
})
export type StoreCreative = typeof StoreCreative.Type

export const StoreCreativeAnswer = Schema.Struct({ success: Schema.Literal(true), data: StoreCreative })

const storeNote = "The store is `store_id` or `domain`, exactly one; an unknown store is a 404."

export class StoreAdsApi extends metered(
  HttpApiGroup.make("storeAds").annotateContext(inProduct("Hosted stores"))
    .add(
      HttpApiEndpoint.get("list", prefix)
        .annotate(McpTool, tool("list_store_search_ads", {
          title: "A store's search-engine ads",
          description: `Lists the search-engine ad creatives of one online store (store_id or domain, exactly one), newest first; filters status, region, first_seen_from/to. ${pagePaging}`
        }))
        .addError(NotFoundBody)
        .setUrlParams(StoreListQuery)
        .addSuccess(StoreAdPage)
        .annotate(OpenApi.Summary, "A store's search-engine creatives, newest first")
        .annotate(OpenApi.Description, `Paged (INTERPRETATIONS P2): \`page\` from 1, \`page_size\` 1-${maxPageSize}. ${storeNote}`)
    )
    .add(
      HttpApiEndpoint.get("count", `${prefix}/count`)
        .annotate(McpTool, notTool)
        .addError(NotFoundBody)
        .setUrlParams(StoreCountQuery)
        .addSuccess(StoreAdCount)
        .annotate(OpenApi.Summary, "How many search-engine creatives a store has, and how many are active")
        .annotate(OpenApi.Description, `The list's filters apply. ${storeNote}`)
    )
    .add(
      HttpApiEndpoint.get("detail", `${prefix}/detail`)
        .annotate(McpTool, notTool)
        .addError(NotFoundBody)
        .setUrlParams(StoreCreativeQuery)
        .addSuccess(StoreAdDetail)
        .annotate(OpenApi.Summary, "One search-engine creative of a store, as the ad searches show it")
        .annotate(OpenApi.Description, `A creative of another store is a 404. ${storeNote}`)
    )
    .add(
      HttpApiEndpoint.get("overview", `${prefix}/overview`)
        .annotate(McpTool, tool("store_search_ads_overview", {
          title: "A store's search-engine ads at a glance",
          description: "Summarises a store's search-engine ads (store_id or domain): totals, active count, first and last shown, by format, by region and weekly activity. Start here before listing them."
        }))
        .addError(NotFoundBody)
        .setUrlParams(StoreQuery)
        .addSuccess(StoreAdOverview)
        .annotate(OpenApi.Summary, "A store's search-engine creatives at a glance: formats, regions, first and last shown, weekly activity")
        .annotate(OpenApi.Description, storeNote)
    )
    .add(
      HttpApiEndpoint.get("advertiser", `${prefix}/advertiser`)
        .annotate(McpTool, tool("store_search_ads_advertisers", {
          title: "Advertisers behind a store's search-engine ads",
          description: "The advertisers running a store's search-engine ads (store_id or domain), with their creative counts, activity and regions."
        }))
        .addError(NotFoundBody)
        .setUrlParams(StoreQuery)
        .addSuccess(StoreAdvertisers)
        .annotate(OpenApi.Summary, "The advertisers behind a store's search-engine creatives: profile and totals")
        .annotate(OpenApi.Description, storeNote)
    )
    .add(
      HttpApiEndpoint.get("creative", `${prefix}/creative`)
        .annotate(McpTool, tool("get_store_search_ad", {
          title: "One search-engine ad of a store",
          description: "One search-engine creative of a store (store_id or domain, and id from the list) with its regions and impression ranges."
        }))
        .addError(NotFoundBody)
        .setUrlParams(StoreCreativeQuery)
        .addSuccess(StoreCreativeAnswer)
        .annotate(OpenApi.Summary, "One search-engine creative of a store with its regions and impression ranges")
        .annotate(OpenApi.Description, `A creative of another store is a 404. ${storeNote}`)
    )
) {}

/** Store search ads' part of the contract (kernel/Contract.ts). */
export class StoreAdsContract extends contractPart().add(StoreAdsApi) {}
