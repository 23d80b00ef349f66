import { SqlSchema } from "@effect/sql"
import { ReadSql } from "../../platform/db/Replicas.js"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import { StoreId, StoreProductId, StoreRow } from "../../kernel/Ids.js"

/**
 * The SQL of the hosted stores' read model (issue 20): stores with their estimated sales
 * (`store_daily`, mean of the days with known stock), the ads of the ad libraries that link to
 * them (`ads.store_id`), their products, daily series, ads and landers. Every value is a
 * parameter; column names come from constant tables.
 */

/** How a request names a store: its id (branded), or its domain (lowercase). */
export type StoreKey =
  | { readonly by: "id"; readonly value: StoreId }
  | { readonly by: "domain"; readonly value: string }

/** The days a window of estimates covers: `[from, to)` as UTC days. */
export interface Window {
  /** The world's today: estimates end the day before. */
  readonly today: string
  /** 30 days before today: the current window starts here... */
  readonly from30: string
  /** ...and the previous one 30 days earlier. */
  readonly from60: string
}

const Num = Schema.NullOr(Schema.Number)
const Str = Schema.NullOr(Schema.String)

const RawBest = Schema.Struct({
  id: Schema.NullOr(StoreProductId),
  title: Schema.String,
  price: Num,
  currency: Str,
  image_url: Str,
  url: Str,
  units: Num
})

export const StoreRowData = Schema.Struct({
  row: StoreRow,
  id: StoreId,
  domain: Schema.String,
  name: Str,
  platform: Str,
  theme: Str,
  apps: Schema.Array(Schema.String),
  country: Str,
  currency: Str,
  language: Str,
  product_count: Schema.NullOr(Schema.Int),
  launch_date: Str,
  monthly_visits: Num,
  units30: Num,
  rev30: Num,
  revprev: Num,
  ads_running: Schema.Int,
  best: Schema.Array(RawBest),
  record_best: Schema.Array(Schema.Struct({
    title: Schema.String,
    price: Schema.optional(Num),
    currency: Schema.optional(Str),
    image_url: Schema.optional(Str),
    url: Schema.optional(Str)
  })),
  social_links: Schema.Array(Schema.Struct({ network: Schema.String, url: Schema.String }))
})
export type StoreRowData = typeof StoreRowData.Type

export const ProductRowData = Schema.Struct({
  id: StoreProductId,
  title: Schema.String,
  price: Num,
  compare_at_price: Num,
  currency: Str,
  images: Schema.Array(Schema.String),
  url: Str,
  product_type: Str,
  published_on: Str,
  units: Num,
  revenue: Num,
  inventory: Schema.NullOr(Schema.Int)
})
export type ProductRowData = typeof ProductRowData.Type

export const DailyRowData = Schema.Struct({
  day: Schema.String,
  units: Num,
  revenue: Num,
  observed_products: Schema.Int,
  new_products: Schema.Int
})
export type DailyRowData = typeof DailyRowData.Type

export const AdRowData = Schema.Struct({
  id: Schema.String,
  library: Schema.String,
  status: Schema.String,
  format: Schema.String,
  headline: Str,
  landing_url: Str,
  first_seen: Schema.String,
  last_seen: Schema.String
})
export type AdRowData = typeof AdRowData.Type

export const AdTotalsData = Schema.Struct({ library: Schema.String, total: Schema.Int, running: Schema.Int })
export type AdTotalsData = typeof AdTotalsData.Type

export const LanderRowData = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  final_url: Str,
  domain: Schema.String,
  title: Str,
  page_type: Schema.String,
  linked_ads: Schema.Int,
  first_seen: Str,
  last_seen: Str
})
export type LanderRowData = typeof LanderRowData.Type

/** The filters of a store search, decoded (explorer and visual search). */
export interface StoreFilters {
  readonly q?: string | undefined
  readonly platform?: ReadonlyArray<string> | undefined
  readonly theme?: ReadonlyArray<string> | undefined
  readonly app?: ReadonlyArray<string> | undefined
  readonly country?: ReadonlyArray<string> | undefined
  readonly currency?: ReadonlyArray<string> | undefined
  readonly language?: ReadonlyArray<string> | undefined
  readonly min_products?: number | undefined
  readonly max_products?: number | undefined
  readonly min_revenue?: number | undefined
  readonly max_revenue?: number | undefined
  readonly min_visits?: number | undefined
  readonly max_visits?: number | undefined
  readonly min_ads?: number | undefined
  readonly max_ads?: number | undefined
  readonly ads_running?: boolean | undefined
  readonly launched_from?: string | undefined
  readonly launched_to?: string | undefined
}

