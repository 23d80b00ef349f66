import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { NotFoundBody } from "../../kernel/Errors.js"
import { Schema } from "effect"
import { CountryCode, ExternalId } from "../../kernel/Fields.js"
import { metered } from "../../access/gateway/Api.js"
import { defaultPageSize, maxPageSize } from "../../kernel/Paging.js"
import { Choice } from "../../kernel/Params.js"
import { param, strictStruct } from "../../kernel/QueryParams.js"
import { shopPrefix } from "../account/Api.js"
import { contractPart } from "../../kernel/Contract.js"
import { legacy } from "../../access/session/Legacy.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, noTool } from "../../kernel/McpTool.js"

/** Why these routes are no MCP tools (kernel/McpTool.ts). */
const notTool = noTool("Account settings are not research")

/**
 * The account's short-video shop favorites (issue 5; spec: Short-video shop API, Favorites;
 * States and transitions). Contract only.
 */

const prefix = `${shopPrefix}/favorites`

/** A hard cap per account: favorites are bookmarks, not a second catalog. */
export const maxFavorites = 10_000
/** How many ids one `favorites/check` may ask about. */
export const maxCheckIds = 100

export const favoriteTypes = ["product", "shop", "creator", "video", "category"] as const
export const FavoriteType = Choice(...favoriteTypes)
export type FavoriteType = typeof FavoriteType.Type

const type = FavoriteType.annotations({ description: `The entity's type: ${favoriteTypes.join(", ")}` })
const id = ExternalId.annotations({ description: "The entity's id, as imported (`external_id`)" })
const region = CountryCode.annotations({
  description: "The entity's region (ISO 3166-1 alpha-2); needed only when the id exists in several regions"
})

/** Which entity: toggle, add and remove. */
export const FavoriteTarget = strictStruct({ type, id, region: Schema.optional(region) }, "body")
export type FavoriteTarget = typeof FavoriteTarget.Type

const idsMessage = `must have 1 to ${maxCheckIds} items`

/** `check`: one `id`, or up to 100 `ids` of one type (the service wants exactly one of the two). */
export const FavoriteCheck = strictStruct({
  type,
  id: Schema.optional(id.annotations({ description: "The entity's id, as imported; send this or `ids`" })),
  ids: Schema.optional(
    Schema.Array(ExternalId).pipe(
      Schema.minItems(1, { message: () => idsMessage }),
      Schema.maxItems(maxCheckIds, { message: () => idsMessage }),
      Schema.annotations({ description: `1 to ${maxCheckIds} ids of entities of \`type\`; send this or \`id\`` })
    )
  ),
  region: Schema.optional(region)
}, "body")
export type FavoriteCheck = typeof FavoriteCheck.Type

export const FavoritesQuery = strictStruct({
  type: Schema.optional(FavoriteType.annotations({ description: "Only favorites of this type" })),
  // No account holds more than `maxFavorites`: no later page could hold anything, so offsets stay small.
  page: Schema.optional(param.int(1, maxFavorites, "Page number, from 1").query),
  page_size: Schema.optional(param.int(1, maxPageSize, `Favorites per page, 1 to ${maxPageSize} (default ${defaultPageSize})`).query),
}, "query")
export type FavoritesQuery = typeof FavoritesQuery.Type

export const Favorite = Schema.Struct({
  type: FavoriteType.annotations({ description: "The entity's type" }),
  id: Schema.String.annotations({ description: "The entity's id, as imported" }),
  region: Schema.String.annotations({ description: "The entity's region" }),
  name: Schema.NullOr(Schema.String).annotations({
    description: "A product's title, a shop's or category's name, a creator's handle, a video's description (null when it has none)"
  }),
  favorited_at: Schema.String.annotations({ description: "When it was favorited (UTC instant)" })
})
export type Favorite = typeof Favorite.Type

/** P2's answer. */
export const FavoritePage = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Array(Favorite).annotations({ description: "Newest first" }),
  total: Schema.Int.annotations({ description: "Favorites matching, on every page" }),
  page: Schema.Int,
  page_size: Schema.Int
})

export const Favorited = Schema.Struct({
  success: Schema.Literal(true),
  favorited: Schema.Boolean.annotations({ description: "Whether the entity is a favorite of the account now" })
})

export const FavoritedMany = Schema.Struct({
  success: Schema.Literal(true),
  favorited: Schema.Union(
    Schema.Boolean,
    Schema.Record({ key: Schema.String, value: Schema.Boolean })
  ).annotations({ description: "For `id`: whether it is a favorite. For `ids`: each id sent, mapped to whether it is a favorite" })
})

const targetNote =
  "The entity is `type` and `id` (its imported id), with `region` when the id exists in several regions; an unknown entity is a 404 `<Type> not found`."

export class ShopFavoritesApi extends metered(
  HttpApiGroup.make("shopFavorites").annotateContext(inProduct("Short-video shop"))
    .add(
      HttpApiEndpoint.get("list", prefix)
        .annotate(McpTool, notTool)
        .setUrlParams(FavoritesQuery)
        .addSuccess(FavoritePage)
        .annotate(OpenApi.Summary, "The account's favorite products, shops, creators, videos and categories, newest first")
        .annotate(OpenApi.Description, `Paged (INTERPRETATIONS P2): \`page\` from 1, \`page_size\` 1-${maxPageSize}.`)
    )
    .add(
      HttpApiEndpoint.post("toggle", `${prefix}/toggle`)
        .annotate(McpTool, notTool)
        .addError(NotFoundBody)
        .setPayload(FavoriteTarget)
        .addSuccess(Favorited)
        .annotate(OpenApi.Summary, "Toggle a favorite: adds it when absent, removes it when present")
        .annotate(OpenApi.Description, `${targetNote} An account holds at most ${maxFavorites} favorites.`)
    )
    .add(
      HttpApiEndpoint.post("add", `${prefix}/add`)
        .annotate(McpTool, notTool)
        .addError(NotFoundBody)
        .setPayload(FavoriteTarget)
        .addSuccess(Favorited)
        .annotate(OpenApi.Summary, "Add a favorite; adding one already there changes nothing")
        .annotate(OpenApi.Description, `${targetNote} An account holds at most ${maxFavorites} favorites.`)
    )
    .add(
      HttpApiEndpoint.post("remove", `${prefix}/remove`)
        .annotate(McpTool, notTool)
        .addError(NotFoundBody)
        .setPayload(FavoriteTarget)
        .addSuccess(Favorited)
        .annotate(OpenApi.Summary, "Remove a favorite; removing one that is not there changes nothing")
        .annotate(OpenApi.Description, targetNote)
    )
    .add(
      HttpApiEndpoint.post("check", `${prefix}/check`)
        .annotate(McpTool, notTool)
        .addError(NotFoundBody)
        .setPayload(FavoriteCheck)
        .addSuccess(FavoritedMany)
        .annotate(OpenApi.Summary, "Whether an entity, or each of up to 100 entities of one type, is a favorite")
        .annotate(
          OpenApi.Description,
          `${targetNote} With \`ids\`, an id that names no entity is simply \`false\`.`
        )
    )
) {}

/** Favorites' part of the contract (kernel/Contract.ts), also under the browser session's legacy prefix (S4). */
export class ShopFavoritesContract extends contractPart()
  .add(ShopFavoritesApi)
  .add(legacy(ShopFavoritesApi, { from: shopPrefix, to: "/api/clipapp-shop" }))
{}
