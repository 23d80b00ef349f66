import { Schema } from "effect"
import { CountryCode, Domain, ExternalId, LanguageCode } from "../../kernel/Fields.js"
import { Choice } from "../../kernel/Params.js"
import { type Param, param, strictStruct } from "../../kernel/QueryParams.js"
import { keysOf } from "../../kernel/Guards.js"

export { Words } from "../../kernel/QueryParams.js"

/**
 * The ad search filters, declared once (issue 4, "Searching"). Each library's route takes the
 * common filters plus the engagement ranges its library shows; the same declaration gives the
 * GET query schema (strings, lists as `a,b` or repeated), the POST body schema of magic-ai
 * (JSON values) and the OpenAPI parameters.
 */

export const libraries = ["social", "pinboard", "clipapp", "search"] as const
export type Library = (typeof libraries)[number]

/**
 * The libraries by the names H1 and H4 give them (saved searches, RPC exports): `short-video` is
 * the short-video library, `clipapp` in its routes.
 */
export const libraryByPublicName = { social: "social", pinboard: "pinboard", "short-video": "clipapp", search: "search" } as const satisfies Record<string, Library>
export type PublicLibraryName = keyof typeof libraryByPublicName

/** A library's public name (H1, H4). */
export const publicNameOf: Record<Library, PublicLibraryName> = { social: "social", pinboard: "pinboard", clipapp: "short-video", search: "search" }

export const engagementMetrics = ["likes", "comments", "shares", "views"] as const
export type EngagementMetric = (typeof engagementMetrics)[number]

/** What each library shows of an ad's engagement (spec: "engagement ranges where the library has them"). */
export const engagementOf: Record<Library, ReadonlyArray<EngagementMetric>> = {
  social: ["likes", "comments", "shares"],
  pinboard: ["likes", "comments"],
  clipapp: ["likes", "comments", "shares", "views"],
  search: []
}

export const sorts = ["relevance", "newest", "oldest", "longest_running", "most_engagement"] as const
export type Sort = (typeof sorts)[number]

/** P1: `limit` on the first request. */
export const maxLimit = 50
export const defaultLimit = 20
const message = (text: string) => ({ message: () => ({ message: text, override: true }) })

const same = param.same
const int = param.int
const list = param.list

const CtaType = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_]{1,50}$/), Schema.annotations(message("must be a call-to-action type such as SHOP_NOW")))
const Word = (what: string) => Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_.-]{1,100}$/), Schema.annotations(message(`must be ${what}`)))
const Count = 1_000_000_000_000

const commonFilters = {
  q: param.text(500, "Full text over body, headline, description and advertiser name (web-search syntax: \"phrase\", or, -word)"),
  advertiser_id: same(ExternalId.annotations({ description: "The advertiser's id (`advertiser.id` of an ad)" })),
  domain: same(Domain.annotations({ description: "Landing page domain" })),
  status: same(Choice("active", "inactive")),
  format: list(Choice("image", "video", "carousel", "text", "dpa"), "Any of these formats"),
  country: list(CountryCode, "Ads targeting any of these countries (ISO 3166-1 alpha-2)"),
  language: list(LanguageCode, "Any of these languages (ISO 639-1)"),
  platform: list(Word("a publisher platform such as feed"), "Shown on any of these placements (`publisher_platforms`)"),
  niche: list(Word("a niche such as beauty"), "Any of these niches"),
  cta: list(CtaType, "Any of these call-to-action types, such as SHOP_NOW"),
  first_seen_from: param.day("First seen on or after this day (UTC)"),
  first_seen_to: param.day("First seen on or before this day (UTC)"),
  last_seen_from: param.day("Last seen on or after this day (UTC)"),
  last_seen_to: param.day("Last seen on or before this day (UTC)"),
  min_days_running: int(0, 100_000, "Running at least this many days"),
  max_days_running: int(0, 100_000, "Running at most this many days")
}

const engagementFilters = {
  min_likes: int(0, Count, "At least this many likes"),
  max_likes: int(0, Count, "At most this many likes"),
  min_comments: int(0, Count, "At least this many comments"),
  max_comments: int(0, Count, "At most this many comments"),
  min_shares: int(0, Count, "At least this many shares"),
  max_shares: int(0, Count, "At most this many shares"),
  min_views: int(0, Count, "At least this many views"),
  max_views: int(0, Count, "At most this many views")
}

/** Every filter a search may carry, decoded: what the repository turns into SQL. */
export interface AdFilters {
  readonly q?: string
  readonly advertiser_id?: string
  readonly domain?: string
  readonly status?: "active" | "inactive"
  readonly format?: ReadonlyArray<string>
  readonly country?: ReadonlyArray<string>
  readonly language?: ReadonlyArray<string>
  readonly platform?: ReadonlyArray<string>
  readonly niche?: ReadonlyArray<string>
  readonly cta?: ReadonlyArray<string>
  readonly first_seen_from?: string
  readonly first_seen_to?: string
  readonly last_seen_from?: string
  readonly last_seen_to?: string
  readonly min_days_running?: number
  readonly max_days_running?: number
  readonly min_likes?: number
  readonly max_likes?: number
  readonly min_comments?: number
  readonly max_comments?: number
  readonly min_shares?: number
  readonly max_shares?: number
  readonly min_views?: number
  readonly max_views?: number
  /** magic-ai only: the libraries to look in (every route above fixes its own). */
  readonly library?: ReadonlyArray<Library>
}

