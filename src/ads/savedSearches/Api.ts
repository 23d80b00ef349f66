import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { metered, type PlanName } from "../../access/gateway/Api.js"
import { contractPart } from "../../kernel/Contract.js"
import { NotFoundBody } from "../../kernel/Errors.js"
import { JsonObject } from "../../kernel/Json.js"
import { defaultPageSize, maxPageSize, maxPageWindow } from "../../kernel/Paging.js"
import { IdPath, Choice } from "../../kernel/Params.js"
import { SavedSearchId } from "../../kernel/Ids.js"
import { param, strictStruct, Words } from "../../kernel/QueryParams.js"
import { inProduct } from "../../kernel/Products.js"
import { AdPage } from "../library/Api.js"
import { defaultLimit, maxLimit } from "../library/Filters.js"
import { McpTool, noTool, pagePaging, scrollPaging, tool } from "../../kernel/McpTool.js"

/** Why these routes are no MCP tools (kernel/McpTool.ts). */
const notTool = noTool("Saving and deleting searches changes what the account is sent (inbox, events, webhooks): left to the user, not a language model")

/**
 * Saved searches (issue 32; INTERPRETATIONS H1): an ad-library search kept by name, whose new
 * matches the import finds. Contract only.
 */

export const savedSearchesPrefix = "/api/v1/saved-searches"

/** H1's names of the libraries; `short-video` is the short-video library (`clipapp` in its routes). */
export const savedLibraries = ["social", "pinboard", "short-video", "search"] as const
export const SavedLibrary = Choice(...savedLibraries)
export type SavedLibrary = typeof SavedLibrary.Type

/** How many searches an account keeps on each plan (the free plan calls no metered route). */
export const savedSearchLimits: Readonly<Record<PlanName, number>> = { free: 0, basic: 20, pro: 100, premium: 500 }

export const maxNameLength = 100

export const NewSavedSearch = strictStruct({
  name: Words(maxNameLength).annotations({ description: `1 to ${maxNameLength} characters (trimmed)` }),
  library: SavedLibrary,
  filters: JsonObject.annotations({
    description: "The library search's own query parameters (`q`, `country`, `min_likes`, ...), validated exactly as that search validates them; " +
      "values as its query string carries them (numbers may be JSON numbers, lists arrays). `limit`, `sort` and `scroll_token` are paging, not filters: dropped."
  })
}, "body")
export type NewSavedSearch = typeof NewSavedSearch.Type

/** A decoded filter's value: a text, a number, or a list of texts (AdFilters). */
export const FilterValue = Schema.Union(Schema.String, Schema.Number, Schema.Array(Schema.String))

/** The filters as the search decoded them, by name. */
export const SavedFilters = Schema.Record({ key: Schema.String, value: FilterValue })

export const SavedSearch = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  library: SavedLibrary,
  filters: SavedFilters.annotations({ description: "The filters as the search decoded them" }),
  created_at: Schema.String,
  last_checked_at: Schema.NullOr(Schema.String).annotations({ description: "When an import last looked for its new matches; null before the first" })
}).annotations({ identifier: "SavedSearch" })
export type SavedSearch = typeof SavedSearch.Type

/** One saved search's part of a `saved_search.matches_new` event (H3): its new matches in one import. */
export const SearchMatches = Schema.Struct({
  saved_search_id: SavedSearchId,
  library: Schema.String,
  count: Schema.Int,
  ad_ids: Schema.Array(Schema.String).annotations({ description: "Its newest matches, newest first: a share of the event's 100" })
})
export type SearchMatches = typeof SearchMatches.Type

/**
 * A `saved_search.matches_new` event's `data` since issue 44: one event per account and import,
 * naming each of its searches that matched (SPEC-NOTES "One event per account and import").
 */
export const ImportMatches = Schema.Struct({
  import_id: Schema.String,
  saved_searches: Schema.Array(SearchMatches)
})

/** Either shape a `saved_search.matches_new` event's `data` has had: per account and import, or (before issue 44) per search. */
export const MatchesNewData = Schema.Union(ImportMatches, SearchMatches)