export type StoreSort = "revenue" | "visits" | "growth_30d" | "ads" | "newest"
export type ProductSort = "sales" | "newest" | "price_low" | "price_high"

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`

/** `%`, `_` and `\` of a user's text match themselves in ILIKE. (Sorts name their table: an output column of the same name would win.) */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export class StoreCatalogRepo extends Effect.Service<StoreCatalogRepo>()("adintel/StoreCatalogRepo", {
  effect: Effect.gen(function*() {
    // Research reads: on a healthy replica when one is configured, read-only either way (issue 31).
    const sql = yield* ReadSql

    /**
     * Every store with what is estimated of it: the mean units and revenue of the last 30 days
     * with known stock (`avg` skips the unknown days), the 30 before, and its running ads.
     */
    const measured = (w: Window, where: Fragment) => sql`
      select s.*, m.units30, m.rev30, m.revprev, coalesce(a.n, 0)::int as ads_running
        from stores s
        left join lateral (
          select (avg(d.units) filter (where d.day >= ${w.from30}::date))::float8 as units30,
                 (avg(d.revenue) filter (where d.day >= ${w.from30}::date))::float8 as rev30,
                 (avg(d.revenue) filter (where d.day < ${w.from30}::date))::float8 as revprev
            from store_daily d
           where d.store_id = s.id and d.day >= ${w.from60}::date and d.day < ${w.today}::date
        ) m on true
        -- The running ads of the stores the filter keeps, counted by store: not a subquery per
        -- store, which on Citus would be correlated to a reference table and refused.
        left join (
          select a.store_id, count(*)::int as n from ads a
           where a.status = 'active' and a.store_id in (select s.id from stores s where ${where})
           group by a.store_id
        ) a on a.store_id = s.id
       where ${where}`

    /** Filters on the store's own columns: decided before anything is estimated. */
    const storeWhere = (f: StoreFilters): Fragment => {
      const lowerAny = (column: string, values: ReadonlyArray<string> | undefined) =>
        values === undefined ? null : sql`lower(${sql(column)}) = any(${values.map((v) => v.toLowerCase())}::text[])`
      const clauses: ReadonlyArray<Fragment | null> = [
        f.q === undefined ? null : sql`(s.name ilike ${likePattern(f.q)} or s.domain ilike ${likePattern(f.q)})`,
        lowerAny("platform", f.platform),
        lowerAny("theme", f.theme),
        f.app === undefined ? null : sql`s.apps && ${f.app.map((v) => v.toLowerCase())}::text[]`,
        f.country === undefined ? null : sql`s.country = any(${f.country}::text[])`,
        f.currency === undefined ? null : sql`s.currency = any(${f.currency}::text[])`,
        f.language === undefined ? null : sql`s.language = any(${f.language}::text[])`,
        f.min_products === undefined ? null : sql`s.product_count >= ${f.min_products}`,
        f.max_products === undefined ? null : sql`s.product_count <= ${f.max_products}`,
        f.min_visits === undefined ? null : sql`s.visits_estimate >= ${f.min_visits}`,
        f.max_visits === undefined ? null : sql`s.visits_estimate <= ${f.max_visits}`,
        f.launched_from === undefined ? null : sql`s.created_on >= ${f.launched_from}::date`,
        f.launched_to === undefined ? null : sql`s.created_on <= ${f.launched_to}::date`
      ]
      const kept = clauses.filter((c): c is Fragment => c !== null)
      return kept.length === 0 ? sql`true` : sql.and(kept)
    }

    /** Filters on what is estimated: revenue over 30 days, running ads. */
    const measuredWhere = (f: StoreFilters): Fragment => {
      const clauses: ReadonlyArray<Fragment | null> = [
        f.min_revenue === undefined ? null : sql`x.rev30 * 30 >= ${f.min_revenue}`,
        f.max_revenue === undefined ? null : sql`x.rev30 * 30 <= ${f.max_revenue}`,
        f.min_ads === undefined ? null : sql`x.ads_running >= ${f.min_ads}`,
        f.max_ads === undefined ? null : sql`x.ads_running <= ${f.max_ads}`,
        f.ads_running === undefined ? null : f.ads_running ? sql`x.ads_running > 0` : sql`x.ads_running = 0`
      ]
      const kept = clauses.filter((c): c is Fragment => c !== null)
      return kept.length === 0 ? sql`true` : sql.and(kept)
    }

    const growth = "case when x.revprev > 0 and x.rev30 is not null then x.rev30 / x.revprev - 1 end"
    // Ties by the store's id, A to Z (as the landers'): not by row id, which follows the order an
    // import happened to write the stores in (one lane on Citus, two on one PostgreSQL).
    const orders: Record<StoreSort, string> = {
      revenue: "x.rev30 desc nulls last, x.external_id",
      visits: "x.visits_estimate desc nulls last, x.external_id",
      growth_30d: `${growth} desc nulls last, x.external_id`,
      ads: "x.ads_running desc, x.external_id",
      newest: "x.created_on desc nulls last, x.external_id"
    }

    const Ids = Schema.Struct({ row: StoreRow, total: Schema.Int })
    const Found = Schema.Struct({ row: StoreRow, id: StoreId })

    return {
      /** The store a request names; several stores may share a domain: the first imported wins. */
      find: (key: StoreKey): Effect.Effect<Option.Option<{ readonly row: StoreRow; readonly id: StoreId }>> =>
        SqlSchema.findOne({
          Request: Schema.Void,
          Result: Found,
          execute: () =>
            key.by === "id"
              ? sql`select id::text as row, external_id as id from stores where external_id = ${key.value}`
              : sql`select id::text as row, external_id as id from stores where domain = ${key.value} order by id limit 1`
        })(undefined).pipe(Effect.orDie),

      /** One page of the stores matching, in the sort's order, and how many match. */
      search: (filters: StoreFilters, sort: StoreSort, w: Window, page: { readonly limit: number; readonly offset: number }) =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: Ids,
          execute: () => sql`
            select x.id::text as row, (count(*) over ())::int as total
              from (${measured(w, storeWhere(filters))}) x
             where ${measuredWhere(filters)}
             order by ${sql.literal(orders[sort])}
             limit ${page.limit} offset ${page.offset}`
        })(undefined).pipe(Effect.orDie),

      /** How many stores match (the page past the last still says how many there are). */
      count: (filters: StoreFilters, w: Window) =>
        SqlSchema.single({
          Request: Schema.Void,
          Result: Schema.Struct({ n: Schema.Int }),
          execute: () => sql`select count(*)::int as n from (${measured(w, storeWhere(filters))}) x where ${measuredWhere(filters)}`
        })(undefined).pipe(Effect.map(({ n }) => n), Effect.orDie),

      /** The row ids of every store matching (visual search narrows its candidates by them). */
      matching: (filters: StoreFilters, w: Window): Effect.Effect<ReadonlyArray<StoreRow>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: Schema.Struct({ row: StoreRow }),
          execute: () => sql`select x.id::text as row from (${measured(w, storeWhere(filters))}) x where ${measuredWhere(filters)}`
        })(undefined).pipe(Effect.map((rows) => rows.map((r) => r.row)), Effect.orDie),

      /** The stores of these rows as answers show them, with their estimates and best sellers. */
      stores: (rows: ReadonlyArray<StoreRow>, w: Window): Effect.Effect<ReadonlyArray<StoreRowData>> =>
        rows.length === 0 ? Effect.succeed([]) : SqlSchema.findAll({
          Request: Schema.Void,
          Result: StoreRowData,
          execute: () => sql`
            select x.id::text as row, x.external_id as id, x.domain, x.name, x.platform, x.theme, x.apps, x.country,
                   x.currency, x.language, x.product_count, to_char(x.created_on, 'YYYY-MM-DD') as launch_date,
                   x.visits_estimate::float8 as monthly_visits, x.units30, x.rev30, x.revprev, x.ads_running,
                   coalesce(b.best, '[]'::json) as best, x.best_sellers as record_best, x.social_links
              from (${measured(w, sql`s.id = any(${rows}::bigint[])`)}) x
              left join lateral (
                select json_agg(json_build_object('id', t.id, 'title', t.title, 'price', t.price, 'currency', t.currency,
                                                  'image_url', t.image_url, 'url', t.url, 'units', t.units)
                                order by t.units desc nulls last, t.id) as best
                  from (
                    select p.id as pid, p.external_id as id, p.title, p.price::float8 as price, p.currency,
                           p.images->>0 as image_url, p.url, sum(d.units)::float8 as units
                      from store_products p
                      left join store_product_daily d on d.product_id = p.id and d.day >= ${w.from30}::date and d.day < ${w.today}::date
                     where p.store_id = x.id
                     group by p.id
                     -- Ties (units unknown or equal) by the product's id in the store: not by row
                     -- id, which follows the order an import happened to write the products in.
                     order by units desc nulls last, p.external_id
                     limit 3
                  ) t
              ) b on true`
        })(undefined).pipe(
          Effect.map((found) => {
            const byRow = new Map(found.map((r) => [r.row, r]))
            return rows.flatMap((row) => Option.toArray(Option.fromNullable(byRow.get(row))))
          }),
          Effect.orDie
        ),

      /** A page of a store's products with their last 30 days, and how many it has. */
      products: (store: StoreRow, sort: ProductSort, w: Window, page: { readonly limit: number; readonly offset: number }) => {
        const order = {
          sales: "units desc nulls last, p.id",
          newest: "p.published_on desc nulls last, p.id desc",
          price_low: "p.price asc nulls last, p.id",
          price_high: "p.price desc nulls last, p.id"
        }[sort]
        return Effect.all({
          data: SqlSchema.findAll({
            Request: Schema.Void,
            Result: ProductRowData,
            execute: () => sql`
              select p.external_id as id, p.title, p.price::float8 as price, p.compare_at_price::float8 as compare_at_price,
                     p.currency, (select coalesce(array_agg(i), '{}') from jsonb_array_elements_text(p.images) i) as images,
                     p.url, p.product_type, to_char(p.published_on, 'YYYY-MM-DD') as published_on,
                     s.units, s.revenue, l.inventory
                from store_products p
                left join lateral (
                  select sum(d.units)::float8 as units, sum(d.units * d.price)::float8 as revenue
                    from store_product_daily d
                   where d.product_id = p.id and d.day >= ${w.from30}::date and d.day < ${w.today}::date
                ) s on true
                left join lateral (
                  select d.inventory from store_product_daily d where d.product_id = p.id and d.day < ${w.today}::date
                   order by d.day desc limit 1
                ) l on true
               where p.store_id = ${store}::bigint
               order by ${sql.literal(order)}
               limit ${page.limit} offset ${page.offset}`
          })(undefined),
          total: SqlSchema.single({
            Request: Schema.Void,
            Result: Schema.Struct({ n: Schema.Int }),
            execute: () => sql`select count(*)::int as n from store_products where store_id = ${store}::bigint`
          })(undefined).pipe(Effect.map(({ n }) => n))
        }).pipe(Effect.orDie)
      },

      /** Every day of `[from, to]`, each with the store's sums (null: unknown) and its new products. */
      daily: (store: StoreRow, from: string, to: string): Effect.Effect<ReadonlyArray<DailyRowData>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: DailyRowData,
          execute: () => sql`
            select to_char(g.day, 'YYYY-MM-DD') as day, d.units::float8 as units, d.revenue::float8 as revenue,
                   coalesce(d.products, 0)::int as observed_products, coalesce(n.n, 0)::int as new_products
              from generate_series(${from}::date, ${to}::date, interval '1 day') as g(day)
              left join store_daily d on d.store_id = ${store}::bigint and d.day = g.day::date
              left join (
                select published_on, count(*)::int as n from store_products
                 where store_id = ${store}::bigint and published_on between ${from}::date and ${to}::date
                 group by published_on
              ) n on n.published_on = g.day::date
             order by g.day`
        })(undefined).pipe(Effect.orDie),

      /** The ads linking to the store per library, and the newest of them. */
      ads: (store: StoreRow, newest: number) =>
        Effect.all({
          totals: SqlSchema.findAll({
            Request: Schema.Void,
            Result: AdTotalsData,
            execute: () => sql`
              select library, count(*)::int as total, (count(*) filter (where status = 'active'))::int as running
                from ads where store_id = ${store}::bigint group by library order by library`
          })(undefined),
          recent: SqlSchema.findAll({
            Request: Schema.Void,
            Result: AdRowData,
            execute: () => sql`
              select external_id as id, library, status, format, headline, landing_url,
                     ${sql.literal(iso("first_seen"))} as first_seen, ${sql.literal(iso("last_seen"))} as last_seen
                from ads a where a.store_id = ${store}::bigint
               order by a.first_seen desc, a.id desc limit ${newest}`
          })(undefined)
        }).pipe(Effect.orDie),

      /** The products the store published on or after `since`, newest first, and how many. */
      newProducts: (store: StoreRow, since: string, limit: number) =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: Schema.Struct({
            id: StoreProductId,
            title: Schema.String,
            price: Num,
            currency: Str,
            image_url: Str,
            published_on: Schema.String,
            total: Schema.Int
          }),
          execute: () => sql`
            select external_id as id, title, price::float8 as price, currency, images->>0 as image_url,
                   to_char(published_on, 'YYYY-MM-DD') as published_on, (count(*) over ())::int as total
              from store_products p
             where p.store_id = ${store}::bigint and p.published_on >= ${since}::date
             order by p.published_on desc, p.id desc limit ${limit}`
        })(undefined).pipe(Effect.orDie),

      /** The landers that point at the store (`landers.store_id`), most recently seen first. */
      landers: (store: StoreRow, limit: number): Effect.Effect<ReadonlyArray<LanderRowData>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: LanderRowData,
          execute: () => sql`
            select external_id as id, url, final_url, domain, title, page_type, linked_ads,
                   ${sql.literal(iso("first_seen"))} as first_seen, ${sql.literal(iso("last_seen"))} as last_seen
              from landers l where l.store_id = ${store}::bigint
             order by l.last_seen desc nulls last, l.id desc limit ${limit}`
        })(undefined).pipe(Effect.orDie)
    }
  })
}) {}
