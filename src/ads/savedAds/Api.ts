import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { metered } from "../../access/gateway/Api.js"
import { contractPart } from "../../kernel/Contract.js"
import { ConflictBody, NotFoundBody } from "../../kernel/Errors.js"
import { defaultPageSize, maxPageSize } from "../../kernel/Paging.js"
import { param, strictStruct, Words } from "../../kernel/QueryParams.js"
import {
  AdId,
  AdLibrary,
  AdSort,
  BoardId,
  Done,
  maxNoteLength,
  maxPage,
  maxTagLength,
  maxTags,
  SavedAd,
  SavedAdPage,
  savedAdsPrefix
} from "../workspace/Api.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, pagePaging, tool } from "../../kernel/McpTool.js"

/**
 * Saved ads (issue 19; INTERPRETATIONS W4): save an ad on a board (or the account's default
 * "Saved ads" board), unsave it, list what is saved, and keep a note and tags on each. The
 * folders and boards are the workspace's (`/api/v1/saved-ads/*` mirrors them). Contract only.
 */

const which = {
  ad_id: AdId,
  library: Schema.optional(AdLibrary)
}

export const SaveAd = strictStruct({
  ...which,
  board_id: Schema.optional(BoardId.annotations({ description: "The board; without it, the account's default \"Saved ads\" board" }))
}, "body")
export type SaveAd = typeof SaveAd.Type

export const UnsaveAd = strictStruct({
  ...which,
  board_id: Schema.optional(BoardId.annotations({ description: "Off this board only; without it, off every board" }))
}, "body")
export type UnsaveAd = typeof UnsaveAd.Type

const Tag = Words(maxTagLength).annotations({ description: `A tag, 1 to ${maxTagLength} characters (trimmed)` })
const tagsMessage = `must have at most ${maxTags} items`

export const AnnotateAd = strictStruct({
  ...which,
  note: Schema.optional(
    Schema.NullOr(
      Schema.String.pipe(
        Schema.maxLength(maxNoteLength, { message: () => `must be a text of at most ${maxNoteLength} characters` })
      )
    ).annotations({ description: `The account's note on the ad, at most ${maxNoteLength} characters; null or "" clears it` })
  ),
  tags: Schema.optional(
    Schema.Array(Tag).pipe(
      Schema.maxItems(maxTags, { message: () => tagsMessage }),
      Schema.annotations({ description: `The ad's tags, at most ${maxTags} (replacing the ones it had; [] clears them)` })
    )
  )
}, "body")
export type AnnotateAd = typeof AnnotateAd.Type

export const SavedAdsQuery = strictStruct({
  board_id: Schema.optional(BoardId.annotations({ description: "Only the ads on this board" })),
  tag: Schema.optional(param.text(maxTagLength, "Only the ads with this tag (whatever the case)").query),
  sort: Schema.optional(AdSort.annotations({
    description: "`newest_saved` (default), `first_seen` (the ad's, newest first), `days_running` (longest first)"
  })),
  page: Schema.optional(param.int(1, maxPage, "Page number, from 1").query),
  page_size: Schema.optional(param.int(1, maxPageSize, `Ads per page, 1 to ${maxPageSize} (default ${defaultPageSize})`).query)
}, "query")
export type SavedAdsQuery = typeof SavedAdsQuery.Type

export const Annotated = Schema.Struct({ success: Schema.Literal(true), data: SavedAd })

const adNote = "The ad is `ad_id` (its id in its library), with `library` when that id exists in several libraries."

export class SavedAdsApi extends metered(
  HttpApiGroup.make("savedAds").annotateContext(inProduct("Workspace"))
    .add(
      HttpApiEndpoint.get("list", savedAdsPrefix)
        .annotate(McpTool, tool("list_saved_ads", {
          title: "Saved ads",
          description: `The account's saved ads (as saved, even if the library dropped them), with when they were saved, their boards, note and tags; filter board_id or tag. ${pagePaging}`
        }))
        .addError(NotFoundBody)
        .setUrlParams(SavedAdsQuery)
        .addSuccess(SavedAdPage)
        .annotate(OpenApi.Summary, "The account's saved ads: the ad records with `saved_at`, `board_ids`, `note` and `tags`")
        .annotate(
          OpenApi.Description,
          "Paged (INTERPRETATIONS P2). An ad the library no longer has is shown as it was saved (`in_library: false`). Another account's board is a 404."
        )
    )
    .add(
      HttpApiEndpoint.post("save", `${savedAdsPrefix}/save`)
        .annotate(McpTool, tool("save_ad", {
          title: "Save an ad",
          description: "Saves an ad (ad_id from any ad search) on a board (board_id), or on the default \"Saved ads\" board; saving again changes nothing."
        }))
        .addError(NotFoundBody)
        .setPayload(SaveAd)
        .addSuccess(Done)
        .addError(ConflictBody)
        .annotate(OpenApi.Summary, "Save an ad on a board, or on the default \"Saved ads\" board; saving it again changes nothing")
        .annotate(OpenApi.Description, `${adNote} An unknown ad is a 404 \`Ad not found\`; a full board is a 409.`)
    )
    .add(
      HttpApiEndpoint.post("unsave", `${savedAdsPrefix}/unsave`)
        .annotate(McpTool, tool("unsave_ad", {
          title: "Unsave an ad",
          description: "Removes a saved ad from a board (board_id), or from every board when none is given."
        }))
        .addError(NotFoundBody)
        .setPayload(UnsaveAd)
        .addSuccess(Done)
        .annotate(OpenApi.Summary, "Take an ad off a board, or off every board; an ad on no board is no longer saved")
        .annotate(OpenApi.Description, `${adNote} Unsaving what is not saved changes nothing.`)
    )
    .add(
      HttpApiEndpoint.post("annotate", `${savedAdsPrefix}/annotate`)
        .annotate(McpTool, tool("annotate_saved_ad", {
          title: "Note and tags on a saved ad",
          description: "Sets the note (up to 2,000 characters) and tags (up to 20) of a saved ad."
        }))
        .addError(NotFoundBody)
        .setPayload(AnnotateAd)
        .addSuccess(Annotated)
        .annotate(OpenApi.Summary, "Set the note and/or the tags of a saved ad")
        .annotate(OpenApi.Description, `${adNote} An ad the account has not saved is a 404 \`Saved ad not found\`.`)
    )
) {}

/**
 * Saved ads' part of the contract. No legacy session twin: S4 names the dashboard's legacy
 * prefixes, and `/api/saved-ads` is not one of them.
 */
export class SavedAdsContract extends contractPart().add(SavedAdsApi) {}
