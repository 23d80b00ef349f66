import { HttpServerResponse } from "@effect/platform"
import { Effect, Schema, Stream } from "effect"
import { CreditsExhaustedBody, PlanRequiredBody, UnauthorizedBody } from "../../access/gateway/Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import { chargedPages } from "../../access/gateway/Pages.js"
import { InvalidRequestBody } from "../../kernel/Errors.js"
import type { ExportParams, Library } from "../library/Filters.js"
import { AdExport } from "./AdExport.js"
import { AdExportContract } from "./Api.js"
import { contentTypeOf, csvHeader, linesOf } from "./Files.js"

/** How a stream cut short says why, as the last line of an NDJSON file: the route's envelope. */
const encodeCut = Schema.encodeSync(Schema.Union(CreditsExhaustedBody, PlanRequiredBody, UnauthorizedBody, InvalidRequestBody))

/** `GET /api/v1/<library>/export`: the file, streamed as it is read and charged (issue 32). */
const answer = (library: Library) => ({ urlParams }: { readonly urlParams: ExportParams }) =>
  Effect.gen(function*() {
    const exporter = yield* AdExport
    const { ad_format, format = "ndjson", ...search } = urlParams
    const pages = yield* chargedPages(yield* exporter.pages(library, ad_format === undefined ? search : { ...search, format: ad_format }))
    const lines = pages.pipe(
      Stream.map((page) => linesOf(format, page)),
      // The status is sent already: a cut NDJSON file says why on its last line; a CSV file just ends.
      Stream.catchAll((cut) => format === "ndjson" ? Stream.make(`${JSON.stringify(encodeCut(cut))}\n`) : Stream.empty)
    )
    return HttpServerResponse.stream(
      Stream.encodeText(format === "csv" ? Stream.concat(Stream.make(csvHeader), lines) : lines),
      { contentType: contentTypeOf(format), headers: { "content-disposition": `attachment; filename="${library}-ads.${format}"` } }
    )
  })

/** `/api/v1/adlibrary/export` (and its alias `/api/adlibrary/export`, S3). */
export const AdLibraryExportLive = serveGroup(AdExportContract, "adLibraryExport", (handlers) => handlers.handle("socialExport", answer("social")))

export const AdsExportLive = serveGroup(AdExportContract, "adsExport", (handlers) =>
  handlers
    .handle("pinboardExport", answer("pinboard"))
    .handle("clipappExport", answer("clipapp"))
    .handle("searchExport", answer("search")))
