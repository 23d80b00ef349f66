import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ConflictBody, NotFoundBody } from "../../kernel/Errors.js"
import { metered } from "../../access/gateway/Api.js"
import { defaultPageSize, maxPageSize } from "../../kernel/Paging.js"
import { Choice } from "../../kernel/Params.js"
import { param, strictStruct, Words } from "../../kernel/QueryParams.js"
import { shopPrefix } from "../account/Api.js"
import { exploreParams, shopEntities, type ShopEntity } from "../catalog/Entities.js"
import { fieldsOf, withoutParams } from "../../kernel/RouteParams.js"
import { contractPart } from "../../kernel/Contract.js"
import { legacy } from "../../access/session/Legacy.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, noTool } from "../../kernel/McpTool.js"

/** Why these routes are no MCP tools (kernel/McpTool.ts). */
const notTool = noTool("Account settings are not research")

/**
 * The account's saved explore filters of the short-video shop (issue 5, "Per-account records";
 * spec: Short-video shop API, Filter presets). Contract only.
 */

const prefix = `${shopPrefix}/filter-presets`

/** A hard cap per account: presets are a handful of saved searches per page. */
export const maxPresets = 200
export const maxNameLength = 100

export const PresetScope = Choice(...shopEntities)
export type PresetScope = typeof PresetScope.Type

/** Paging is the explore call's, not the saved search's. */
const pagingFields = ["page", "page_size"] as const

/** A preset's filters: explore parameters by name, decoded or in their JSON-body form. */
export type PresetFilters = Readonly<Record<string, unknown>>

/**
 * What a preset of `scope` keeps: that entity's explore parameters in their JSON-body form (as
 * `POST <scope>/explore` takes them), without paging; anything else is refused. Derived from
 * the entity's declaration, so a filter explore gains is one a preset may keep.
 */
const filtersOf = <E extends ShopEntity>(scope: E) => bodyWithout(exploreParams(scope, "explore"), ...pagingFields)

/** A JSON body of some parameters but the named ones (typed through a parameter record, which `fieldsOf` takes). */
const bodyWithout = <P extends Parameters<typeof fieldsOf>[0], K extends string>(params: P, ...names: ReadonlyArray<K>) =>
  strictStruct(fieldsOf(withoutParams(params, ...names), "body"), "body")

type Filters<E extends ShopEntity> = ReturnType<typeof filtersOf<E>>

/** Each scope's filters, by scope: what a preset of it keeps, decoded and in its body form. */
export const presetFilters: {
  readonly [E in ShopEntity]: Schema.Schema<Schema.Schema.Type<Filters<E>>, Schema.Schema.Encoded<Filters<E>>>
} = {
  categories: filtersOf("categories"),
  shops: filtersOf("shops"),
  creators: filtersOf("creators"),
  videos: filtersOf("videos"),
  products: filtersOf("products")
}

export const PresetId = Schema.UUID.annotations({
  message: () => ({ message: "must be a preset id (a UUID)", override: true }),
  description: "The preset's id, as `save` answered it"
})

const name = Words(maxNameLength).annotations({
  description: `The preset's name, 1 to ${maxNameLength} characters (trimmed); unique per account and scope, whatever the case`
})
const scope = PresetScope.annotations({ description: `The explore page the preset is for: ${shopEntities.join(", ")}` })

/**
 * A value of an explore parameter in its JSON-body form: a text (dates too), a number, true or
 * false, or a list of texts. Which parameters a preset may keep is its scope's: the service checks
 * them against that scope's explore parameters (the scope decides what fits).
 */
export const FilterValue = Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Array(Schema.String)).annotations({
  identifier: "ExploreParameterValue"
})
export const PresetFilterValues = Schema.Record({ key: Schema.String, value: FilterValue })

const Filters = PresetFilterValues.annotations({
  message: () => ({ message: "must be an object of explore parameters", override: true }),
  description:
    "The filters: the scope's explore parameters as the JSON body of `POST /api/v1/clipapp-shop/<scope>/explore` takes them, without `page` and `page_size`"
})

export const SavePreset = strictStruct({ name, scope, filters: Filters }, "body")
export type SavePreset = typeof SavePreset.Type

