import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { metered } from "../../access/gateway/Api.js"
import { legacy } from "../../access/session/Legacy.js"
import { contractPart } from "../../kernel/Contract.js"
import { ApiError, envelope } from "../../kernel/Envelope.js"
import { ConflictBody, NotFoundBody } from "../../kernel/Errors.js"
import { ExternalId } from "../../kernel/Fields.js"
import { alias } from "../../kernel/Mirror.js"
import { defaultPageSize, maxPageSize } from "../../kernel/Paging.js"
import { Choice } from "../../kernel/Params.js"
import { param, strictStruct, Words } from "../../kernel/QueryParams.js"
import { AdView, brandIdText } from "../library/Api.js"
import { libraries } from "../library/Filters.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, noTool, pagePaging, tool } from "../../kernel/McpTool.js"

/** Why the routes that change or delete what a user built are no MCP tools (kernel/McpTool.ts). */
const rearranges = noTool("Rearranges or deletes what a user built, which a language model should not do on its own")

/** Why the other workspace lists are no MCP tools. */
const staysRest = noTool("Not among the workspace tools (the tree, create, add, remove, a board's ads, share): listing a board's brands and the links made stays REST")

/**
 * The workspace (issue 19; INTERPRETATIONS W3, W4): folders hold boards, a board holds brands
 * and saved ads, and a share link shows one board read-only. Every route is metered under
 * `/api/v1/brands/*` (W3's three pinned routes and the rest beside them), mirrored under
 * `/api/v1/saved-ads/*` (W4: the same folders and boards) and under the browser session at
 * `/api/brands/*` (S4). The public share view is `/share/{token}`. Contract only.
 *
 * GET paths here are static names (never a brand tab's name): the brand tabs own the
 * parametric `GET /api/v1/brands/{tab}`.
 */

export const brandsPrefix = "/api/v1/brands"
export const savedAdsPrefix = "/api/v1/saved-ads"

export const maxNameLength = 100
/** spec: issue 19, "Notes and tags on a saved ad". */
export const maxNoteLength = 2_000
export const maxTags = 20
export const maxTagLength = 50
/** spec: W3, share links expire: 30 days unless asked otherwise, at most a year. */
export const defaultShareDays = 30
export const maxShareDays = 365
/** The deepest page a board list reaches: boards are capped well below this. */
export const maxPage = 100_000

const uuidOf = (what: string, description: string) =>
  Schema.UUID.annotations({ message: () => ({ message: `must be a ${what} id (a UUID)`, override: true }), description })

export const FolderId = uuidOf("folder", "A folder's id, as `create-folder` or `folders-with-boards` answered it")
export const BoardId = uuidOf("board", "A board's id, as `create-board` or `folders-with-boards` answered it")
export const ShareLinkId = uuidOf("share link", "A share link's id, as `create-share-link` or `share-links` answered it")

export const BrandId = ExternalId.annotations({
  description: "The brand: a social-library advertiser's id (`advertiser.id` of its ads)"
})
export const AdId = ExternalId.annotations({ description: "The ad's id in its library (`id` of an ad)" })
export const AdLibrary = Choice(...libraries).annotations({
  description: `The ad's library (${libraries.join(", ")}); needed only when the id exists in several`
})
export type AdLibrary = typeof AdLibrary.Type

const name = (what: string, unique: string) =>
  Words(maxNameLength).annotations({ description: `The ${what}'s name, 1 to ${maxNameLength} characters (trimmed); unique ${unique}, whatever the case` })
const folderName = name("folder", "per account")
const boardName = name("board", "per folder")
const position = param.int(1, maxPage, "Where to put it: 1 is first; past the end is last").body

// ---------------------------------------------------------------------------------------------
// Answers

export const BoardSummary = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  brands_count: Schema.Int.annotations({ description: "Brands on the board" }),
  ads_count: Schema.Int.annotations({ description: "Saved ads on the board" })
})
export type BoardSummary = typeof BoardSummary.Type

export const Folder = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  boards: Schema.Array(BoardSummary).annotations({ description: "In the folder's order" })
})
export type Folder = typeof Folder.Type

