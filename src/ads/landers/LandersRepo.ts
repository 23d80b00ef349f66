import { SqlClient, SqlSchema } from "@effect/sql"
import { dayBounds } from "../../platform/db/DaySql.js"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import { adIdsShown, type ExploreBody, type FavoriteLander, type Lander, type LanderSort } from "./Api.js"
import { countOf } from "../../platform/db/Rows.js"
import type { AccountId } from "../../kernel/Ids.js"
import { ReadSql } from "../../platform/db/Replicas.js"
import { databaseMode } from "../../platform/db/mode/DatabaseMode.js"

/** A lander's row id (a bigint as text): what a favorite refers to. */
export const LanderRowId = Schema.String.pipe(Schema.brand("LanderRowId"))
export type LanderRowId = typeof LanderRowId.Type

const LanderRow = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  final_url: Schema.String,
  domain: Schema.String,
  type: Schema.String,
  title: Schema.NullOr(Schema.String),
  headline: Schema.NullOr(Schema.String),
  niche: Schema.NullOr(Schema.String),
  platform: Schema.NullOr(Schema.String),
  countries: Schema.Array(Schema.String),
  languages: Schema.Array(Schema.String),
  price: Schema.NullOr(Schema.Number),
  currency: Schema.NullOr(Schema.String),
  screenshot_url: Schema.NullOr(Schema.String),
  store_id: Schema.NullOr(Schema.String),
  first_seen: Schema.NullOr(Schema.String),
  last_seen: Schema.NullOr(Schema.String),
  days_running: Schema.NullOr(Schema.Int),
  ads_count: Schema.Int,
  row_id: Schema.String,
  /** The newest ads' ids, read in the page's statement on one PostgreSQL (`adIdsColumn`). */
  ad_ids: Schema.optional(Schema.Array(Schema.String))
})
type LanderRow = typeof LanderRow.Type
const FavoriteRow = Schema.Struct({ ...LanderRow.fields, favorited_at: Schema.DateFromSelf })

/** The newest ads of each lander of a page, by lander row id (`adIdsOf`). */
const AdIdsRow = Schema.Struct({ row_id: Schema.String, ad_ids: Schema.Array(Schema.String) })

const toLander = (ids: ReadonlyMap<string, ReadonlyArray<string>>) => ({ ad_ids, ads_count, row_id, ...row }: LanderRow): Lander => ({
  ...row,
  ads: { count: ads_count, ids: ad_ids ?? ids.get(row_id) ?? [] }
})

