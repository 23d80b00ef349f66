import { Effect } from "effect"
import { InvalidRequest } from "./Errors.js"

/**
 * INTERPRETATIONS P2: lists take `page` (from 1) and `page_size` (default 20, 1 to 100) and
 * answer `{ success: true, data, total, page, page_size }`. Pages are SQL offsets, which cost
 * what they skip, so a search that may match without end stops at a fixed depth.
 */
export const defaultPageSize = 20
export const maxPageSize = 100
/** The deepest row a bounded list reaches: `page` × `page_size` at most this. */
export const maxPageWindow = 10_000

/** What a request asks of a list. */
export interface PageRequest {
  readonly page?: number | undefined
  readonly page_size?: number | undefined
}

/** The page a request selects, and the rows it is: `limit` rows after `offset`. */
export interface PageWindow {
  readonly page: number
  readonly pageSize: number
  readonly limit: number
  readonly offset: number
}

/** A page of a list, before the envelope's `success`. */
export interface Page<A> {
  readonly data: ReadonlyArray<A>
  readonly total: number
  readonly page: number
  readonly page_size: number
}

/** The page a request selects; for lists whose length is capped, so any page is cheap. */
export const windowOf = (request: PageRequest): PageWindow => {
  const page = request.page ?? 1
  const pageSize = request.page_size ?? defaultPageSize
  return { page, pageSize, limit: pageSize, offset: (page - 1) * pageSize }
}

/**
 * The page a request selects within `maxPageWindow`; deeper is a 400 that says how to narrow
 * the list (`narrow`: the end of the message, e.g. "narrow the search with its filters").
 */
export const boundedWindowOf = (request: PageRequest, narrow: string): Effect.Effect<PageWindow, InvalidRequest> => {
  const window = windowOf(request)
  return window.page * window.pageSize > maxPageWindow
    ? Effect.fail(new InvalidRequest({
      error: `page: at most ${Math.floor(maxPageWindow / window.pageSize)} for page_size ${window.pageSize}; ${narrow}`
    }))
    : Effect.succeed(window)
}

/** The rows of a window and the list's total, as a page. */
export const pageOf = <A>(window: PageWindow, data: ReadonlyArray<A>, total: number): Page<A> => ({
  data,
  total,
  page: window.page,
  page_size: window.pageSize
})
