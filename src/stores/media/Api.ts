import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { NotFoundBody } from "../../kernel/Errors.js"
import { Schema } from "effect"
import { contractPart } from "../../kernel/Contract.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, noTool } from "../../kernel/McpTool.js"

/**
 * This service's own media (issue 20): the product images of the generated worlds, so the
 * demo's image URLs work offline. Unmetered and without a key, like any image a page shows.
 */
export const MediaName = Schema.String.pipe(
  Schema.maxLength(200),
  Schema.annotations({ description: "A file name such as 0a1b2c3d-glow-serum.png" })
)

export class StoreMediaApi extends HttpApiGroup.make("storeMedia").annotateContext(inProduct("Hosted stores"))
  .annotate(McpTool, noTool("Product photos for browsers"))
  .add(
    HttpApiEndpoint.get("image", "/media/stores/:name")
      .addError(NotFoundBody)
      .setPath(Schema.Struct({ name: MediaName }))
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "image/png" }))
      .annotate(OpenApi.Summary, "A product image drawn by this service (generated worlds)")
      .annotate(OpenApi.Description, "PNG (or the format its name ends with); an unknown name is a 404. Cached for a day.")
  )
{}

/** The media's part of the contract (kernel/Contract.ts). */
export class StoreMediaContract extends contractPart().add(StoreMediaApi) {}
