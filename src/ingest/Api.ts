import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AdminAuth, operatorOnly } from "../access/accounts/Api.js"
import { JsonObject } from "../kernel/Json.js"
import { Choice } from "../kernel/Params.js"
import { entityNames } from "./Records.js"
import { contractPart } from "../kernel/Contract.js"
import { inProduct } from "../kernel/Products.js"
import { McpTool } from "../kernel/McpTool.js"

export const EntityPath = Schema.Struct({ entity: Choice(...entityNames) })

export const IngestReport = Schema.Struct({
  accepted: Schema.Int,
  rejected: Schema.Int,
  errors: Schema.Array(Schema.Struct({ line: Schema.Int, error: Schema.String })).annotations({
    description: "In line order; at most 1,000 (the counts stay exact)"
  })
})

/**
 * The body: NDJSON, one record per line. Declared for the contract (the document and the typed
 * client); the handler streams it itself (`handleRaw`), so a 1 GiB import is never one string.
 */
export const NdjsonBody = Schema.String.pipe(
  HttpApiSchema.withEncoding({ kind: "Text", contentType: "application/x-ndjson" }),
  Schema.annotations({ description: "One JSON record per line (see `GET /admin/schemas/{entity}`)" })
)

const adminSecurity = (operation: Record<string, unknown>) => ({ ...operation, security: [{ AdminToken: [] }] })

/** Loading crawled data (admin token; never metered). */
export class CatalogAdminApi extends HttpApiGroup.make("catalogAdmin").annotateContext(inProduct("Admin"))
  .annotate(McpTool, operatorOnly)
  .add(
    HttpApiEndpoint.post("ingest", "/admin/ingest/:entity")
      .setPath(EntityPath)
      .setPayload(NdjsonBody)
      .addSuccess(IngestReport)
      .annotate(OpenApi.Summary, "Import NDJSON records (one per line), upserted by external id")
  )
  .add(
    HttpApiEndpoint.get("schema", "/admin/schemas/:entity")
      .setPath(EntityPath)
      .addSuccess(JsonObject.annotations({ description: "A JSON Schema (draft-07) document" }))
      .annotate(OpenApi.Summary, "The JSON Schema of the records an import accepts")
  )
  .middleware(AdminAuth)
  .annotateEndpoints(OpenApi.Transform, adminSecurity)
{}

/** The import routes' part of the contract (kernel/Contract.ts). */
export class IngestContract extends contractPart().add(CatalogAdminApi) {}
