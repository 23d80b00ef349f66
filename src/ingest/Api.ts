import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AdminAuth } from "../access/accounts/Api.js"
import { Choice } from "../kernel/Params.js"
import { entityNames } from "./Records.js"
import { contractPart } from "../kernel/Contract.js"

export const EntityPath = Schema.Struct({ entity: Choice(...entityNames) })

export const IngestReport = Schema.Struct({
  accepted: Schema.Int,
  rejected: Schema.Int,
  errors: Schema.Array(Schema.Struct({ line: Schema.Int, error: Schema.String })).annotations({
    description: "In line order; at most 1,000 (the counts stay exact)"
  })
})

const adminSecurity = (operation: Record<string, unknown>) => ({ ...operation, security: [{ AdminToken: [] }] })

/** Loading crawled data (admin token; never metered). */
export class CatalogAdminApi extends HttpApiGroup.make("catalogAdmin")
  .add(
    HttpApiEndpoint.post("ingest", "/admin/ingest/:entity")
      .setPath(EntityPath)
      .addSuccess(IngestReport)
      .annotate(OpenApi.Summary, "Import NDJSON records (one per line), upserted by external id")
      .annotate(OpenApi.Override, {
        requestBody: {
          required: true,
          content: { "application/x-ndjson": { schema: { type: "string", description: "One JSON record per line" } } }
        }
      })
  )
  .add(
    HttpApiEndpoint.get("schema", "/admin/schemas/:entity")
      .setPath(EntityPath)
      .addSuccess(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
      .annotate(OpenApi.Summary, "The JSON Schema of the records an import accepts")
  )
  .middleware(AdminAuth)
  .annotateEndpoints(OpenApi.Transform, adminSecurity)
  .annotateContext(OpenApi.annotations({ title: "admin: data", description: "Import crawled data; enabled by ADMIN_TOKEN" }))
{}

/** The import routes' part of the contract (kernel/Contract.ts). */
export class IngestContract extends contractPart().add(CatalogAdminApi) {}
