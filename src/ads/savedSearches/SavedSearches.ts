import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Option, Schedule, Schema } from "effect"
import { ImportEvents } from "../../access/events/ImportEvents.js"
import type { EventType } from "../../access/events/OutboxEvent.js"
import { type CallerInfo, planTitle } from "../../access/gateway/Api.js"
import { InvalidRequest, NotFound } from "../../kernel/Errors.js"
import { type AccountId, idOf, SavedSearchId } from "../../kernel/Ids.js"
import { describeParseError } from "../../kernel/Issues.js"
import { windowOf } from "../../kernel/Paging.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"
import type { Page } from "../library/AdSearch.js"
import type { AdView } from "../library/Api.js"
import { type AdFilters, defaultLimit, filtersOf, type Library, libraryByPublicName, publicNameOf, SearchQuery } from "../library/Filters.js"
import { ScrollToken } from "../library/ScrollToken.js"
import { anchorsOf } from "./Anchors.js"
import { matchesKept, matchesPruneEvery } from "./MatchesConfig.js"
import {
  type MatchesQuery,
  type NewSavedSearch,
  type SavedSearch,
  savedSearchLimits,
  type SavedSearchesQuery
} from "./Api.js"
import { type BatchMatches, type MatchAfter, type MatchColumns, SavedSearchesRepo, type StoredSearch } from "./SavedSearchesRepo.js"
import { now } from "../../kernel/UtcDay.js"

export type { BatchMatches } from "./SavedSearchesRepo.js"


export const savedSearchNotFound = new NotFound({ error: "Saved search not found" })
/** Match rows a prune's statement forgets by age at most, and queries it cuts to their count. */
const pruneBatch = 1_000
const queriesPerTrim = 100
const matchesNew: EventType = "saved_search.matches_new"
const searchId = idOf(SavedSearchId, savedSearchNotFound)

/**
 * A JSON value as a query string carries it: numbers and booleans as their text, lists item by
 * item. The search's own query schema then decodes it, so a saved filter is accepted, refused
 * and described exactly as the search would.
 */
const asQueryValue = (value: unknown): unknown =>
  typeof value === "number" || typeof value === "boolean"
    ? String(value)
    : Array.isArray(value)
    ? value.map((item) => (typeof item === "number" || typeof item === "boolean" ? String(item) : item))
    : value

const dayStart = (day: string) => new Date(`${day}T00:00:00.000Z`)
const dayAfter = (day: string) => new Date(dayStart(day).getTime() + 86_400_000)

/** The filters as the matching pass's typed columns (the same conditions AdSearchRepo's `where` sets). */
const columnsOf = (f: AdFilters): MatchColumns => ({
  q: f.q ?? null,
  advertiser_id: f.advertiser_id ?? null,
  domain: f.domain ?? null,
  status: f.status ?? null,
  formats: f.format ?? null,
  countries: f.country ?? null,
  languages: f.language ?? null,
  platforms: f.platform ?? null,
  niches: f.niche ?? null,
  ctas: f.cta ?? null,
  first_seen_from: f.first_seen_from === undefined ? null : dayStart(f.first_seen_from),
  first_seen_before: f.first_seen_to === undefined ? null : dayAfter(f.first_seen_to),
  last_seen_from: f.last_seen_from === undefined ? null : dayStart(f.last_seen_from),
  last_seen_before: f.last_seen_to === undefined ? null : dayAfter(f.last_seen_to),
  min_days_running: f.min_days_running ?? null,
  max_days_running: f.max_days_running ?? null,
  min_likes: f.min_likes ?? null,
  max_likes: f.max_likes ?? null,
  min_comments: f.min_comments ?? null,
  max_comments: f.max_comments ?? null,
  min_shares: f.min_shares ?? null,
  max_shares: f.max_shares ?? null,
  min_views: f.min_views ?? null,
  max_views: f.max_views ?? null
})