export const UpdatePreset = strictStruct({
  id: PresetId,
  name: Schema.optional(name),
  filters: Schema.optional(Filters.annotations({ description: "The new filters; they replace the old ones whole" }))
}, "body")
export type UpdatePreset = typeof UpdatePreset.Type

export const DeletePreset = strictStruct({ id: PresetId }, "body")
export type DeletePreset = typeof DeletePreset.Type

export const PresetsQuery = strictStruct({
  scope: Schema.optional(PresetScope.annotations({ description: "Only the presets of this explore page" })),
  // No account holds more than `maxPresets`: no later page could hold anything.
  page: Schema.optional(param.int(1, maxPresets, "Page number, from 1").query),
  page_size: Schema.optional(param.int(1, maxPageSize, `Presets per page, 1 to ${maxPageSize} (default ${defaultPageSize})`).query),
}, "query")
export type PresetsQuery = typeof PresetsQuery.Type

export const Preset = Schema.Struct({
  id: Schema.String.annotations({ description: "The preset's id (a UUID)" }),
  name: Schema.String.annotations({ description: "The preset's name, trimmed" }),
  scope: PresetScope.annotations({ description: "The explore page the preset is for" }),
  filters: PresetFilterValues.annotations({
    description: "The filters as checked: lists as arrays, texts trimmed, in the order sent; replayable as the body of `POST <scope>/explore`"
  }),
  created_at: Schema.String.annotations({ description: "When it was saved (UTC instant)" }),
  updated_at: Schema.String.annotations({ description: "When it was last saved or updated (UTC instant)" })
})
export type Preset = typeof Preset.Type

const Saved = Schema.Struct({ success: Schema.Literal(true), data: Preset })

/** P2's answer. */
export const PresetPage = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Array(Preset).annotations({ description: "Most recently updated first" }),
  total: Schema.Int.annotations({ description: "Presets matching, on every page" }),
  page: Schema.Int,
  page_size: Schema.Int
})

const Deleted = Schema.Struct({ success: Schema.Literal(true) })

const nameNote = `Names are unique per account and scope, whatever their case: a taken one is a 409.`

export class ShopPresetsApi extends metered(
  HttpApiGroup.make("shopPresets").annotateContext(inProduct("Short-video shop"))
    .add(
      HttpApiEndpoint.get("list", prefix)
        .annotate(McpTool, notTool)
        .setUrlParams(PresetsQuery)
        .addSuccess(PresetPage)
        .annotate(OpenApi.Summary, "The account's filter presets, most recently updated first")
        .annotate(OpenApi.Description, `Paged (INTERPRETATIONS P2): \`page\` from 1, \`page_size\` 1-${maxPageSize}.`)
    )
    .add(
      HttpApiEndpoint.post("save", `${prefix}/save`)
        .annotate(McpTool, notTool)
        .setPayload(SavePreset)
        .addSuccess(Saved)
        .addError(ConflictBody)
        .annotate(OpenApi.Summary, "Save the filters of an explore page under a name")
        .annotate(
          OpenApi.Description,
          `A filter the scope's explore does not take is a 400 naming it (\`filters.<name>\`). ${nameNote} An account holds at most ${maxPresets} presets.`
        )
    )
    .add(
      HttpApiEndpoint.post("update", `${prefix}/update`)
        .annotate(McpTool, notTool)
        .addError(NotFoundBody)
        .setPayload(UpdatePreset)
        .addSuccess(Saved)
        .addError(ConflictBody)
        .annotate(OpenApi.Summary, "Rename a preset or replace its filters; its scope stays")
        .annotate(OpenApi.Description, `Send \`name\`, \`filters\` or both. An unknown id is a 404 \`Preset not found\`. ${nameNote}`)
    )
    .add(
      HttpApiEndpoint.post("delete", `${prefix}/delete`)
        .annotate(McpTool, notTool)
        .addError(NotFoundBody)
        .setPayload(DeletePreset)
        .addSuccess(Deleted)
        .annotate(OpenApi.Summary, "Delete a preset")
        .annotate(OpenApi.Description, "An unknown id is a 404 `Preset not found`.")
    )
) {}

/** Filter presets' part of the contract (kernel/Contract.ts), also under the browser session's legacy prefix (S4). */
export class ShopPresetsContract extends contractPart()
  .add(ShopPresetsApi)
  .add(legacy(ShopPresetsApi, { from: shopPrefix, to: "/api/clipapp-shop" }))
{}
