import { SqlClient, SqlSchema } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import { type EventType, maxAdIdsPerEvent } from "../../access/events/OutboxEvent.js"
import { AccountId, SavedSearchId } from "../../kernel/Ids.js"
import { forOneStatement } from "../../platform/db/Database.js"
import { countOf, decodeRows } from "../../platform/db/Rows.js"
import { decodeAdRows, toView, viewColumns } from "../library/AdSearchRepo.js"
import type { AdView } from "../library/Api.js"
import { SavedFilters } from "./Api.js"
import { AdLibrary } from "../records/Ads.js"
import { type Library, publicNameOf } from "../library/Filters.js"
import type { Anchors } from "./Anchors.js"

/**
 * The SQL of saved searches (migration 0088): the searches, their anchors, and the matching
 * pass an import runs once per batch over every saved search at once.
 */

/** A saved search's filters as the typed columns the matching pass joins (null: no such filter). */
export interface MatchColumns {
  readonly q: string | null
  readonly advertiser_id: string | null
  readonly domain: string | null
  readonly status: string | null
  readonly formats: ReadonlyArray<string> | null
  readonly countries: ReadonlyArray<string> | null
  readonly languages: ReadonlyArray<string> | null
  readonly platforms: ReadonlyArray<string> | null
  readonly niches: ReadonlyArray<string> | null
  readonly ctas: ReadonlyArray<string> | null
  readonly first_seen_from: Date | null
  readonly first_seen_before: Date | null
  readonly last_seen_from: Date | null
  readonly last_seen_before: Date | null
  readonly min_days_running: number | null
  readonly max_days_running: number | null
  readonly min_likes: number | null
  readonly max_likes: number | null
  readonly min_comments: number | null
  readonly max_comments: number | null
  readonly min_shares: number | null
  readonly max_shares: number | null
  readonly min_views: number | null
  readonly max_views: number | null
}

/** A search to store: its anchors are `null` when it has none (joined by library alone). */
export interface NewRow {
  readonly id: SavedSearchId
  readonly accountId: AccountId
  readonly name: string
  readonly library: Library
  readonly filters: Readonly<Record<string, unknown>>
  readonly columns: MatchColumns
  readonly anchors: Anchors | null
}

export const StoredSearch = Schema.Struct({
  id: SavedSearchId,
  name: Schema.String,
  library: AdLibrary,
  filters: SavedFilters,
  created_at: Schema.DateFromSelf,
  last_checked_at: Schema.NullOr(Schema.DateFromSelf)
})
export type StoredSearch = typeof StoredSearch.Type

/**
 * What one batch's pass found: how many queries matched, their matches (each stored once), and
 * what that makes for their saved searches (a query's matches once per search asking it).
 */
export const BatchMatches = Schema.Struct({
  queries: Schema.Int,
  found: Schema.Int,
  matches: Schema.Int
})
export type BatchMatches = typeof BatchMatches.Type

/** Where a page of matches starts: after this match (its first seen, exact text, and ad row id). */
export type MatchAfter = readonly [firstSeen: string, adRow: string]

const decodeMatches = decodeAdRows({ sort_value: Schema.String })
const matchesNew: EventType = "saved_search.matches_new"
const Compiled = Schema.Struct({ tsq: Schema.String })

/** The columns of `MatchColumns`, in the order `insert` writes them. */
const matchColumns = [
  "advertiser_id", "domain", "status", "formats", "countries", "languages", "platforms", "niches", "ctas",
  "first_seen_from", "first_seen_before", "last_seen_from", "last_seen_before", "min_days_running", "max_days_running",
  "min_likes", "max_likes", "min_comments", "max_comments", "min_shares", "max_shares", "min_views", "max_views"
] as const

/**
 * What names a query (`saved_search_queries.key`, migration 0102, which hashes the same list):
 * its library, compiled text and every typed filter, the instants as epoch seconds (their text
 * would follow the session's time zone).
 */
const keyColumns = ["k.library", "k.tsq::text", ...matchColumns.map((name) => name.includes("seen_") ? `extract(epoch from k.${name})` : `k.${name}`)]