/** The searches a decoded `saved_search.matches_new` event tells of. */
export const searchesTold = (data: typeof MatchesNewData.Type): ReadonlyArray<SearchMatches> =>
  "saved_searches" in data ? data.saved_searches : [data]

export const SavedSearchAnswer = Schema.Struct({ success: Schema.Literal(true), saved_search: SavedSearch })

export const SavedSearchesQuery = strictStruct({
  page: Schema.optional(param.int(1, maxPageWindow, "Page number, from 1").query),
  page_size: Schema.optional(param.int(1, maxPageSize, `Searches per page, 1 to ${maxPageSize} (default ${defaultPageSize})`).query)
}, "query")
export type SavedSearchesQuery = typeof SavedSearchesQuery.Type

export const SavedSearchPage = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Array(SavedSearch).annotations({ description: "Newest first" }),
  total: Schema.Int,
  page: Schema.Int,
  page_size: Schema.Int
})

export const MatchesQuery = strictStruct({
  limit: Schema.optional(param.int(1, maxLimit, `Page size of the first request, 1 to ${maxLimit} (default ${defaultLimit}); the token keeps it`).query),
  scroll_token: Schema.optional(Schema.String.pipe(Schema.maxLength(8_192, { message: () => "must be a token of at most 8192 characters" })).annotations({
    description: "The `scroll_token` of the previous answer: the next page"
  }))
}, "query")
export type MatchesQuery = typeof MatchesQuery.Type

export const Deleted = Schema.Struct({ success: Schema.Literal(true) })

export class SavedSearchesApi extends metered(
  HttpApiGroup.make("savedSearches").annotateContext(inProduct("Ad libraries"))
    .add(
      HttpApiEndpoint.post("create", savedSearchesPrefix)
        .annotate(McpTool, notTool)
        .setPayload(NewSavedSearch)
        .addSuccess(SavedSearchAnswer)
        .annotate(OpenApi.Summary, "Save an ad-library search: its new matches show in `/matches`, the inbox and `saved_search.matches_new` events")
        .annotate(
          OpenApi.Description,
          "A bad filter is the 400 the library's search gives for it. Past the plan's limit: 400 `Saved searches are limited to <n> on the <Plan> plan`."
        )
    )
    .add(
      HttpApiEndpoint.get("list", savedSearchesPrefix)
        .annotate(McpTool, tool("list_saved_searches", {
          title: "Saved searches",
          description: `The account's saved ad-library searches, newest first: name, library, filters, when saved and when an import last looked for matches. ${pagePaging}`
        }))
        .setUrlParams(SavedSearchesQuery)
        .addSuccess(SavedSearchPage)
        .annotate(OpenApi.Summary, "The account's saved searches, newest first (INTERPRETATIONS P2)")
    )
    .add(
      HttpApiEndpoint.del("delete", `${savedSearchesPrefix}/:id`)
        .annotate(McpTool, notTool)
        .setPath(IdPath)
        .addError(NotFoundBody)
        .addSuccess(Deleted)
        .annotate(OpenApi.Summary, "Delete a saved search and its matches; another account's is a 404")
    )
    .add(
      HttpApiEndpoint.get("matches", `${savedSearchesPrefix}/:id/matches`)
        .annotate(McpTool, tool("saved_search_matches", {
          title: "New matches of a saved search",
          description: `The ads imported since a saved search (id from list_saved_searches) was saved that match it, newest first. ${scrollPaging}`
        }))
        .setPath(IdPath)
        .setUrlParams(MatchesQuery)
        .addError(NotFoundBody)
        .addSuccess(AdPage)
        .annotate(OpenApi.Summary, "The ads an import found for a saved search: first seen after it was saved, newest first")
        .annotate(OpenApi.Description, `Keyset-paginated (INTERPRETATIONS P1): \`limit\` 1-${maxLimit} on the first request, then \`scroll_token\` alone.`)
    )
) {}

/** Saved searches' part of the contract. */
export class SavedSearchesContract extends contractPart().add(SavedSearchesApi) {}
