import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { NotFoundBody } from "../../kernel/Errors.js"
import { Schema } from "effect"
import { metered } from "../../access/gateway/Api.js"
import { IdPath } from "../../kernel/Params.js"
import { ExternalId, Url } from "../../kernel/Fields.js"
import { bodyFilterFields, engagementOf, type Library, maxLimit, SearchQuery, type SearchParams, Words } from "./Filters.js"
import { contractPart } from "../../kernel/Contract.js"
import { AdFormat, AdLibrary, AdStatus, MediaAsset, SearchCreative } from "../records/Ads.js"
import { legacy } from "../../access/session/Legacy.js"
import { alias } from "../../kernel/Mirror.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, scrollPaging, tool } from "../../kernel/McpTool.js"

/**
 * The ad libraries (spec: Programmatic routes; INTERPRETATIONS P1): one search over the four
 * libraries, one route per library, one ad by id, and the similar-ads AI. Contract only.
 */

const Range = Schema.Struct({ lower: Schema.Number, upper: Schema.NullOr(Schema.Number), currency: Schema.optional(Schema.String) })

/** An ad as every route shows it; `id` is the ad's id in its library (the one imports carry). */
export const AdView = Schema.Struct({
  id: Schema.String,
  library: AdLibrary,
  status: AdStatus,
  format: AdFormat,
  advertiser: Schema.Struct({
    id: Schema.String,
    name: Schema.String,
    domain: Schema.NullOr(Schema.String),
    verified: Schema.Boolean,
    followers: Schema.NullOr(Schema.Number),
    country: Schema.NullOr(Schema.String)
  }),
  first_seen: Schema.String,
  last_seen: Schema.String,
  start_date: Schema.NullOr(Schema.String),
  end_date: Schema.NullOr(Schema.String),
  days_running: Schema.Number,
  headline: Schema.NullOr(Schema.String),
  body: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  cta: Schema.NullOr(Schema.Struct({ text: Schema.NullOr(Schema.String), type: Schema.NullOr(Schema.String) })),
  landing: Schema.NullOr(Schema.Struct({ url: Schema.String, final_url: Schema.NullOr(Schema.String), domain: Schema.NullOr(Schema.String) })),
  media: Schema.Array(MediaAsset).annotations({ description: "The creative's images and videos, as imported" }),
  publisher_platforms: Schema.Array(Schema.String),
  countries: Schema.Array(Schema.String),
  languages: Schema.Array(Schema.String),
  impressions: Schema.NullOr(Range),
  spend: Schema.NullOr(Range),
  reach: Schema.NullOr(Range),
  engagement: Schema.NullOr(Schema.Struct({
    likes: Schema.NullOr(Schema.Number),
    comments: Schema.NullOr(Schema.Number),
    shares: Schema.NullOr(Schema.Number),
    views: Schema.NullOr(Schema.Number)
  })),
  niche: Schema.NullOr(Schema.String),
  ai_tags: Schema.NullOr(Schema.Struct({ hook: Schema.NullOr(Schema.String), angle: Schema.NullOr(Schema.String), persona: Schema.NullOr(Schema.String) })),
  variant_group: Schema.NullOr(Schema.String),
  lander_id: Schema.NullOr(Schema.String),
  store_id: Schema.NullOr(Schema.String),
  search: Schema.NullOr(SearchCreative).annotations({ description: "Search-engine creatives: advertiser verification, display URL, regions; null in the other libraries" }),
  fetched_at: Schema.String,
  source: Schema.String
}).annotations({ identifier: "Ad" })
export type AdView = typeof AdView.Type

/** P1: the answer of every paginated ad search. */
const page = <A, I>(item: Schema.Schema<A, I>) =>
  Schema.Struct({
    success: Schema.Literal(true),
    data: Schema.Array(item),
    scroll_token: Schema.NullOr(Schema.String).annotations({ description: "Send it as `scroll_token` for the next page; null on the last" }),
    has_more: Schema.Boolean
  })
export const AdPage = page(AdView)
export type AdPage = typeof AdPage.Type

/** The lander an ad links to, as one ad's answer shows it. */
export const AdLanderRef = Schema.Struct({ id: Schema.String, url: Schema.String, domain: Schema.String, title: Schema.NullOr(Schema.String), page_type: Schema.String })
/** The store an ad sells for, as one ad's answer shows it. */
export const AdStoreRef = Schema.Struct({ id: Schema.String, domain: Schema.String, name: Schema.NullOr(Schema.String), platform: Schema.NullOr(Schema.String) })

/** One ad with what surrounds it. */
export const AdDetail = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.extend(AdView, Schema.Struct({
    variants: Schema.Array(Schema.String).annotations({ description: "Ids of the other ads of its variant group, newest first (at most 100)" }),
    lander: Schema.NullOr(AdLanderRef),
    store: Schema.NullOr(AdStoreRef)
  }))
})
export type AdDetail = typeof AdDetail.Type

const describe = (library: Library) => {
  const metrics = engagementOf[library]
  return `Keyset-paginated (INTERPRETATIONS P1): \`limit\` 1-${maxLimit} on the first request, then \`scroll_token\` alone. ` +
    (metrics.length === 0 ? "This library shows no engagement." : `Engagement ranges: ${metrics.join(", ")}.`)
}

const search = <const Name extends string, const Path extends `/${string}`>(name: Name, path: Path, library: Library, summary: string) =>
  HttpApiEndpoint.get(name, path)
    .setUrlParams(SearchQuery(library))
    .addSuccess(AdPage)
    .annotate(OpenApi.Summary, summary)
    .annotate(OpenApi.Description, describe(library))