export const Board = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  folder_id: Schema.String,
  brands_count: Schema.Int,
  ads_count: Schema.Int
})
export type Board = typeof Board.Type

export const FoldersWithBoards = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Array(Folder).annotations({ description: "The account's folders in their order, each with its boards" })
})
export const FolderAnswer = Schema.Struct({ success: Schema.Literal(true), folder: Folder })
export const BoardAnswer = Schema.Struct({ success: Schema.Literal(true), board: Board })
export const Done = Schema.Struct({ success: Schema.Literal(true) })
export const FolderDeleted = Schema.Struct({
  success: Schema.Literal(true),
  deleted_boards: Schema.Int.annotations({ description: "Boards deleted with the folder" })
})

export const BoardBrand = Schema.Struct({
  id: Schema.String.annotations({ description: "The brand's id (a social-library advertiser)" }),
  name: Schema.String,
  domain: Schema.NullOr(Schema.String),
  active_ads: Schema.Int.annotations({ description: "Its ads whose status is active now (0 once the library no longer has it)" }),
  in_library: Schema.Boolean.annotations({ description: "Whether the library still has the brand; if not, name and domain are as they were when it was added" }),
  added_at: Schema.String.annotations({ description: "When it was added to the board (UTC instant)" })
})
export type BoardBrand = typeof BoardBrand.Type

/** W4: an ad record with `saved_at` and `board_ids`, and the account's note and tags. */
export const SavedAd = Schema.extend(
  AdView,
  Schema.Struct({
    in_library: Schema.Boolean.annotations({
      description: "Whether the library still has the ad: if so the record is the library's now, if not it is the snapshot taken when it was saved"
    }),
    saved_at: Schema.String.annotations({ description: "When the account first saved it (UTC instant)" }),
    board_ids: Schema.Array(Schema.String).annotations({ description: "The boards it is on, in the order it was added to them" }),
    note: Schema.NullOr(Schema.String),
    tags: Schema.Array(Schema.String)
  })
).annotations({ identifier: "SavedAd" })
export type SavedAd = typeof SavedAd.Type

const pageOf = <A, I>(item: Schema.Schema<A, I>, what: string) =>
  Schema.Struct({
    success: Schema.Literal(true),
    data: Schema.Array(item),
    total: Schema.Int.annotations({ description: `${what} matching, on every page` }),
    page: Schema.Int,
    page_size: Schema.Int
  })
export const BoardBrandPage = pageOf(BoardBrand, "Brands")
export const SavedAdPage = pageOf(SavedAd, "Saved ads")

export const ShareLink = Schema.Struct({
  id: Schema.String,
  board_id: Schema.String,
  created_at: Schema.String,
  expires_at: Schema.String
})
export type ShareLink = typeof ShareLink.Type
export const ShareLinkPage = pageOf(ShareLink, "Live share links")

export const CreatedShareLink = Schema.Struct({
  success: Schema.Literal(true),
  share_link: Schema.extend(
    ShareLink,
    Schema.Struct({
      url: Schema.String.annotations({ description: "The public page: `<base>/share/<token>`; shown this once (only a hash is kept)" }),
      token: Schema.String.annotations({ description: "256 random bits, base64url; shown this once" })
    })
  )
})

// ---------------------------------------------------------------------------------------------
// Requests

export const CreateFolder = strictStruct({ name: folderName }, "body")
export const RenameFolder = strictStruct({ folder_id: FolderId, name: folderName }, "body")
export const MoveFolder = strictStruct({ folder_id: FolderId, position }, "body")
export const DeleteFolder = strictStruct({
  folder_id: FolderId,
  force: Schema.optional(Schema.Boolean.annotations({ description: "Delete the folder's boards with it (needed when it has any)" }))
}, "body")

export const CreateBoard = strictStruct({ folder_id: FolderId, name: boardName }, "body")
export const RenameBoard = strictStruct({ board_id: BoardId, name: boardName }, "body")
export const MoveBoard = strictStruct({
  board_id: BoardId,
  folder_id: Schema.optional(FolderId.annotations({ description: "Another folder of the account to move it to" })),
  position: Schema.optional(position)
}, "body")
export type MoveBoard = typeof MoveBoard.Type
export const DeleteBoard = strictStruct({ board_id: BoardId }, "body")

