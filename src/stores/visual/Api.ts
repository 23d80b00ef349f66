import { HttpApiEndpoint, HttpApiGroup, Multipart, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { metered } from "../../access/gateway/Api.js"
import { contractPart } from "../../kernel/Contract.js"
import { Url } from "../../kernel/Fields.js"
import { twoForms } from "../../kernel/Forms.js"
import { alias } from "../../kernel/Mirror.js"
import { param, strictStruct } from "../../kernel/QueryParams.js"
import { StoreView } from "../catalog/Views.js"
import { explorerPrefix, filterFields } from "../explorer/Api.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, tool } from "../../kernel/McpTool.js"

/**
 * Visual search of hosted stores (issue 20; INTERPRETATIONS L4, S3): a product photo, uploaded
 * (multipart `image`) or fetched (`image_url`, SSRF-guarded like magic-ai's), plus the
 * explorer's filters -> the stores whose product images look most alike. Contract only.
 */

export const visualPath = `${explorerPrefix}/visual-search`

/** The largest image taken, uploaded or fetched (issue 20: "at most 10 MB"). */
export const maxImageBytes = 10 * 1024 * 1024
/** A request body may be larger than the image (form fields, boundaries): up to this, a larger image is a 400 naming `image`. */
export const maxVisualBodyBytes = 2 * maxImageBytes + 1024 * 1024
/** Stores in an answer, at most; each with its best products. */
export const maxStores = 50
export const defaultStores = 20
export const productsPerStore = 3

const limitDescription = `Stores to answer, 1 to ${maxStores} (default ${defaultStores})`

/** The JSON body: `image_url` and the explorer's filters. */
export const VisualJson = strictStruct({
  image_url: Schema.propertySignature(Url.annotations({ description: "An http(s) URL of a JPEG, PNG, WebP or AVIF image (at most 10 MiB)" }))
    .annotations({ missingMessage: () => "is missing (or send a multipart form with the image file)" }),
  limit: Schema.optional(param.int(1, maxStores, limitDescription).body),
  ...filterFields("body")
}, "body").annotations({ identifier: "VisualSearchJson", description: "JSON: `image_url` and the explorer's filters" })
export type VisualJson = typeof VisualJson.Type

/** The multipart form: the `image` file and the explorer's filters as text fields. */
export const VisualForm = strictStruct({
  image: Schema.propertySignature(
    Multipart.FilesSchema.annotations({ message: () => ({ message: "must be a file", override: true }) }).pipe(
      Schema.maxItems(1, { message: () => "send one file" }),
      Schema.annotations({ description: "The product photo: JPEG, PNG, WebP or AVIF (checked by its content), at most 10 MiB" })
    )
  ).annotations({ missingMessage: () => "is missing: send the photo as the multipart file field image" }),
  limit: Schema.optional(param.int(1, maxStores, limitDescription).query),
  ...filterFields("query")
}, "body").annotations({ description: "Multipart: the `image` file and the explorer's filters as fields" })
export type VisualForm = typeof VisualForm.Type

/** The body, in either form (kernel/Forms.ts): the request's content type says which was sent. */
export const VisualPayload = twoForms(VisualJson, VisualForm)
export type VisualPayload = typeof VisualPayload.Type

export const VisualProduct = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  price: Schema.NullOr(Schema.Number),
  currency: Schema.NullOr(Schema.String),
  image_url: Schema.String,
  url: Schema.NullOr(Schema.String),
  similarity: Schema.Number.annotations({ description: "How alike its main image is, 0 to 1" })
})

export const VisualMatch = Schema.Struct({
  store: StoreView,
  similarity: Schema.Number.annotations({ description: "Its best product's similarity, 0 to 1" }),
  products: Schema.Array(VisualProduct).annotations({ description: `Its ${productsPerStore} products that look most alike, best first` })
})
export type VisualMatch = typeof VisualMatch.Type

export const VisualAnswer = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Array(VisualMatch).annotations({ description: "Most alike first" })
})

export class StoreVisualSearchApi extends metered(
  HttpApiGroup.make("storeVisualSearch").annotateContext(inProduct("Hosted stores"))
    .add(
      HttpApiEndpoint.post("search", visualPath)
        .annotate(McpTool, tool("visual_search_stores", {
          title: "Find stores by a product photo",
          description: "Finds online stores whose product images look like the image at image_url (fetched once from a public address), each with its best-matching products and a similarity from 0 to 1; the explore_stores filters narrow it."
        }))
        .setPayload(VisualPayload)
        .addSuccess(VisualAnswer)
        .annotate(OpenApi.Summary, "Stores whose product images look like a photo (upload or image_url), with the explorer's filters")
        .annotate(
          OpenApi.Description,
          "Send a multipart form with the `image` file, or JSON with `image_url` (fetched from public addresses only). " +
            "JPEG, PNG, WebP or AVIF, recognised by content, at most 10 MiB: anything else is a 400 naming the field, " +
            "and the call keeps its credit (G4). Similarity combines perceptual hashes and colour, so crops, resizes and " +
            "re-encodings of a product photo still find it."
        )
    )
) {}

/** Visual search's part of the contract, with S3's alias. */
export class StoreVisualSearchContract extends contractPart()
  .add(StoreVisualSearchApi)
  .add(alias(StoreVisualSearchApi, { from: visualPath, to: "/api/store-explorer/visual-search" }))
{}
