import { Config, Effect, Option, Stream } from "effect"
import type { InvalidRequest } from "../../kernel/Errors.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"
import { AdSearch, type Page } from "../library/AdSearch.js"
import type { AdView } from "../library/Api.js"
import type { Library, SearchParams } from "../library/Filters.js"
import { exportPageSize, maxExportRows } from "./Api.js"

/** Where an export stands: the page to send (read already, or by its token), and how many ads went. */
interface Cursor {
  readonly next: Option.Option<Page<AdView> | string>
  readonly sent: number
}

/**
 * Every match of an ad search, a page at a time (issue 32): the REST bulk export and the RPC
 * `ExportSearch` stream the same pages. The search is the library's own (AdSearch), walked by
 * its scroll tokens, so an export holds exactly what paging through the search would.
 */
export class AdExport extends Effect.Service<AdExport>()("adintel/AdExport", {
  effect: Effect.gen(function*() {
    const ads = yield* AdSearch
    /** The per-call maximum (docs/SPEC-NOTES.md): a test lowers it to reach it with a small world. */
    const maxRows = yield* Config.integer("EXPORT_MAX_ROWS").pipe(Config.withDefault(maxExportRows), Effect.orDie)

    /** The page after `cursor`, read now; none once the search or the per-call maximum is done. */
    const step = (library: Library, cursor: Cursor) =>
      Effect.gen(function*() {
        if (Option.isNone(cursor.next) || cursor.sent >= maxRows) return Option.none()
        const next = cursor.next.value
        const page = typeof next === "string" ? yield* ads.search(library, { scroll_token: next }) : next
        const rows = page.data.slice(0, maxRows - cursor.sent)
        const sent = cursor.sent + rows.length
        const more = page.has_more && page.scroll_token !== null && sent < maxRows
        return rows.length === 0 ? Option.none() : Option.some([rows, { next: more ? Option.some(page.scroll_token!) : Option.none(), sent }] as const)
      })

    return {
      /**
       * The pages of a search's matches, at most `EXPORT_MAX_ROWS` ads. The first page is read
       * now, so a search the library refuses fails here, before anything is streamed.
       */
      pages: Effect.fn("AdExport.pages", serviceSpan)((library: Library, params: Omit<SearchParams, "limit" | "scroll_token">) =>
        Effect.map(
          ads.search(library, { ...params, limit: exportPageSize }),
          (first): Stream.Stream<ReadonlyArray<AdView>, InvalidRequest> =>
            Stream.unfoldEffect<Cursor, ReadonlyArray<AdView>, InvalidRequest, never>({ next: Option.some(first), sent: 0 }, (cursor) => step(library, cursor))
        ))
    }
  }),
  dependencies: [AdSearch.Default]
}) {}