export class SavedSearchesRepo extends Effect.Service<SavedSearchesRepo>()("adintel/SavedSearchesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const listed = (where: Fragment, limit: number, offset: number) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: StoredSearch,
        execute: () => sql`
          select s.id, s.name, s.library, s.filters, s.created_at,
                 (select c.checked_at from saved_search_checks c where c.checked_at > s.created_at) as last_checked_at
            from saved_searches s
           where ${where}
           order by s.created_at desc, s.seq desc
           limit ${limit} offset ${offset}`
      })(undefined)

    /**
     * Writes that may grow an account's saved searches run one at a time per account (a
     * transaction-scoped advisory lock), so the plan's cap holds under concurrent creates.
     */
    const serialized = <A, E, R>(account: AccountId, effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(
        Effect.zipRight(sql`select pg_advisory_xact_lock(hashtext('adintel.saved_searches'), hashtext(${account}))`, effect)
      )

    /** The search's values for the typed columns, as one JSON record (arrays stay arrays). */
    const columnsJson = (row: NewRow) =>
      JSON.stringify(Object.fromEntries(matchColumns.map((name) => [name, row.columns[name] ?? null])))

    return {
      /** The query's compiled text (`websearch_to_tsquery`'s form), which the anchors are read from. */
      compile: (q: string): Effect.Effect<string> =>
        SqlSchema.single({
          Request: Schema.Void,
          Result: Compiled,
          execute: () => sql`select websearch_to_tsquery('english', ${q})::text as tsq`
        })(undefined).pipe(Effect.map((r) => r.tsq), Effect.orDie),

      /**
       * Stores a search under the account's lock unless it already holds `cap`; `false` when
       * full. The search points at the query of its library and typed filters (migration 0102),
       * made with its anchors when no other search asks it; the row's lock (the no-op update)
       * keeps a concurrent delete of its last search from dropping it under this one.
       */
      create: (row: NewRow, cap: number, at: Date): Effect.Effect<Option.Option<StoredSearch>> =>
        serialized(row.accountId, Effect.gen(function*() {
          const held = yield* countOf(sql`select count(*)::int as n from saved_searches where account_id = ${row.accountId}::uuid`)
          if (held >= cap) return Option.none()
          const [query] = yield* sql<{ id: string; inserted: boolean }>`
            insert into saved_search_queries (key, library, anchored, tsq, ${sql.literal(matchColumns.join(", "))})
            select md5(jsonb_build_array(${sql.literal(keyColumns.join(", "))})::text), k.*
              from (select ${row.library}::text as library, ${row.anchors !== null}::boolean as anchored,
                           case when ${row.columns.q}::text is null then null else websearch_to_tsquery('english', ${row.columns.q}::text) end as tsq,
                           ${sql.literal(matchColumns.map((name) => `c.${name}`).join(", "))}
                      from json_populate_record(null::saved_search_queries, ${columnsJson(row)}::json) c) k
            on conflict (key) do update set searches = saved_search_queries.searches
            returning id::text, (xmax = 0) as inserted`
          yield* sql`
            insert into saved_searches (id, account_id, name, library, filters, created_at, query_id, after_pass)
            select ${row.id}::uuid, ${row.accountId}::uuid, ${row.name}, ${row.library}, ${JSON.stringify(row.filters)}::jsonb, ${at}, ${query!.id}::bigint,
                   case when p.is_called then p.last_value else 0 end
              from saved_search_passes p`
          if (query!.inserted && row.anchors !== null && row.anchors.lexemes.length > 0) {
            // All of a conjunction's lexemes are in every match: its rarest is anchor enough
            // (the planner's statistics of the ads' lexemes, 0 for one not among the most
            // common; then the longest). One of an `or`'s is enough: each is an anchor.
            const conjunction = row.anchors.needed > 1
            yield* sql`
              insert into saved_search_query_anchors (library, lexeme, query_id, alone)
              select ${row.library}, l.lexeme, ${query!.id}::bigint, ${conjunction || row.anchors.lexemes.length === 1}
                from unnest(${row.anchors.lexemes}::text[]) l(lexeme)
               order by (select coalesce(max(e.freq), 0)
                           from pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) e(lexeme, freq)
                          where s.schemaname = current_schema() and s.tablename = 'ads' and s.attname = 'search_vector'
                            and e.lexeme = l.lexeme),
                        length(l.lexeme) desc, l.lexeme collate "C"
               limit ${conjunction ? 1 : row.anchors.lexemes.length}`
          }
          return yield* SqlSchema.single({ Request: Schema.Void, Result: StoredSearch, execute: () => listed(sql`s.id = ${row.id}::uuid`, 1, 0) })(undefined)
            .pipe(Effect.map(Option.some))
        })).pipe(Effect.orDie),

      /** One page of the account's searches, newest first, and how many it keeps. */
      page: (account: AccountId, limit: number, offset: number) =>
        Effect.all({
          rows: listed(sql`s.account_id = ${account}::uuid`, limit, offset),
          total: countOf(sql`select count(*)::int as n from saved_searches where account_id = ${account}::uuid`)
        }).pipe(Effect.orDie),

      /** The account's search by id; another account's is none. */
      find: (account: AccountId, id: SavedSearchId): Effect.Effect<Option.Option<StoredSearch>> =>
        listed(sql`s.id = ${id}::uuid and s.account_id = ${account}::uuid`, 1, 0).pipe(
          Effect.map((rows) => Option.fromNullable(rows[0])),
          Effect.orDie
        ),

      /**
       * Deletes the account's search and its match rows from before migration 0102; whether
       * there was one. Its query goes with its last search (the trigger of migration 0102).
       */
      remove: (account: AccountId, id: SavedSearchId): Effect.Effect<boolean> =>
        sql`
          with gone as (delete from saved_searches where id = ${id}::uuid and account_id = ${account}::uuid returning id),
               matches as (delete from saved_search_matches where saved_search_id in (select id from gone))
          select id from gone`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      /**
       * A keyset page of a search's matches, newest first seen first, ties by ad row id: the
       * search's rows that can hold the page's matches (by `newest`, and `oldest` not after the
       * cursor), unnested, sorted and cut. A search's rows: its query's of the passes that started
       * after it was saved (`after_pass`), and its own from before migration 0102.
       */
      matches: (id: SavedSearchId, after: Option.Option<MatchAfter>, take: number) => {
        // (Written out where it is read, not a shared CTE: a CTE read twice is materialized, every row of the query.)
        const rowsOf = (search: SavedSearchId) => sql`(
            select m.newest, m.oldest, m.first_seens, m.ad_ids from saved_search_matches m where m.saved_search_id = ${search}::uuid
            union all
            select m.newest, m.oldest, m.first_seens, m.ad_ids
              from saved_searches s join saved_search_query_matches m on m.query_id = s.query_id and m.pass > s.after_pass
             where s.id = ${search}::uuid)`
        const cursor = Option.match(after, { onNone: () => "infinity", onSome: ([firstSeen]) => firstSeen })
        return sql`
          with bound as (
            -- Rows whose every match is before the cursor each hold one for the page (their
            -- newest): only the rows at least as new as the take-th of those can be on it.
            select m.newest from ${rowsOf(id)} m
             where m.newest < ${cursor}::timestamptz
             order by m.newest desc
             offset ${take - 1} limit 1
          ), page as (
            select u.ad_id, u.first_seen
              from ${rowsOf(id)} m cross join lateral unnest(m.ad_ids, m.first_seens) as u(ad_id, first_seen)
             where m.newest >= coalesce((select newest from bound), '-infinity')
               and m.oldest <= ${cursor}::timestamptz
               and ${Option.match(after, {
                 onNone: () => sql`true`,
                 onSome: ([firstSeen, row]) => sql`(u.first_seen, u.ad_id) < (${firstSeen}::timestamptz, ${row}::bigint)`
               })}
             order by u.first_seen desc, u.ad_id desc
             limit ${take})
          select ${sql.literal(viewColumns)}, page.first_seen::text as sort_value
            from page join ads a on a.id = page.ad_id join advertisers adv on adv.id = a.advertiser_id
           order by page.first_seen desc, page.ad_id desc`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeMatches),
          Effect.map((rows) => rows.map((r): { ad: AdView; after: MatchAfter } => ({ ad: toView(r), after: [r.sort_value, r.row_id] })))
        )
      },

      /**
       * The matching pass of one import batch (H1): the batch's new ads against every saved
       * search's query (migration 0102: searches asking the same thing share one) in one
       * statement. The batch's ads are read once, with what the filters look at; candidates come
       * from the anchors (an ad's lexemes joined to its library's anchors: a conjunction's rarest
       * lexeme, each lexeme of an or) and from the queries without anchors (joined by
       * advertiser, domain, or the key of their format, niche and status filters in their
       * library); each is then held to every filter, the same conditions the search's `where`
       * sets (AdSearchRepo). The matches are written as one row per query and batch, under the
       * pass's number (a saved search sees the passes numbered after it was saved), not one per match; the batch's ads
       * are new to the library (the import stored them first), so no match is found twice. In
       * the same statement one pending row per query with new matches is kept for import
       * `importId` (its count and newest ads), which the import's end tells each saved search
       * of the query (`tell`). Answers how many queries matched and how many matches that makes
       * for their saved searches.
       */
      matchBatch: (adIds: ReadonlyArray<string>, at: Date, importId: string): Effect.Effect<BatchMatches> => {
        /** What a candidate pair (search `s`, ad `a` of the batch) must hold: the search's `where`. */
        const holds = sql`(
            (s.tsq is null or a.search_vector @@ s.tsq)
            and (s.advertiser_id is null or (a.advertiser_external_id = s.advertiser_id and a.advertiser_platform = s.library))
            and (s.domain is null or a.landing_domain = s.domain)
            and (s.status is null or a.status = s.status)
            and (s.formats is null or a.format = any(s.formats))
            and (s.countries is null or a.countries && s.countries)
            and (s.languages is null or a.languages && s.languages)
            and (s.platforms is null or a.publisher_platforms && s.platforms)
            and (s.niches is null or a.niche = any(s.niches))
            and (s.ctas is null or a.cta_type = any(s.ctas))
            and (s.first_seen_from is null or a.first_seen >= s.first_seen_from)
            and (s.first_seen_before is null or a.first_seen < s.first_seen_before)
            and (s.last_seen_from is null or a.last_seen >= s.last_seen_from)
            and (s.last_seen_before is null or a.last_seen < s.last_seen_before)
            and (s.min_days_running is null or a.days_running >= s.min_days_running)
            and (s.max_days_running is null or a.days_running <= s.max_days_running)
            and (s.min_likes is null or a.likes >= s.min_likes) and (s.max_likes is null or a.likes <= s.max_likes)
            and (s.min_comments is null or a.comments >= s.min_comments) and (s.max_comments is null or a.comments <= s.max_comments)
            and (s.min_shares is null or a.shares >= s.min_shares) and (s.max_shares is null or a.shares <= s.max_shares)
            and (s.min_views is null or a.views >= s.min_views) and (s.max_views is null or a.views <= s.max_views))`
        return adIds.length === 0 ? Effect.succeed({ queries: 0, found: 0, matches: 0 }) : sql`
          with pass as materialized (
            -- This pass's number: the searches saved from now on see the passes after it.
            select nextval('saved_search_passes') as n
          ), batch as materialized (
            select a.id, a.external_id, a.library, a.search_vector, a.landing_domain, a.status, a.format, a.countries, a.languages,
                   a.publisher_platforms, a.niche, a.cta_type, a.first_seen, a.last_seen, a.days_running,
                   a.likes, a.comments, a.shares, a.views, adv.external_id as advertiser_external_id, adv.platform as advertiser_platform
              from ads a
              -- Looked up by key per ad (offset 0 keeps the planner from hashing every advertiser instead).
              cross join lateral (select adv.external_id, adv.platform from advertisers adv where adv.id = a.advertiser_id offset 0) adv
             where a.id = any(${adIds}::bigint[])
          ), lexemes as materialized (
            select b.id, b.library, l.lexeme from batch b cross join lateral unnest(tsvector_to_array(b.search_vector)) as l(lexeme)
          ), anchored as (
            -- The batch's lexemes against the anchors in one join (a probe per ad read every anchor of its library).
            select sa.query_id as sid, x.id as aid, sa.alone
              from lexemes x join saved_search_query_anchors sa on sa.library = x.library and sa.lexeme = x.lexeme collate "C"
          ), candidates as (
            -- A search's only anchor meets an ad once; an or's anchors may meet it more than once.
            select sid, aid from anchored where alone
            union all
            select distinct sid, aid from anchored where not alone
          ), by_filters as materialized (
            -- The searches without a query, an advertiser or a domain, by the key of their
            -- format, niche and status filters: each of their values, or '' (any) for a filter
            -- they do not set. An ad offers each of its own values and ''; it meets a search
            -- through one key at most ('' is none of the values: formats and status are closed
            -- choices, a niche is a word; \`batch_keys\`), so only the pairs these filters allow
            -- are held to the rest, not every ad of the library.
            select s.*, f.v as key_format, n.v as key_niche, coalesce(s.status, '') as key_status
              from saved_search_queries s
              cross join lateral (select distinct v from unnest(coalesce(s.formats, '{""}')) v) f
              cross join lateral (select distinct v from unnest(coalesce(s.niches, '{""}')) v) n
             where not s.anchored and s.advertiser_id is null and s.domain is null
          ), batch_keys as materialized (
            select b.id, b.library, f.v as format, n.v as niche, st.v as status
              from batch b
              cross join lateral (values (b.format), ('')) f(v)
              cross join lateral (values (b.niche), ('')) n(v)
              cross join lateral (values (b.status), ('')) st(v)
          ), found as (
            -- Each branch holds its pairs to every filter itself, so only the pairs that match
            -- travel on.
            select s.id as query_id, a.id as ad_id, a.first_seen, a.external_id
              from candidates c join saved_search_queries s on s.id = c.sid join batch a on a.id = c.aid
             where ${holds}
            union all
            -- Without anchors: by the advertiser when the search names one, else by the landing
            -- domain,
            select s.id, a.id, a.first_seen, a.external_id from batch a
              join saved_search_queries s on s.library = a.library and s.advertiser_id = a.advertiser_external_id
             where not s.anchored and ${holds}
            union all
            select s.id, a.id, a.first_seen, a.external_id from batch a
              join saved_search_queries s on s.library = a.library and s.domain = a.landing_domain
             where not s.anchored and s.advertiser_id is null and ${holds}
            union all
            -- else by the key of its format, niche and status filters (by_filters).
            select s.id, a.id, a.first_seen, a.external_id
              from batch_keys bk
              join by_filters s on s.library = bk.library and s.key_format = bk.format and s.key_niche = bk.niche and s.key_status = bk.status
              join batch a on a.id = bk.id
             where ${holds}
          ), grouped as materialized (
            -- Per query, in the order /matches pages them: the batch's one match row of the query.
            select f.query_id, count(*)::int as count,
                   array_agg(f.first_seen order by f.first_seen desc, f.ad_id desc) as first_seens,
                   array_agg(f.ad_id order by f.first_seen desc, f.ad_id desc) as ad_rows,
                   (array_agg(f.external_id order by f.first_seen desc, f.ad_id desc))[1:${maxAdIdsPerEvent}] as ad_ids
              from found f
             group by f.query_id
          ), stored as (
            insert into saved_search_query_matches (query_id, pass, newest, oldest, first_seens, ad_ids, matches, matched_at)
            select g.query_id, p.n, g.first_seens[1], g.first_seens[g.count], g.first_seens, g.ad_rows, g.count, ${at}
              from grouped g, pass p
          ), pending as (
            insert into import_pending_query_matches (import_id, query_id, pass, count, sort_keys, ad_rows, ad_ids, written_at)
            select ${importId}::uuid, g.query_id, p.n, g.count, g.first_seens[1:${maxAdIdsPerEvent}], g.ad_rows[1:${maxAdIdsPerEvent}], g.ad_ids, ${at}
              from grouped g, pass p
          )
          select count(*)::int as queries, coalesce(sum(g.count), 0)::int as found, coalesce(sum(g.count * s.searches), 0)::int as matches
            from grouped g join saved_search_queries s on s.id = g.query_id`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeRows(BatchMatches)),
          Effect.map((rows) => rows[0] ?? { queries: 0, found: 0, matches: 0 })
        )
      },

      /**
       * The saved searches' events of import `importId` (and of imports that wrote nothing since
       * `staleBefore`: they died before their end), a `PendingEventsRepo` teller: its queries'
       * pending rows taken in one statement and told to each saved search of the query, one
       * `saved_search.matches_new` event per import and account naming each of its searches
       * (issue 44: 500 searches matching everything were 500 events an import, each fanned out to
       * every webhook), recorded by `record`. A search is told what the passes that started after
       * it was saved found, count summed and its newest ads named, the event's 100 shared in
       * turns; a search saved after every batch, or deleted, is told nothing. The searches of a
       * query that saw the same batches share one sum and one sort. Answers how many events.
       */
      tell: (importId: string, staleBefore: Date, record: (events: Fragment) => Fragment): Effect.Effect<number> =>
        // (Its CTEs' sizes are guesses to the planner, which nested-looped the pending rows over
        // the groups: hash joins only for this statement, since a batch outside an import is told
        // in its own transaction, whose later statements need nested loops.)
        forOneStatement(sql, "enable_nestloop", "off")(countOf(sql`
          with taken as (
            delete from import_pending_query_matches p
             where p.import_id = ${importId}::uuid
                or p.import_id in (select import_id from import_pending_query_matches group by import_id having max(written_at) < ${staleBefore})
            returning p.import_id, p.query_id, p.pass, p.count, p.sort_keys, p.ad_rows, p.ad_ids
          ), spans as materialized (
            select import_id, query_id, min(pass) as first_pass from taken group by import_id, query_id
          ), starts as materialized (
            -- Each search of a query that found something: the first of the import's passes it
            -- sees (one that started after it was saved; a search saved before the import sees them all).
            select s.id, s.account_id, s.library, p.import_id, p.query_id,
                   case when s.after_pass < p.first_pass then p.first_pass
                        else (select min(t.pass) from taken t where t.import_id = p.import_id and t.query_id = p.query_id and t.pass > s.after_pass)
                   end as start
              from spans p join saved_searches s on s.query_id = p.query_id
          ), groups as materialized (
            select row_number() over () as g, d.* from (select distinct import_id, query_id, start from starts where start is not null) d
          ), seen as materialized (
            select g.g, t.count, t.sort_keys, t.ad_rows, t.ad_ids
              from groups g join taken t on t.import_id = g.import_id and t.query_id = g.query_id and t.pass >= g.start
          ), counts as (
            select g, sum(count)::int as count from seen group by g
          ), newest as (
            select x.g, (array_agg(n.ad_id order by n.sort_key desc, n.ad_row desc))[1:${maxAdIdsPerEvent}] as ad_ids
              from seen x cross join lateral unnest(x.sort_keys, x.ad_rows, x.ad_ids) as n(sort_key, ad_row, ad_id)
             group by x.g
          ), told as materialized (
            -- Each search told, with how many of its account's searches the import tells (m).
            select st.import_id, st.account_id, st.id, st.library, c.count, n.ad_ids,
                   count(*) over (partition by st.import_id, st.account_id) as m
              from starts st join groups g using (import_id, query_id, start) join counts c on c.g = g.g join newest n on n.g = g.g
          ), turns as (
            -- H3's 100 ad ids of the account's one event, taken in turns: every search's newest,
            -- then every one's second newest, ..., searches in id order. The k-th newest (k > 1)
            -- comes after the m - 1 others' newest and its own k - 1: past 100 unless k <= 101 - m.
            select t.import_id, t.account_id, t.id, a.ad_id, a.k,
                   row_number() over (partition by t.import_id, t.account_id order by a.k, t.id) as turn
              from told t cross join lateral unnest(t.ad_ids) with ordinality as a(ad_id, k)
             where a.k = 1 or a.k <= ${maxAdIdsPerEvent + 1} - t.m
          ), shares as (
            select import_id, account_id, id, array_agg(ad_id order by k) as ad_ids
              from turns where turn <= ${maxAdIdsPerEvent} group by import_id, account_id, id
          ), events as materialized (
            -- One event per account and import, naming each of its searches (SPEC-NOTES "One event per account and import").
            select t.import_id, t.account_id,
                   jsonb_build_object('import_id', t.import_id, 'saved_searches', jsonb_agg(jsonb_build_object(
                     'saved_search_id', t.id, 'library', ${JSON.stringify(publicNameOf)}::jsonb ->> t.library, 'count', t.count,
                     'ad_ids', coalesce(to_jsonb(sh.ad_ids), '[]'::jsonb)) order by t.id)) as data
              from told t left join shares sh using (import_id, account_id, id)
             group by t.import_id, t.account_id
          ), recorded as (
            ${record(sql`select e.account_id, ${matchesNew}::text as type, e.data from events e order by e.import_id, e.account_id`)}
          )
          select count(*)::int as n from events`)).pipe(Effect.orDie),

      /**
       * Forgets match rows stored before `before` (migration 0105's `matched_at`), at most
       * `limit` of them, the queries' and those from before migration 0102 alike; how many went.
       */
      forgetStoredBefore: (before: Date, limit: number): Effect.Effect<number> =>
        countOf(sql`
          with queries as (
            delete from saved_search_query_matches where ctid = any(array(
              select ctid from saved_search_query_matches where matched_at < ${before} order by matched_at limit ${limit}))
            returning 1
          ), searches as (
            delete from saved_search_matches where ctid = any(array(
              select ctid from saved_search_matches where matched_at < ${before} order by matched_at limit ${limit}))
            returning 1
          )
          select ((select count(*) from queries) + (select count(*) from searches))::int as n`).pipe(Effect.orDie),

      /** The queries that hold more than `keep` matches. */
      queriesOver: (keep: number): Effect.Effect<ReadonlyArray<string>> =>
        sql<{ id: string }>`
          select query_id::text as id from saved_search_query_matches
           group by query_id having sum(coalesce(matches, cardinality(ad_ids))) > ${keep}`.pipe(
          Effect.flatMap(decodeRows(Schema.Struct({ id: Schema.String }))),
          Effect.map((rows) => rows.map((r) => r.id)),
          Effect.orDie
        ),

      /**
       * Keeps each of these queries' `keep` most recently found matches (rows by pass, newest
       * first; within the row that crosses the line, its first, the newest first seen, as
       * `/matches` orders them): the rows wholly past the line go, the one across it is cut.
       * Rows a concurrent pass writes meanwhile are not counted: the next prune counts them.
       */
      keepNewest: (queries: ReadonlyArray<string>, keep: number): Effect.Effect<void> =>
        queries.length === 0 ? Effect.void : sql`
          with ranked as materialized (
            select m.ctid as row, coalesce(m.matches, cardinality(m.ad_ids)) as n,
                   coalesce(sum(coalesce(m.matches, cardinality(m.ad_ids))) over (
                     partition by m.query_id order by m.pass desc rows between unbounded preceding and 1 preceding), 0) as newer
              from saved_search_query_matches m
             where m.query_id = any(${queries}::bigint[])
          ), gone as (
            delete from saved_search_query_matches m using ranked r where m.ctid = r.row and r.newer >= ${keep}
          )
          update saved_search_query_matches m
             set first_seens = m.first_seens[1:${keep} - r.newer], ad_ids = m.ad_ids[1:${keep} - r.newer],
                 oldest = m.first_seens[${keep} - r.newer], matches = ${keep} - r.newer
            from ranked r
           where m.ctid = r.row and r.newer < ${keep} and r.newer + r.n > ${keep}`.pipe(Effect.asVoid, Effect.orDie),

      /** The names of saved searches by id (those still kept). */
      namesOf: (ids: ReadonlyArray<string>): Effect.Effect<ReadonlyMap<string, string>> =>
        ids.length === 0 ? Effect.succeed(new Map()) : sql<{ id: string; name: string }>`
          select id::text, name from saved_searches where id = any(${ids}::uuid[])`.pipe(
          Effect.flatMap(decodeRows(Schema.Struct({ id: Schema.String, name: Schema.String }))),
          Effect.map((rows) => new Map(rows.map((r) => [r.id, r.name]))),
          Effect.orDie
        ),

      /** When an import last looked for matches (`last_checked_at` of the searches saved before it). */
      checked: (at: Date): Effect.Effect<void> =>
        sql`
          insert into saved_search_checks (singleton, checked_at) values (true, ${at})
          on conflict (singleton) do update set checked_at = greatest(saved_search_checks.checked_at, excluded.checked_at)`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
    }
  })
}) {}