export const AddToBoard = strictStruct({ board_id: BoardId, brand_id: BrandId }, "body")
export type AddToBoard = typeof AddToBoard.Type
export const RemoveFromBoard = strictStruct({
  board_id: BoardId,
  brand_id: Schema.optional(BrandId.annotations({ description: "A brand to remove; send this or `ad_id`" })),
  ad_id: Schema.optional(AdId.annotations({ description: "A saved ad to remove; send this or `brand_id`" })),
  library: Schema.optional(AdLibrary)
}, "body")
export type RemoveFromBoard = typeof RemoveFromBoard.Type

export const adSorts = ["newest_saved", "first_seen", "days_running"] as const
export const AdSort = Choice(...adSorts)
export type AdSort = typeof AdSort.Type
const sort = AdSort.annotations({
  description: "`newest_saved` (default: latest added first), `first_seen` (the ad's, newest first), `days_running` (longest first)"
})
const paging = {
  page: Schema.optional(param.int(1, maxPage, "Page number, from 1").query),
  page_size: Schema.optional(param.int(1, maxPageSize, `Items per page, 1 to ${maxPageSize} (default ${defaultPageSize})`).query)
}

export const BoardAdsQuery = strictStruct({ board_id: BoardId, sort: Schema.optional(sort), ...paging }, "query")
export type BoardAdsQuery = typeof BoardAdsQuery.Type
export const BoardBrandsQuery = strictStruct({ board_id: BoardId, ...paging }, "query")
export type BoardBrandsQuery = typeof BoardBrandsQuery.Type

export const CreateShareLink = strictStruct({
  board_id: BoardId,
  expires_in_days: Schema.optional(param.int(1, maxShareDays, `Days the link works, 1 to ${maxShareDays} (default ${defaultShareDays})`).body)
}, "body")
export type CreateShareLink = typeof CreateShareLink.Type
export const ShareLinksQuery = strictStruct({
  board_id: Schema.optional(BoardId.annotations({ description: "Only this board's links" })),
  ...paging
}, "query")
export type ShareLinksQuery = typeof ShareLinksQuery.Type
export const RevokeShareLink = strictStruct({ share_link_id: ShareLinkId }, "body")

// ---------------------------------------------------------------------------------------------
// The metered routes

/** An endpoint's path is its name in kebab case: `createFolder` is `/api/v1/brands/create-folder`. */
const pathOf = (name: string) => `${brandsPrefix}/${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}` as const
const post = <const Name extends string>(name: Name, summary: string, description: string) =>
  HttpApiEndpoint.post(name, pathOf(name)).annotate(OpenApi.Summary, summary).annotate(OpenApi.Description, description)
const get = <const Name extends string>(name: Name, summary: string, description: string) =>
  HttpApiEndpoint.get(name, pathOf(name)).annotate(OpenApi.Summary, summary).annotate(OpenApi.Description, description)

const limitsNote = "Limits (configuration): folders per account, boards per folder, items per board, live share links per board; " +
  "over one is a 409 naming it."
const boardNote = "Another account's folder or board is a 404, as an unknown one."