/** The names of the filters a library's search takes, in documentation order. */
export const filterNames = (library: Library | "any"): ReadonlyArray<keyof AdFilters> => [
  ...keysOf(commonFilters),
  ...(library === "any" ? engagementMetrics : engagementOf[library]).flatMap((m) => [`min_${m}`, `max_${m}`] as const)
]

const sortsOf = (library: Library | "any") => (library === "search" ? sorts.filter((s) => s !== "most_engagement") : sorts)

/** The fields of one library's filters in one encoding. */
const fieldsOf = (library: Library | "any", encoding: "query" | "body") => {
  // (`any`: the filters decode to different types; a field is built from whichever one `name` is.)
  const all: Record<string, Param<any>> = { ...commonFilters, ...engagementFilters }
  const fields: Record<string, Schema.PropertySignature.Any | Schema.Schema.Any> = {}
  for (const name of filterNames(library)) fields[name] = Schema.optional(all[name]![encoding])
  fields.sort = Schema.optional(
    Choice(...sortsOf(library)).annotations({ description: "Order of the results; `relevance` (needs `q`) is the default when `q` is given, else `newest`" })
  )
  fields.limit = Schema.optional(
    int(1, maxLimit, `Page size of the first request, 1 to ${maxLimit} (default ${defaultLimit}); the token keeps it`)[encoding]
  )
  // A similar-ads token carries the copy it compares with (up to 5,000 characters).
  const tokenLength = { query: 8_192, body: 32_768 }
  fields.scroll_token = Schema.optional(
    Schema.String.pipe(
      Schema.maxLength(tokenLength[encoding], { message: () => `must be a token of at most ${tokenLength[encoding]} characters` })
    ).annotations({
      description: "The `scroll_token` of the previous answer: the next page. It carries the filters, sort and limit."
    })
  )
  return fields
}

/**
 * A query string schema of fields built from the filter table, typed as `P`, what it decodes to.
 * Unknown parameters are refused (G11). (`as unknown as`: the fields are built from a table per
 * library, so Schema types them as a plain record; each `P` is checked field by field by the
 * tests of its routes.)
 */
const queryOf = <P>(fields: Schema.Struct.Fields) =>
  strictStruct(fields, "query") as unknown as Schema.Schema<P, Record<string, string | ReadonlyArray<string> | undefined>>

/** The query string a library's search route takes. */
export const SearchQuery = (library: Library) => queryOf<SearchParams>(fieldsOf(library, "query"))

/** What a search of one advertiser's ads carries: `id` names the advertiser, in place of `advertiser_id`. */
export interface AdvertiserAdsParams extends Omit<SearchParams, "advertiser_id"> {
  readonly id?: string
}

/**
 * The query string of one advertiser's ads (the brand tracker's `brands/ads`, W1): a library's
 * search with `id` for the advertiser, required on a first page (the service checks it).
 */
export const AdvertiserAdsQuery = (library: Library) => {
  const { advertiser_id: _advertiser, ...fields } = fieldsOf(library, "query")
  const id = ExternalId.annotations({ description: "The brand: the advertiser's id (`advertiser.id` of its ads); needed unless `scroll_token` is sent" })
  return queryOf<AdvertiserAdsParams>({ id: Schema.optional(id), ...fields })
}

/** The files a bulk export writes (issue 32). */
export const exportFormats = ["ndjson", "csv"] as const
export type ExportFormat = (typeof exportFormats)[number]

/** What a bulk export request carries, decoded: a search's filters and sort, and the file's format. */
export interface ExportParams extends Omit<SearchParams, "limit" | "scroll_token" | "format"> {
  /** The search's `format` filter (image, video, ...): `format` names the file here. */
  readonly ad_format?: ReadonlyArray<string>
  readonly format?: ExportFormat
}

/**
 * The query string of a library's bulk export (issue 32): the search's filters and sort, with
 * `format` naming the file (`ndjson`, the default, or `csv`) and the ads' format filter renamed
 * `ad_format`. No `limit` or `scroll_token`: an export sends every match, a page of 100 at a time.
 */
export const ExportQuery = (library: Library) => {
  const { format: adFormat, limit: _limit, scroll_token: _token, ...fields } = fieldsOf(library, "query")
  const format = Choice(...exportFormats).annotations({ description: "The file: `ndjson` (one ad per line, as the search shows it; the default) or `csv`" })
  return queryOf<ExportParams>({ ...fields, ad_format: adFormat!, format: Schema.optional(format) })
}

/** What a search request carries, decoded. */
export interface SearchParams extends AdFilters {
  readonly sort?: Sort
  readonly limit?: number
  readonly scroll_token?: string
  readonly api_key?: string
}

/** The filter fields of magic-ai's JSON body (all libraries; `library` picks some). */
export const bodyFilterFields = {
  ...fieldsOf("any", "body"),
  library: Schema.optional(list(Choice(...libraries), "Look only in these libraries (default: all)").body)
} as Record<string, Schema.PropertySignature.Any | Schema.Schema.Any>

/** Filters without the paging fields, in a canonical form: what a scroll token carries. */
export const filtersOf = (params: SearchParams): AdFilters => {
  const { api_key: _key, limit: _limit, scroll_token: _token, sort: _sort, ...filters } = params
  return Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined).sort(([a], [b]) => a.localeCompare(b))) as AdFilters
}
