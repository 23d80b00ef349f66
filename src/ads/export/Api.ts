import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { metered } from "../../access/gateway/Api.js"
import { contractPart } from "../../kernel/Contract.js"
import { alias } from "../../kernel/Mirror.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, noTool } from "../../kernel/McpTool.js"
import { ExportQuery, type Library } from "../library/Filters.js"

/**
 * Bulk export of an ad search (issue 32): every match of a library's search as one streamed
 * file, NDJSON or CSV, one credit per page of 100 (docs/SPEC-NOTES.md, "RPC and bulk export").
 * Contract only.
 */

/** An export sends at most this many ads per call unless `EXPORT_MAX_ROWS` says otherwise (a filter narrows a larger search). */
export const maxExportRows = 10_000
/** An export is read, sent and charged a page of this many ads at a time. */
export const exportPageSize = 100

/** The streamed file; its content type is NDJSON's or CSV's (`format`). */
const ExportFile = Schema.String.pipe(HttpApiSchema.withEncoding({ kind: "Text", contentType: "application/x-ndjson" }))

/** Why the bulk exports are no MCP tools (kernel/McpTool.ts). */
const fileNotTool = noTool(
  "A file of up to 10,000 ads for a spreadsheet or a pipeline, not a language model's context: the search tools page through the same matches"
)

const exportOf = <const Name extends string, const Path extends `/${string}`>(name: Name, path: Path, library: Library, what: string) =>
  HttpApiEndpoint.get(name, path)
    .setUrlParams(ExportQuery(library))
    .addSuccess(ExportFile)
    .annotate(OpenApi.Summary, `Export every match of a ${what} search (NDJSON or CSV)`)
    .annotate(McpTool, fileNotTool)
    .annotate(
      OpenApi.Description,
      `The search's filters and sort (\`ad_format\` for its \`format\` filter); \`format\` is \`ndjson\` (default, \`application/x-ndjson\`) or \`csv\` (\`text/csv\`). ` +
        `Streams at most ${maxExportRows.toLocaleString("en-US")} ads (the server's \`EXPORT_MAX_ROWS\`), read and charged a page of ${exportPageSize} at a time: one credit per page sent ` +
        `(the first is the call's own). When credits run out the file ends early; an NDJSON file then ends with the 429 envelope as its last line.`
    )

/** Alone in its group: it has an un-versioned alias under `/api/adlibrary` (S3), as the search has. */
export class AdLibraryExportApi extends metered(
  HttpApiGroup.make("adLibraryExport").annotateContext(inProduct("Ad libraries"))
    .add(exportOf("socialExport", "/api/v1/adlibrary/export", "social", "social-network ad"))
) {}

export class AdsExportApi extends metered(
  HttpApiGroup.make("adsExport").annotateContext(inProduct("Ad libraries"))
    .add(exportOf("pinboardExport", "/api/v1/pinboard-ads/export", "pinboard", "image-board ad"))
    .add(exportOf("clipappExport", "/api/v1/clipapp-ads/export", "clipapp", "short-video ad"))
    .add(exportOf("searchExport", "/api/v1/search-ads/export", "search", "search-engine ad"))
) {}

/** The bulk export's part of the contract (kernel/Contract.ts), with the S3 alias. */
export class AdExportContract extends contractPart()
  .add(AdLibraryExportApi)
  .add(alias(AdLibraryExportApi, { from: "/api/v1/adlibrary", to: "/api/adlibrary" }))
  .add(AdsExportApi)
{}