export class WorkspaceApi extends metered(
  HttpApiGroup.make("workspace").annotateContext(inProduct("Workspace"))
    .add(get("foldersWithBoards", "The account's folders, each with its boards and how many brands and ads each holds", "INTERPRETATIONS W3; folders and boards in the account's order.")
      .annotate(McpTool, tool("workspace_folders", {
        title: "Folders and boards",
        description: "The account's workspace: its folders, each with its boards and how many brands and saved ads each holds. Board ids from here go to the other workspace tools."
      })).addSuccess(FoldersWithBoards))
    .add(
      post("createFolder", "Create a folder", `Names are unique per account whatever the case (a duplicate is a 409). ${limitsNote}`)
        .annotate(McpTool, tool("create_folder", {
          title: "Create a folder",
          description: "Creates a workspace folder (name, 1-100 characters, unique per account whatever the case)."
        }))
        .setPayload(CreateFolder).addSuccess(FolderAnswer).addError(ConflictBody)
    )
    .add(post("renameFolder", "Rename a folder", boardNote)
      .annotate(McpTool, rearranges).addError(NotFoundBody).setPayload(RenameFolder).addSuccess(FolderAnswer).addError(ConflictBody))
    .add(post("moveFolder", "Move a folder to another place in the account's order", boardNote)
      .annotate(McpTool, rearranges).addError(NotFoundBody).setPayload(MoveFolder).addSuccess(FolderAnswer))
    .add(
      post("deleteFolder", "Delete a folder", `A folder with boards needs \`force: true\` (else a 409 saying how many it holds); its boards go with it. ${boardNote}`)
        .annotate(McpTool, rearranges)
        .addError(NotFoundBody).setPayload(DeleteFolder).addSuccess(FolderDeleted).addError(ConflictBody)
    )
    .add(
      post("createBoard", "Create a board in a folder", `Names are unique per folder whatever the case. ${limitsNote} ${boardNote}`)
        .annotate(McpTool, tool("create_board", {
          title: "Create a board",
          description: "Creates a board in a folder (folder_id, name). A board holds brands and saved ads."
        }))
        .addError(NotFoundBody).setPayload(CreateBoard).addSuccess(BoardAnswer).addError(ConflictBody)
    )
    .add(post("renameBoard", "Rename a board", boardNote)
      .annotate(McpTool, rearranges).addError(NotFoundBody).setPayload(RenameBoard).addSuccess(BoardAnswer).addError(ConflictBody))
    .add(
      post("moveBoard", "Move a board to another folder and/or another place in its folder", `Send \`folder_id\`, \`position\` or both. ${limitsNote} ${boardNote}`)
        .annotate(McpTool, rearranges)
        .addError(NotFoundBody).setPayload(MoveBoard).addSuccess(BoardAnswer).addError(ConflictBody)
    )
    .add(post("deleteBoard", "Delete a board with its items and share links", boardNote)
      .annotate(McpTool, rearranges).addError(NotFoundBody).setPayload(DeleteBoard).addSuccess(Done))
    .add(
      post("addToBoard", "Add a brand to a board; adding it again changes nothing", `An unknown brand is a 404 \`Brand not found\`. ${limitsNote} ${boardNote}`)
        .annotate(McpTool, tool("add_brand_to_board", {
          title: "Add a brand to a board",
          description: `Adds a brand to a board (board_id, brand_id: ${brandIdText}); adding it again changes nothing.`
        }))
        .addError(NotFoundBody).setPayload(AddToBoard).addSuccess(Done).addError(ConflictBody)
    )
    .add(
      post("removeFromBoard", "Remove a brand or a saved ad from a board; removing what is not there changes nothing", `An ad on no board any more is no longer saved. ${boardNote}`)
        .annotate(McpTool, tool("remove_from_board", {
          title: "Remove from a board",
          description: "Removes a brand or a saved ad from a board; removing what is not there changes nothing."
        }))
        .addError(NotFoundBody).setPayload(RemoveFromBoard).addSuccess(Done)
    )
    .add(
      get("boardAds", "A board's saved ads, paged and sorted", `Paged (INTERPRETATIONS P2). ${boardNote}`)
        .annotate(McpTool, tool("list_board_ads", {
          title: "A board's saved ads",
          description: `The saved ads of a board (board_id), newest saved first, or by first seen or days running. ${pagePaging}`
        }))
        .addError(NotFoundBody).setUrlParams(BoardAdsQuery).addSuccess(SavedAdPage)
    )
    .add(
      get("boardBrands", "A board's brands, latest added first", `Paged (INTERPRETATIONS P2). ${boardNote}`)
        .annotate(McpTool, staysRest)
        .addError(NotFoundBody).setUrlParams(BoardBrandsQuery).addSuccess(BoardBrandPage)
    )
    .add(
      post("createShareLink", "Share a board read-only: a link with a random token that works without a key", `Expires after \`expires_in_days\` (default ${defaultShareDays}, at most ${maxShareDays}); the token is shown once. ${limitsNote} ${boardNote}`)
        .annotate(McpTool, tool("share_board", {
          title: "Share a board",
          description: "Makes a read-only link to a board that works without a key (expires_in_days, default 30, at most 365). The token is shown only in this answer."
        }))
        .addError(NotFoundBody).setPayload(CreateShareLink).addSuccess(CreatedShareLink).addError(ConflictBody)
    )
    .add(
      get("shareLinks", "The account's live share links (not revoked, not expired), newest first", "Paged (INTERPRETATIONS P2). The token is never shown again.")
        .annotate(McpTool, staysRest)
        .addError(NotFoundBody).setUrlParams(ShareLinksQuery).addSuccess(ShareLinkPage)
    )
    .add(
      post("revokeShareLink", "Revoke a share link: its page is a 404 from now on", "Another account's link, or one already revoked, is a 404.")
        .annotate(McpTool, rearranges)
        .addError(NotFoundBody).setPayload(RevokeShareLink).addSuccess(Done)
    )
) {}