const viewOf = (row: StoredSearch): SavedSearch => ({
  id: row.id,
  name: row.name,
  library: publicNameOf[row.library],
  // In the canonical order `filtersOf` gives them (jsonb keeps its own).
  filters: Object.fromEntries(Object.entries(row.filters).sort(([a], [b]) => a.localeCompare(b))),
  created_at: row.created_at.toISOString(),
  last_checked_at: row.last_checked_at === null ? null : row.last_checked_at.toISOString()
})


/**
 * Saved searches (issue 32; INTERPRETATIONS H1): an ad-library search kept by name. The import
 * finds the new matches of every saved search at once per batch (`matchBatch`) and records them
 * in the batch's transaction; its end tells each account with one `saved_search.matches_new`
 * event naming each of its searches that matched (issue 44; `ImportEvents.duringImport`).
 */
export class SavedSearches extends Effect.Service<SavedSearches>()("adintel/SavedSearches", {
  effect: Effect.gen(function*() {
    const repo = yield* SavedSearchesRepo
    const tokens = yield* ScrollToken
    const imports = yield* ImportEvents
    const sql = yield* SqlClient.SqlClient
    const kept = yield* matchesKept
    const pruneEvery = yield* matchesPruneEvery

    /**
     * Forgets the matches past `SAVED_SEARCH_MATCHES_KEEP` at `at`: those stored longer ago than
     * its age, then each query's beyond its count (the most recently found kept), a bounded
     * statement at a time. How many rows went by age and how many queries were cut.
     */
    const prune = Effect.fn("SavedSearches.prune", serviceSpan)(function*(at: Date) {
      const before = new Date(at.getTime() - Duration.toMillis(kept.age))
      let aged = 0
      for (;;) {
        const n = yield* repo.forgetStoredBefore(before, pruneBatch)
        aged += n
        if (n < pruneBatch) break
      }
      const over = yield* repo.queriesOver(kept.count)
      for (let i = 0; i < over.length; i += queriesPerTrim) yield* repo.keepNewest(over.slice(i, i + queriesPerTrim), kept.count)
      return { aged, trimmed: over.length }
    })

    const owned = (account: AccountId, id: string) =>
      Effect.flatMap(
        Effect.flatMap(searchId(id), (sid) => repo.find(account, sid)),
        Option.match({ onNone: () => Effect.fail(savedSearchNotFound), onSome: Effect.succeed })
      )

    /** The filters a search route would take, decoded by that route's own schema (G11 messages). */
    const decodeFilters = (library: Library, filters: Readonly<Record<string, unknown>>) =>
      Schema.decodeUnknown(SearchQuery(library))(Object.fromEntries(Object.entries(filters).map(([k, v]) => [k, asQueryValue(v)]))).pipe(
        Effect.mapError((error) => new InvalidRequest({ error: describeParseError(error) })),
        Effect.map(filtersOf)
      )

    return {
      /** Saves a search for the account, within its plan's cap. */
      create: Effect.fn("SavedSearches.create", serviceSpan)(function*(caller: Pick<CallerInfo, "accountId" | "plan">, request: NewSavedSearch): Effect.fn.Return<SavedSearch, InvalidRequest> {
        const library = libraryByPublicName[request.library]
        const filters = yield* decodeFilters(library, request.filters)
        const anchors = filters.q === undefined ? null : anchorsOf(yield* repo.compile(filters.q))
        const cap = savedSearchLimits[caller.plan]
        const stored = yield* repo.create({
          id: SavedSearchId.make(randomUUID()),
          accountId: caller.accountId,
          name: request.name,
          library,
          filters: filters as Readonly<Record<string, unknown>>,
          columns: columnsOf(filters),
          anchors
        }, cap, yield* now)
        return yield* Option.match(stored, {
          onNone: () => Effect.fail(new InvalidRequest({ error: `Saved searches are limited to ${cap} on the ${planTitle(caller.plan)} plan` })),
          onSome: (row) => Effect.succeed(viewOf(row))
        })
      }),

      list: Effect.fn("SavedSearches.list", serviceSpan)(function*(account: AccountId, query: SavedSearchesQuery) {
        const window = windowOf(query)
        const { rows, total } = yield* repo.page(account, window.limit, window.offset)
        return { data: rows.map(viewOf), total, page: window.page, page_size: window.pageSize }
      }),

      /**
       * Deletes the search, and what its new matches left pending before migration 0102 (no event
       * is told for it; since 0102 the import's end tells only the searches still kept).
       */
      remove: Effect.fn("SavedSearches.remove", serviceSpan)((account: AccountId, id: string): Effect.Effect<void, NotFound> =>
        Effect.flatMap(searchId(id), (sid) =>
          // One transaction: the search and what it left pending go together, or neither.
          sql.withTransaction(Effect.flatMap(repo.remove(account, sid), (gone) =>
            gone ? imports.forget(matchesNew, sid) : Effect.fail(savedSearchNotFound))).pipe(
            Effect.catchTag("SqlError", Effect.die)
          ))),

      /** P1 over the search's matches: a token continues only this saved search. */
      matches: Effect.fn("SavedSearches.matches", serviceSpan)(function*(account: AccountId, id: string, query: MatchesQuery): Effect.fn.Return<Page<AdView>, NotFound | InvalidRequest> {
        const search = yield* owned(account, id)
        const scope = `saved-search:${search.id}`
        const state = query.scroll_token === undefined
          ? { limit: query.limit ?? defaultLimit, after: Option.none<MatchAfter>() }
          : yield* Effect.map(tokens.open(query.scroll_token, scope), (s) => ({
            limit: s.limit,
            after: Option.some<MatchAfter>([s.after[0] ?? "", s.after[1]])
          }))
        const rows = yield* repo.matches(search.id, state.after, state.limit + 1)
        const data = rows.slice(0, state.limit)
        const last = data[data.length - 1]
        const has_more = rows.length > state.limit && last !== undefined
        return {
          data: data.map((r) => r.ad),
          scroll_token: has_more ? tokens.sign({ search: scope, filters: {}, sort: "newest", limit: state.limit, after: [last.after[0], last.after[1]] }) : null,
          has_more
        }
      }),

      /**
       * One import batch's pass (call it in the batch's transaction): the new matches of every
       * saved search among `adIds` (the ads the batch stored for the first time), kept pending
       * for the batch's import (`ImportEvents.inBatch`), whose end tells them.
       */
      matchBatch: Effect.fn("SavedSearches.matchBatch", serviceSpan)((adIds: ReadonlyArray<string>, at: Date): Effect.Effect<BatchMatches> =>
        imports.inBatch((importId) => repo.matchBatch(adIds, at, importId), at, [repo.tell])),

      /** What tells the saved searches' pending matches at an import's end (`ImportEvents.duringImport`'s `also`). */
      teller: Effect.fn("SavedSearches.teller", serviceSpan)(repo.tell),

      /** An import finished looking at `at` (the searches' `last_checked_at`). */
      checked: Effect.fn("SavedSearches.checked", serviceSpan)(repo.checked),

      /** The names of searches by id (the inbox quotes them). */
      namesOf: Effect.fn("SavedSearches.namesOf", serviceSpan)(repo.namesOf),

      prune,

      /**
       * The prune, for a layer to fork: at start, then every `SAVED_SEARCH_PRUNE_EVERY` (on the
       * Clock). Every replica runs it; two at once forget the same rows once (a row deleted or cut
       * by one is skipped by the other). A failed prune is logged and the next one goes on.
       */
      pruning: Effect.flatMap(now, prune).pipe(
        Effect.catchAllCause((cause) => Effect.logError("Saved-search matches prune failed", cause)),
        Effect.repeat(Schedule.spaced(pruneEvery)),
        Effect.asVoid
      )
    }
  }),
  dependencies: [SavedSearchesRepo.Default, ScrollToken.Default, ImportEvents.Default]
}) {}
