import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { NotFoundBody } from "../../kernel/Errors.js"
import { Schema } from "effect"
import { metered } from "../../access/gateway/Api.js"
import { legacy } from "../../access/session/Legacy.js"
import { contractPart } from "../../kernel/Contract.js"
import { ApiError, envelope } from "../../kernel/Envelope.js"
import { ExternalId } from "../../kernel/Fields.js"
import { defaultPageSize, maxPageSize, maxPageWindow } from "../../kernel/Paging.js"
import { param, strictStruct } from "../../kernel/QueryParams.js"
import { AdPage, brandIdText } from "../library/Api.js"
import { AdvertiserAdsQuery, maxLimit } from "../library/Filters.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, pagePaging, scrollPaging, tool } from "../../kernel/McpTool.js"

/**
 * The brand tracker (issue 19; INTERPRETATIONS W1): the social-library advertisers an account
 * follows, and a brand's ads through the ad search engine. Contract only. The insight tabs and
 * the boards live under the same prefix in their own groups.
 */

export const brandsPrefix = "/api/v1/brands"
/** S4/S5: the same routes for a signed-in browser. */
export const legacyBrandsPrefix = "/api/brands"

/** How many landing domains a tracked brand lists at most: those with the most ads. */
export const maxBrandDomains = 10

/** spec: Resources, "Tracked brand"; W1 (`id`, `name`, `domain`, `active_ads`) and what trackers add. */
export const TrackedBrand = Schema.Struct({
  id: Schema.String.annotations({ description: "The advertiser's id in the social-network library (`advertiser.id` of its ads)" }),
  name: Schema.String,
  domain: Schema.String.annotations({ description: "The brand's own domain; else the landing domain of most of its ads; empty when neither is known" }),
  active_ads: Schema.Int.annotations({ description: "Its ads whose status is active" }),
  total_ads: Schema.Int.annotations({ description: "All its ads in the library" }),
  new_ads_7d: Schema.Int.annotations({ description: "Its ads first seen in the last 7 days" }),
  new_ads_30d: Schema.Int.annotations({ description: "Its ads first seen in the last 30 days" }),
  last_seen: Schema.NullOr(Schema.String).annotations({ description: "When one of its ads was last seen (UTC instant); null without ads" }),
  domains: Schema.Array(Schema.String).annotations({
    description: `Its domains: its own first, then the landing domains of its ads, most ads first (at most ${maxBrandDomains + 1})`
  }),
  followed_at: Schema.String.annotations({ description: "When the account started tracking it (UTC instant)" })
}).annotations({ identifier: "TrackedBrand" })
export type TrackedBrand = typeof TrackedBrand.Type

/** W1: the per-plan limit on tracked brands. */
export class BrandLimitReached extends ApiError<BrandLimitReached>()("BrandLimitReached", {
  error: Schema.String
}, { status: 403 }) {}
export const BrandLimitReachedBody = envelope(BrandLimitReached)

export const BrandsQuery = strictStruct({
  page: Schema.optional(param.int(1, maxPageWindow, "Page number, from 1").query),
  page_size: Schema.optional(param.int(1, maxPageSize, `Brands per page, 1 to ${maxPageSize} (default ${defaultPageSize})`).query)
}, "query")
export type BrandsQuery = typeof BrandsQuery.Type

export const BrandTarget = strictStruct({
  id: ExternalId.annotations({ description: "The brand: the advertiser's id (`advertiser.id` of its ads in `GET /api/v1/adlibrary`)" })
}, "body")
export type BrandTarget = typeof BrandTarget.Type

export const BrandsAdsQuery = AdvertiserAdsQuery("social")

export const TrackedBrands = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Array(TrackedBrand).annotations({ description: "Newest follow first" }),
  total: Schema.Int.annotations({ description: "Brands the account tracks, on every page" })
})

export const Followed = Schema.Struct({ success: Schema.Literal(true), brand: TrackedBrand })
export const Unfollowed = Schema.Struct({ success: Schema.Literal(true) })

export class BrandTrackerApi extends metered(
  HttpApiGroup.make("brandTracker").annotateContext(inProduct("Brands"))
    .add(
      HttpApiEndpoint.get("list", brandsPrefix)
        .annotate(McpTool, tool("list_tracked_brands", {
          title: "Tracked brands",
          description: `The brands the account tracks, newest follow first, with their active ads, new ads in the last 7 and 30 days, last seen and domains. ${pagePaging}`
        }))
        .setUrlParams(BrandsQuery)
        .addSuccess(TrackedBrands)
        .annotate(OpenApi.Summary, "The brands the account tracks, newest follow first")
        .annotate(OpenApi.Description, `\`page\` from 1 and \`page_size\` 1-${maxPageSize} (INTERPRETATIONS P2); \`total\` counts them all.`)
    )
    .add(
      HttpApiEndpoint.post("follow", `${brandsPrefix}/follow`)
        .annotate(McpTool, tool("follow_brand", {
          title: "Track a brand",
          description: `Starts tracking a brand (${brandIdText}); tracking again changes nothing. Tracked brands feed the new-ads digest. The plan limits how many brands an account tracks.`
        }))
        .addError(NotFoundBody)
        .setPayload(BrandTarget)
        .addSuccess(Followed)
        .addError(BrandLimitReachedBody)
        .annotate(OpenApi.Summary, "Track a brand; tracking it again changes nothing")
        .annotate(
          OpenApi.Description,
          "An unknown brand is a 404 `Brand not found`; past the plan's limit (configuration) a 403 `Brand tracking limit reached: <n> brands on the <Plan> plan`."
        )
    )
    .add(
      HttpApiEndpoint.post("unfollow", `${brandsPrefix}/unfollow`)
        .annotate(McpTool, tool("unfollow_brand", {
          title: "Stop tracking a brand",
          description: `Stops tracking a brand (${brandIdText}); an untracked one is fine.`
        }))
        .setPayload(BrandTarget)
        .addSuccess(Unfollowed)
        .annotate(OpenApi.Summary, "Stop tracking a brand; also succeeds when it was not tracked")
    )
    .add(
      HttpApiEndpoint.get("ads", `${brandsPrefix}/ads`)
        .annotate(McpTool, tool("brand_ads", {
          title: "A brand's ads",
          description: `The ads of one brand (${brandIdText}), with the ad searches' filters and sorts. ${scrollPaging}`
        }))
        .addError(NotFoundBody)
        .setUrlParams(BrandsAdsQuery)
        .addSuccess(AdPage)
        .annotate(OpenApi.Summary, "A brand's ads, tracked or not: the ad search's filters, sorts and scroll tokens")
        .annotate(
          OpenApi.Description,
          `Keyset-paginated (INTERPRETATIONS P1): \`id\` and \`limit\` 1-${maxLimit} on the first request, then \`scroll_token\` alone. An unknown brand is a 404 \`Brand not found\`.`
        )
    )
) {}

/** The brand tracker's part of the contract (kernel/Contract.ts), also under the browser session (S4, S5). */
export class BrandTrackerContract extends contractPart()
  .add(BrandTrackerApi)
  .add(legacy(BrandTrackerApi, { from: brandsPrefix, to: legacyBrandsPrefix }))
{}