/** The ad searches' filters, as their MCP tools' descriptions say them. */
export const adFilters =
  "Filters: q (full text, web-search syntax), advertiser_id, domain, status, format, country, language, platform, niche, cta, first/last seen dates, days running and engagement ranges; sort relevance (with q), newest, oldest, longest_running, most_engagement."

/** What a brand's id is, for the MCP tools that take one. */
export const brandIdText = "id is the brand's social page id (the advertiser.id of its ads in search_social_ads)"

/** Alone in its group: it has an un-versioned alias (S3). */
export class AdLibraryApi extends metered(
  HttpApiGroup.make("adlibrary").annotateContext(inProduct("Ad libraries")).add(
    search("social", "/api/v1/adlibrary", "social", "Search social-network ads").annotate(
      McpTool,
      tool("search_social_ads", {
        title: "Search social-network ads",
        description:
          `Searches the social-network ad library (ads of advertiser pages, with copy, creative, landing page, countries, engagement). ${adFilters} ${scrollPaging} Use find_similar_ads to find ads like a given ad, copy or image.`
      })
    )
  )
) {}

export class AdsApi extends metered(
  HttpApiGroup.make("ads").annotateContext(inProduct("Ad libraries"))
    .add(search("pinboard", "/api/v1/pinboard-ads", "pinboard", "Search image-board ads").annotate(
      McpTool,
      tool("search_pinboard_ads", {
        title: "Search image-board ads",
        description: `Searches the image-board ad library (promoted pins). ${adFilters} ${scrollPaging}`
      })
    ))
    .add(search("clipapp", "/api/v1/clipapp-ads", "clipapp", "Search short-video ads").annotate(
      McpTool,
      tool("search_short_video_ads", {
        title: "Search short-video ads",
        description:
          `Searches the short-video platform's ad library (video ads with views, likes, comments, shares). ${adFilters} ${scrollPaging} Use get_short_video_ad for one ad with its variants, lander and store.`
      })
    ))
    .add(search("search", "/api/v1/search-ads", "search", "Search search-engine ad creatives").annotate(
      McpTool,
      tool("search_search_engine_ads", {
        title: "Search search-engine ads",
        description: `Searches search-engine ad creatives (text ads: headline, description, display URL, regions). ${adFilters} ${scrollPaging}`
      })
    ))
    .add(
      HttpApiEndpoint.get("clipappAd", "/api/v1/clipapp-ads/:id")
        .addError(NotFoundBody)
        .setPath(IdPath)
        .addSuccess(AdDetail)
        .annotate(OpenApi.Summary, "One short-video ad, with its variants, lander and store")
        .annotate(
          McpTool,
          tool("get_short_video_ad", {
            title: "One short-video ad",
            description: "Gets one short-video ad by its id (the `id` of a search result), with the ids of its variants, its landing page and its store."
          })
        )
    )
) {}

export const SimilarAd = Schema.extend(AdView, Schema.Struct({
  similarity: Schema.Number.annotations({ description: "How alike, from 0 to 1; results are ordered by it" })
}))
export const SimilarPage = page(SimilarAd)
export type SimilarPage = typeof SimilarPage.Type

/** What magic-ai looks for: exactly one of these, unless a `scroll_token` continues a search. */
export interface MagicAiRequest extends SearchParams {
  readonly ad_id?: string
  readonly text?: string
  readonly image_url?: string
}
// (`as unknown as` at its end: the filter fields are spread from a table, so Schema types the
// struct loosely; `MagicAiRequest` is what it decodes to.)
export const MagicAiRequest = Schema.Struct({
  ad_id: Schema.optional(ExternalId.annotations({ description: "Ads like this one (its `id`)" })),
  text: Schema.optional(Words(5_000).annotations({ description: "Ads like this copy" })),
  image_url: Schema.optional(Url.annotations({
    description: "Ads whose creative looks like this image (http(s); fetched once, public addresses only)"
  })),
  ...bodyFilterFields
}).annotations({ parseOptions: { onExcessProperty: "error" } }) as unknown as Schema.Schema<MagicAiRequest, Record<string, unknown>>

/** Alone in its group: it has a legacy session path (S4). */
export class MagicAiApi extends metered(
  HttpApiGroup.make("magicAi").annotateContext(inProduct("Ad libraries")).add(
    HttpApiEndpoint.post("similar", "/api/v1/magic-ai")
      .addError(NotFoundBody)
      .setPayload(MagicAiRequest)
      .addSuccess(SimilarPage)
      .annotate(OpenApi.Summary, "Similar ads: like an ad, a copy or an image; same filters and paging as the searches")
      .annotate(
        McpTool,
        tool("find_similar_ads", {
          title: "Find similar ads",
          description:
            `Finds ads similar to exactly one of: an ad (ad_id), a piece of ad copy (text) or an image (image_url, fetched once). Each result has a similarity from 0 to 1, best first. The ad searches' filters narrow it; library picks the libraries (default all). ${scrollPaging}`
        })
      )
  )
) {}

/** The ad searches' part of the contract (kernel/Contract.ts), with the S3 alias. */
export class AdLibraryContract extends contractPart()
  .add(AdLibraryApi)
  .add(alias(AdLibraryApi, { from: "/api/v1/adlibrary", to: "/api/adlibrary" }))
  .add(AdsApi)
{}

/** Similar ads' part of the contract, with the legacy session path (S4). */
export class MagicAiContract extends contractPart()
  .add(MagicAiApi)
  .add(legacy(MagicAiApi, { from: "/api/v1/magic-ai", to: "/api/magic-ai" }))
{}