// ---------------------------------------------------------------------------------------------
// The public share view

/** Too many views from one client address this minute (the public page has no key to meter). */
export class ShareViewsLimited extends ApiError<ShareViewsLimited>()("ShareViewsLimited", {
  error: Schema.String
}, { status: 429 }) {}
export const ShareViewsLimitedBody = envelope(ShareViewsLimited)

export const SharedAd = Schema.extend(
  AdView,
  Schema.Struct({ in_library: Schema.Boolean, saved_at: Schema.String })
).annotations({ identifier: "SharedAd" })
export type SharedAd = typeof SharedAd.Type

export const SharedBoard = Schema.Struct({
  success: Schema.Literal(true),
  board: Schema.Struct({
    name: Schema.String,
    brands_count: Schema.Int,
    ads_count: Schema.Int,
    expires_at: Schema.String.annotations({ description: "When this link stops working (UTC instant)" })
  }),
  brands: Schema.Array(BoardBrand).annotations({ description: "Every brand of the board, latest added first" }),
  data: Schema.Array(SharedAd).annotations({ description: "A page of its saved ads, latest added first" }),
  total: Schema.Int,
  page: Schema.Int,
  page_size: Schema.Int
})
export type SharedBoard = typeof SharedBoard.Type

export const ShareQuery = strictStruct({ ...paging, sort: Schema.optional(sort) }, "query")
export type ShareQuery = typeof ShareQuery.Type

export class ShareApi extends HttpApiGroup.make("share")
  .annotateContext(inProduct("Workspace"))
  .annotate(McpTool, noTool("The public page of a share link: no key, no credit"))
  .add(
  HttpApiEndpoint.get("view", "/share/:token")
    .addError(NotFoundBody)
    .setPath(Schema.Struct({ token: Schema.String.annotations({ description: "The token of a share link" }) }))
    .setUrlParams(ShareQuery)
    .addSuccess(SharedBoard)
    .addError(ShareViewsLimitedBody)
    .annotate(OpenApi.Summary, "A shared board, read-only: JSON for `Accept: application/json`, an HTML page otherwise")
    .annotate(
      OpenApi.Description,
      "No key, no session, no credit; rate limited per client address (429 with `Retry-After`). An unknown, revoked or expired token is a 404. " +
        "Answers carry `Cache-Control: private, no-store` and `X-Robots-Tag: noindex`."
    )
) {}

/**
 * The workspace's part of the contract: the metered family, its W4 mirror under
 * `/api/v1/saved-ads/*` (S3's alias mechanism: metered alike), its legacy session paths under
 * `/api/brands/*` (S4), and the public share view.
 */
export class WorkspaceContract extends contractPart()
  .add(WorkspaceApi)
  .add(alias(WorkspaceApi, { from: brandsPrefix, to: savedAdsPrefix }))
  .add(legacy(WorkspaceApi, { from: brandsPrefix, to: "/api/brands" }))
  .add(ShareApi)
{}