/** An instant as every view shows it. */
const isoUtc = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`

/** Landers with their ad counts (migration 0079: every lander has its row). */
const landersWithCounts = `landers l join lander_ad_counts c on c.lander_id = l.id`

/** The same with what explore filters on (migration 0081: every lander has its row). */
const landersFiltered = `${landersWithCounts} join lander_facets f on f.lander_id = l.id`

/** Where each filter reads its value: the narrow facets (lower-cased niche and platform), or the lander's own row. */
const filterColumns = {
  facets: {
    type: "f.page_type", niche: "f.niche_key", domain: "f.domain", platform: "f.platform_key", countries: "f.countries",
    languages: "f.languages", first_seen: "f.first_seen", last_seen: "f.last_seen", price: "f.offer_price", currency: "f.currency"
  },
  landers: {
    type: "l.page_type", niche: "lower(l.niche)", domain: "l.domain", platform: "lower(l.platform)", countries: "l.countries",
    languages: "l.languages", first_seen: "l.first_seen", last_seen: "l.last_seen", price: "l.offer_price", currency: "l.currency"
  }
} as const

/** The view's columns over `landers l` and `lander_ad_counts c`. */
const viewColumns = `
  l.external_id as id, l.url, coalesce(l.final_url, l.url) as final_url, l.domain, l.page_type as type,
  l.title, l.headline, l.niche, l.platform, l.countries, l.languages,
  l.offer_price::float8 as price, l.currency, l.screenshot_url,
  (select s.external_id from stores s where s.id = l.store_id) as store_id,
  ${isoUtc("l.first_seen")} as first_seen, ${isoUtc("l.last_seen")} as last_seen,
  floor(extract(epoch from (l.last_seen - l.first_seen)) / 86400)::int as days_running,
  c.ads_count, l.id::text as row_id`

/** A lander's newest ads' ids, in its page's statement: on one PostgreSQL (`adIdsOf`). */
const adIdsColumn = `,
  array(select a.external_id from ads a where a.lander_id = l.id order by a.first_seen desc, a.id desc limit ${adIdsShown}) as ad_ids`

/** What an add did; `present` and `full` (at the cap) wrote nothing. */
export type Added = "added" | "present" | "full"

/** The SQL of the lander library (issue 20): explore over `landers`, and `lander_favorites`. */
export class LandersRepo extends Effect.Service<LandersRepo>()("adintel/LandersRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // Explore reads on a replica when one is healthy (issue 31); favorites read and write the primary.
    const read = yield* ReadSql
    const sharded = (yield* databaseMode)._tag === "Citus"

    /** The page's columns: with each lander's newest ads on one PostgreSQL, a subquery per lander on its index. */
    const pageColumns = sharded ? viewColumns : viewColumns + adIdsColumn

    /**
     * On Citus, the newest ads (up to `adIdsShown`) of each lander of a page, by a statement of
     * its own: a subquery correlated to a reference table is refused there, so the landers' ads
     * are read from every shard and ranked on the coordinator. On one PostgreSQL the page's own
     * statement read them (`pageColumns`). Each shard first keeps the newest of each of its
     * advertisers' ads of a lander (a window by the distribution column, which Citus runs on the
     * shards), so the coordinator ranks at most that many an advertiser, not every ad of the
     * page's landers: at a million ads those were 80 times one server's CPU (docs/SCALING.md
     * section 5).
     */
    const adIdsOf = (client: SqlClient.SqlClient, rows: ReadonlyArray<LanderRow>) =>
      !sharded || rows.length === 0 ? Effect.succeed(new Map<string, ReadonlyArray<string>>()) : SqlSchema.findAll({
        Request: Schema.Void,
        Result: AdIdsRow,
        execute: () => client`
          select y.lander_id::text as row_id, array_agg(y.external_id order by y.n) as ad_ids
            from (select x.lander_id, x.external_id,
                         row_number() over (partition by x.lander_id order by x.first_seen desc, x.id desc) as n
                    from (select a.lander_id, a.external_id, a.first_seen, a.id,
                                 row_number() over (partition by a.advertiser_id, a.lander_id order by a.first_seen desc, a.id desc) as m
                            from ads a where a.lander_id = any(${rows.map((row) => row.row_id)}::bigint[])) x
                   where x.m <= ${adIdsShown}) y
           where y.n <= ${adIdsShown}
           group by y.lander_id`
      })(undefined).pipe(Effect.map((found) => new Map(found.map((row) => [row.row_id, row.ad_ids] as const))))

    const { endOf, startOf } = dayBounds(sql)
    const lowered = (values: ReadonlyArray<string>) => values.map((v) => v.toLowerCase())
    const query = (q: string) => sql`websearch_to_tsquery('english', ${q})`

    /**
     * The filters, every value parameterised. Without `q` they read the narrow `lander_facets f`
     * (a total then scans 46 MB, not the 293 MB of 1.2 KB lander rows, at 10M ads); with `q` the
     * full-text match drives the query, and they read the matching landers' own row `l`, not a
     * facet row per match. The ad count is in `lander_ad_counts c` either way.
     */
    const where = (f: ExploreBody): Fragment => {
      const on = f.q === undefined ? filterColumns.facets : filterColumns.landers
      const column = (name: keyof typeof on) => sql.literal(on[name])
      const clauses: ReadonlyArray<Fragment | undefined> = [
        f.q === undefined ? undefined : sql`l.search_vector @@ ${query(f.q)}`,
        f.type === undefined ? undefined : sql`${column("type")} = any(${f.type}::text[])`,
        f.niche === undefined ? undefined : sql`${column("niche")} = any(${lowered(f.niche)}::text[])`,
        f.domain === undefined ? undefined : sql`${column("domain")} = any(${f.domain}::text[])`,
        f.platform === undefined ? undefined : sql`${column("platform")} = any(${lowered(f.platform)}::text[])`,
        f.country === undefined ? undefined : sql`${column("countries")} && ${f.country}::text[]`,
        f.language === undefined ? undefined : sql`${column("languages")} && ${f.language}::text[]`,
        f.first_seen_from === undefined ? undefined : sql`${column("first_seen")} >= ${startOf(f.first_seen_from)}`,
        f.first_seen_to === undefined ? undefined : sql`${column("first_seen")} < ${endOf(f.first_seen_to)}`,
        f.last_seen_from === undefined ? undefined : sql`${column("last_seen")} >= ${startOf(f.last_seen_from)}`,
        f.last_seen_to === undefined ? undefined : sql`${column("last_seen")} < ${endOf(f.last_seen_to)}`,
        f.min_ads === undefined ? undefined : sql`c.ads_count >= ${f.min_ads}`,
        f.max_ads === undefined ? undefined : sql`c.ads_count <= ${f.max_ads}`,
        f.min_price === undefined ? undefined : sql`${column("price")} >= ${f.min_price}`,
        f.max_price === undefined ? undefined : sql`${column("price")} <= ${f.max_price}`,
        f.currency === undefined ? undefined : sql`${column("currency")} = ${f.currency}`
      ]
      const present = clauses.filter((clause): clause is Fragment => clause !== undefined)
      return present.length === 0 ? sql`true` : sql.and(present)
    }

    /** What a page reads: the landers with their counts, and their facets when the filters read them. */
    const pageFrom = (f: ExploreBody) => (f.q === undefined ? landersFiltered : landersWithCounts)

    /** What the total counts over: the filters' own table, with the counts only when a filter reads them. */
    const totalFrom = (f: ExploreBody) =>
      (f.q === undefined ? "lander_facets f" : "landers l") +
      (f.min_ads === undefined && f.max_ads === undefined ? "" : ` join lander_ad_counts c on c.lander_id = ${f.q === undefined ? "f.lander_id" : "l.id"}`)

    /** Ties broken by the lander's id (A to Z), so every order is total and pages never overlap. */
    const orderOf = (sort: LanderSort, q: string | undefined): Fragment => {
      switch (sort) {
        case "relevance":
          return sql`ts_rank_cd(l.search_vector, ${query(q ?? "")}) desc, l.external_id`
        case "newest":
          return sql`l.first_seen desc nulls last, l.external_id`
        case "most_ads":
          return sql`c.ads_count desc, c.external_id`
        case "longest_running":
          return sql`(l.last_seen - l.first_seen) desc nulls last, l.external_id`
      }
    }

    const count = (from: Fragment, where: Fragment) =>
      countOf(read`select count(*)::int as n from ${from} where ${where}`)

    const isFavorite = (account: AccountId, lander: LanderRowId) =>
      Effect.map(sql`select 1 from lander_favorites where account_id = ${account}::uuid and lander_id = ${lander}::bigint`, (rows) => rows.length > 0)

    return {
      /** One P2 page of the landers the filters match, and how many match in all. */
      explore: (
        filters: ExploreBody,
        sort: LanderSort,
        window: { readonly limit: number; readonly offset: number }
      ): Effect.Effect<{ readonly landers: ReadonlyArray<Lander>; readonly total: number }> =>
        Effect.all({
          landers: SqlSchema.findAll({
            Request: Schema.Void,
            Result: LanderRow,
            execute: () => read`
              select ${sql.literal(pageColumns)} from ${sql.literal(pageFrom(filters))}
               where ${where(filters)}
               order by ${orderOf(sort, filters.q)}
               limit ${window.limit} offset ${window.offset}`
          })(undefined).pipe(Effect.flatMap((rows) => Effect.map(adIdsOf(read, rows), (ids) => rows.map(toLander(ids))))),
          total: count(sql.literal(totalFrom(filters)), where(filters))
        }, { concurrency: 2 }).pipe(Effect.orDie),

      /** A lander's row by its imported id. */
      find: (externalId: string): Effect.Effect<Option.Option<LanderRowId>> =>
        SqlSchema.findOne({
          Request: Schema.Void,
          Result: Schema.Struct({ row: LanderRowId }),
          execute: () => sql`select id::text as row from landers where external_id = ${externalId}`
        })(undefined).pipe(Effect.map(Option.map((r) => r.row)), Effect.orDie),

      /**
       * Removes the favorite when present, else adds it within the cap. Toggles of one account
       * take turns (a transaction-scoped advisory lock), so the count the cap is checked against
       * holds until the insert, on every replica.
       */
      toggle: (account: AccountId, lander: LanderRowId, now: Date, cap: number): Effect.Effect<Added | "removed"> =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`select pg_advisory_xact_lock(hashtext('adintel.lander_favorites'), hashtext(${account}))`
          if (yield* isFavorite(account, lander)) {
            yield* sql`delete from lander_favorites where account_id = ${account}::uuid and lander_id = ${lander}::bigint`
            return "removed" as const
          }
          if ((yield* count(sql`lander_favorites f`, sql`f.account_id = ${account}::uuid`)) >= cap) return "full" as const
          yield* sql`insert into lander_favorites (account_id, lander_id, created_at) values (${account}::uuid, ${lander}::bigint, ${now})`
          return "added" as const
        })).pipe(Effect.orDie),

      /** One P2 page of the account's favorite landers, newest first, and how many it has. */
      favorites: (
        account: AccountId,
        window: { readonly limit: number; readonly offset: number }
      ): Effect.Effect<{ readonly landers: ReadonlyArray<FavoriteLander>; readonly total: number }> =>
        Effect.all({
          landers: SqlSchema.findAll({
            Request: Schema.Void,
            Result: FavoriteRow,
            execute: () => sql`
              select ${sql.literal(pageColumns)}, f.created_at as favorited_at
                from lander_favorites f join ${sql.literal(landersWithCounts)} on l.id = f.lander_id
               where f.account_id = ${account}::uuid
               order by f.created_at desc, f.seq desc
               limit ${window.limit} offset ${window.offset}`
          })(undefined).pipe(
            Effect.flatMap((rows) =>
              Effect.map(adIdsOf(sql, rows), (ids) =>
                rows.map(({ favorited_at, ...row }) => ({ ...toLander(ids)(row), favorited_at: favorited_at.toISOString() }))))
          ),
          total: count(sql`lander_favorites f`, sql`f.account_id = ${account}::uuid`)
        }).pipe(Effect.orDie)
    }
  })
}) {}
