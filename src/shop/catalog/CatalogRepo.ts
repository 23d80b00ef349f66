import { SqlClient, SqlSchema } from "@effect/sql"
import { unboundedStatements } from "../../platform/db/Database.js"
import { ReadSql } from "../../platform/db/Replicas.js"
import { dayBounds } from "../../platform/db/DaySql.js"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import type { UtcDay } from "../../kernel/UtcDay.js"
import { type EntitySpec, type ExploreParams, type Link, type ShopEntity, ShopRecordId, specOf } from "./Entities.js"
import type { Period } from "./Period.js"
import { type RecordOf, records } from "./Views.js"
import { decodedBoolean, decodedNumber, decodedText, decodedTexts, keysOf } from "../../kernel/Guards.js"

/**
 * The SQL of the short-video shop's catalog read model: the records' views with their period
 * metrics, found, sorted and paged (explore and the lists of the detail pages), trending and
 * title search, the daily series, the category tree and the rollups. Reads the catalog tables
 * of migration 0002 with the indexes of 0013 and the rollups of 0014. Only `ShopCatalog` uses
 * it; every row is decoded through the schema of what it selects.
 */

/** Which records a query is about, and the period of their metrics. */
export interface CatalogQuery<E extends ShopEntity = ShopEntity> {
  readonly entity: E
  readonly region: string
  readonly params: ExploreParams
  readonly period: Period
  /** One record only, by its id (a detail page's profile). */
  readonly only?: ShopRecordId
  /** The rollup window (days) that holds exactly this period, when one is fresh. */
  readonly rollup?: number
}

/** One page of them, in an order. */
export interface PageQuery<E extends ShopEntity = ShopEntity> extends CatalogQuery<E> {
  readonly sort: string
  readonly descending: boolean
  readonly limit: number
  readonly offset: number
}

/** Each metric of an entity over a period (null: no data). */
export type MetricValues = Readonly<Record<string, number | null>>

/** A record as its row reads: its id and region, its own fields, its metrics over the period and the one before. */
export interface CatalogRow<E extends ShopEntity = ShopEntity> {
  readonly id: ShopRecordId
  readonly region: string
  readonly record: RecordOf<E>
  readonly current: MetricValues
  readonly previous: MetricValues
}

export interface Rows<A> {
  readonly rows: ReadonlyArray<A>
  readonly total: number
}

/** Products ranked by the growth of a metric over a window against the window before. */
export interface TrendingQuery {
  readonly region: string
  readonly metric: "gmv" | "units" | "views"
  readonly window: Period
  readonly categoryId: ShopRecordId | undefined
  /** The rollup (days) that holds exactly this window and the one before, when fresh. */
  readonly rollup?: number
  readonly limit: number
  readonly offset: number
}

export interface Trending {
  readonly row: CatalogRow<"products">
  readonly growth: number
  readonly current: number
  readonly previous: number
}

/** Products whose title matches words, best first; their metrics over `period`. */
export interface TitleQuery {
  readonly region: string
  readonly q: string
  readonly period: Period
  readonly limit: number
  readonly offset: number
}

export interface TitleMatch {
  readonly row: CatalogRow<"products">
  readonly relevance: number
}

/** A day of a record's series: the day and each metric column of its daily table. */
export interface SeriesDay {
  readonly day: UtcDay
  readonly values: MetricValues
}

export const CategoryRow = Schema.Struct({ id: Schema.String, name: Schema.String, level: Schema.Number, parent_id: Schema.NullOr(Schema.String) })
export type CategoryRow = typeof CategoryRow.Type

export const CategoryCounts = Schema.Struct({ products: Schema.Int, shops: Schema.Int, creators: Schema.Int, subcategories: Schema.Int })
export type CategoryCounts = typeof CategoryCounts.Type

/** Each entity's view: what its rows select (from `e`, the entity), named as its `recordFields`. */
const views: Record<ShopEntity, string> = {
  categories: `e.name, e.level, (select p.external_id from shop_categories p where p.id = e.parent_id) as parent_id`,
  shops: `e.name, e.shop_type, e.rating::float8 as rating, e.followers::float8 as followers,
          (select json_build_object('id', c.external_id, 'name', c.name) from shop_categories c where c.id = e.main_category_id) as main_category`,
  creators: `e.handle, e.nickname, e.followers::float8 as followers, e.engagement_rate::float8 as engagement_rate`,
  videos: `e.description, e.duration_seconds, e.is_ad,
           to_char(e.published_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as published_at,
           (select json_build_object('id', c.external_id, 'handle', c.handle) from shop_creators c where c.id = e.creator_id) as creator`,
  products: `e.title, e.price_min::float8 as price_min, e.price_max::float8 as price_max, e.currency,
             e.commission_rate::float8 as commission_rate, e.rating::float8 as rating, e.reviews,
             e.launched_on::text as launched_on, e.images,
             (select json_build_object('id', s.external_id, 'name', s.name) from shop_shops s where s.id = e.shop_id) as shop,
             (select json_build_object('id', c.external_id, 'name', c.name) from shop_categories c where c.id = e.category_id) as category`
}

const NullableNumber = Schema.NullOr(Schema.Number)

/** Some metric columns, each a number or null. */
const metricColumnsOf = (columns: ReadonlyArray<string>) => Schema.Struct(Object.fromEntries(columns.map((column) => [column, NullableNumber])))

/** The metrics of those columns, by metric name. */
const metricsAt = (names: ReadonlyArray<string>, prefix: string, row: MetricValues): MetricValues =>
  Object.fromEntries(names.map((name) => [name, row[`${prefix}${name}`] ?? null]))

const RowHead = Schema.Struct({ total: Schema.Int, external_id: ShopRecordId, region: Schema.String })

/** Rows read through a schema. */
const decodeAll = <A, I>(schema: Schema.Schema<A, I>) => Schema.decodeUnknown(Schema.Array(schema))

/**
 * A page's rows, decoded: the head, the record's own fields and its metrics are read through
 * their schemas (three views of one flat row); a row that does not decode is a defect.
 */
const decodeRows = <E extends ShopEntity>(entity: E) => {
  const names = keysOf(specOf(entity).metrics)
  const head = decodeAll(RowHead)
  const own = decodeAll(records[entity])
  const metrics = decodeAll(metricColumnsOf([...names.map((n) => `cur_${n}`), ...names.map((n) => `prev_${n}`)]))
  return (raw: ReadonlyArray<unknown>) =>
    Effect.map(Effect.all([head(raw), own(raw), metrics(raw)]), ([heads, fields, values]): Rows<CatalogRow<E>> => ({
      total: heads[0]?.total ?? 0,
      rows: heads.map((h, i) => ({
        id: h.external_id,
        region: h.region,
        record: fields[i]!,
        current: metricsAt(names, "cur_", values[i]!),
        previous: metricsAt(names, "prev_", values[i]!)
      }))
    }))
}

/** A category and every category below it, as a parenthesised query of row ids (for `in`, `array`). */
const categorySubtree = (sql: SqlClient.SqlClient, region: string, externalId: string) => sql`(
  with recursive tree as (
    select id from shop_categories where region = ${region} and external_id = ${externalId}
    union all
    select c.id from shop_categories c join tree t on c.parent_id = t.id)
  select id from tree)`

export class CatalogRepo extends Effect.Service<CatalogRepo>()("adintel/shop/CatalogRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // Explore, counts, series and categories read on a healthy replica when one is configured
    // (issue 31); the rollups' refresh and its state stay on the primary.
    const read = yield* ReadSql
    const days = dayBounds(sql)

    /** Each period metric of the entity as an aggregate over daily rows `d`. */
    const aggregates = (spec: EntitySpec) =>
      Object.entries(spec.metrics).map(([name, metric]) =>
        metric.kind === "sum"
          ? sql`sum(d.${sql(metric.column)})::float8 as ${sql(name)}`
          : sql`((array_agg(d.${sql(metric.column)} order by d.day desc) filter (where d.${sql(metric.column)} is not null))[1]
                 - (array_agg(d.${sql(metric.column)} order by d.day) filter (where d.${sql(metric.column)} is not null))[1])::float8 as ${sql(name)}`
      )

    /** Every metric of the entity over `from`..`to`, in one pass over its daily rows. */
    const metricsOver = (spec: EntitySpec, from: string, to: string) =>
      sql`(select ${sql.csv(aggregates(spec))} from ${sql(spec.daily.table)} d
            where d.${sql(spec.daily.key)} = e.id and d.day between ${from}::date and ${to}::date)`

    /**
     * The period's (or the previous period's) metrics joined as `alias`: from the rollups when
     * the query may use them, else summed from the daily series.
     */
    const metricsJoin = (query: Pick<CatalogQuery, "entity" | "period" | "rollup">, previous: boolean, alias: "cur" | "prev") => {
      const spec = specOf(query.entity)
      if (query.rollup !== undefined) {
        return sql`left join shop_rollups ${sql(alias)} on ${sql(alias)}.entity = ${query.entity} and ${sql(alias)}.days = ${query.rollup}
                     and ${sql(alias)}.previous = ${previous} and ${sql(alias)}.record_id = e.id`
      }
      const [from, to] = previous ? [query.period.previousFrom, query.period.previousTo] : [query.period.from, query.period.to]
      return sql`left join lateral ${metricsOver(spec, from, to)} ${sql(alias)} on true`
    }

    const subtree = (region: string, externalId: string) => categorySubtree(sql, region, externalId)

    /** The row id of a record of another entity, by its id in the region. */
    const idOf = (table: string, region: string, externalId: string) =>
      sql`(select id from ${sql(table)} where region = ${region} and external_id = ${externalId})`

    /** Relations through the products videos show. */
    const linked = (through: Link, region: string, id: string): Fragment => {
      switch (through) {
        case "videoProduct":
          return sql`e.id in (select vp.video_id from shop_video_products vp where vp.product_id = ${idOf("shop_products", region, id)})`
        case "videoShop":
          return sql`e.id in (select vp.video_id from shop_video_products vp join shop_products p on p.id = vp.product_id
                               where p.shop_id = ${idOf("shop_shops", region, id)})`
        case "videoSimilar":
          return sql`e.id in (select b.video_id from shop_video_products a join shop_video_products b on b.product_id = a.product_id
                               where a.video_id = ${idOf("shop_videos", region, id)} and b.video_id <> a.video_id)`
        case "productVideo":
          return sql`e.id in (select vp.product_id from shop_video_products vp where vp.video_id = ${idOf("shop_videos", region, id)})`
        case "creatorProduct":
          return sql`e.id in (select v.creator_id from shop_videos v join shop_video_products vp on vp.video_id = v.id
                               where vp.product_id = ${idOf("shop_products", region, id)})`
        case "creatorShop":
          return sql`e.id in (select v.creator_id from shop_videos v join shop_video_products vp on vp.video_id = v.id
                               join shop_products p on p.id = vp.product_id where p.shop_id = ${idOf("shop_shops", region, id)})`
        case "productCreator":
          return sql`e.id in (select vp.product_id from shop_video_products vp join shop_videos v on v.id = vp.video_id
                               where v.creator_id = ${idOf("shop_creators", region, id)})`
        case "shopCreator":
          return sql`e.id in (select p.shop_id from shop_products p join shop_video_products vp on vp.product_id = p.id
                               join shop_videos v on v.id = vp.video_id where v.creator_id = ${idOf("shop_creators", region, id)})`
      }
    }

    /** The entity's own filters: every clause parameterised; column names come from the declaration. */
    const filters = (query: CatalogQuery): Fragment => {
      const spec = specOf(query.entity)
      const p = query.params
      const clauses: Array<Fragment> = [sql`e.region = ${query.region}`]
      if (query.only !== undefined) clauses.push(sql`e.external_id = ${query.only}`)
      const column = (name: string) => sql.literal(name)
      for (const [name, filter] of Object.entries(spec.filters)) {
        const c = filter.constraint
        switch (c.kind) {
          case "range": {
            const [min, max] = [decodedNumber(`min_${name}`, p[`min_${name}`]), decodedNumber(`max_${name}`, p[`max_${name}`])]
            if (min !== undefined) clauses.push(sql`${column(c.column)} >= ${min}`)
            if (max !== undefined) clauses.push(sql`${column(c.column)} <= ${max}`)
            break
          }
          case "days": {
            const [from, to] = [decodedText(`${name}_from`, p[`${name}_from`]), decodedText(`${name}_to`, p[`${name}_to`])]
            if (from !== undefined) clauses.push(sql`${column(c.column)} >= ${days.startOf(from)}`)
            if (to !== undefined) clauses.push(sql`${column(c.column)} < ${days.endOf(to)}`)
            break
          }
          default: {
            const raw = p[name]
            if (raw === undefined) break
            if (c.kind === "choice") clauses.push(sql`${column(c.column)}::text = any(${decodedTexts(name, raw)}::text[])`)
            if (c.kind === "bool") clauses.push(sql`${column(c.column)} = ${decodedBoolean(name, raw)}`)
            if (c.kind === "choice" || c.kind === "bool") break
            // The other kinds take a text.
            const value = decodedText(name, raw) ?? ""
            if (c.kind === "ref") {
              clauses.push(sql`${column(c.column)} = ${idOf(c.table, query.region, value)}`)
            }
            if (c.kind === "category") {
              clauses.push(
                c.many
                  ? sql`${column(c.column)} && array${subtree(query.region, value)}`
                  : // an array, not `in (query)`: the planner then sees a few ids and uses the column's index
                  sql`${column(c.column)} = any(array${subtree(query.region, value)})`
              )
            }
            if (c.kind === "keyword") {
              const pattern = `%${value.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`
              clauses.push(sql.or(c.columns.map((col) => sql`${column(col)} ilike ${pattern}`)))
            }
            if (c.kind === "linked") clauses.push(linked(c.through, query.region, value))
          }
        }
      }
      return sql.and(clauses)
    }

    /**
     * The matching rows, with their metrics over the period when `current` (always when a
     * metric bounds them) and over the period before when `previous`. Each costs a pass over
     * every matching row's days: a count without metric bounds needs neither, a page sorted by
     * anything but growth computes the previous period for its own rows only.
     */
    const matching = (query: CatalogQuery, needs: { readonly current: boolean; readonly previous: boolean }) => {
      const spec = specOf(query.entity)
      const names = Object.keys(spec.metrics)
      const metricBounds = names.flatMap((name) => {
        const [min, max] = [decodedNumber(`min_${name}`, query.params[`min_${name}`]), decodedNumber(`max_${name}`, query.params[`max_${name}`])]
        const bounds: Array<Fragment | null> = [
          min === undefined ? null : sql`cur.${sql(name)} >= ${min}`,
          max === undefined ? null : sql`cur.${sql(name)} <= ${max}`
        ]
        return bounds.filter((c): c is Fragment => c !== null)
      })
      const current = needs.current || metricBounds.length > 0
      // Each metric as a column of its own: a page reads thousands of matching rows to sort them,
      // and building a whole record per row (`to_jsonb`) once cost as much as finding them.
      const columns = [
        ...(current ? metricColumns(names, "cur") : []),
        ...(needs.previous ? metricColumns(names, "prev") : [])
      ]
      return sql`
        select ${sql.csv([sql`e.id`, ...columns])}
          from ${sql(spec.table)} e
          ${current ? metricsJoin(query, false, "cur") : sql``}
          ${needs.previous ? metricsJoin(query, true, "prev") : sql``}
         where ${filters(query)} and ${sql.and(metricBounds)}`
    }

    /**
     * The period's (`cur`) or the previous period's (`prev`) metrics as columns `cur_gmv`, ...:
     * read from that metrics join, or passed on from the `page` that read them.
     */
    const metricColumns = (names: ReadonlyArray<string>, alias: "cur" | "prev", source: "cur" | "prev" | "page" = alias) =>
      names.map((name) => {
        const column = sql(`${alias}_${name}`)
        return source === "page" ? sql`page.${column}` : sql`${sql(alias)}.${sql(name)} as ${column}`
      })

    const isGrowth = (query: PageQuery) => query.sort.endsWith("_growth")

    /** Whether the sort is one of the entity's columns (`e`), not a metric of the period (`m`). */
    const byColumn = (query: PageQuery) => query.sort in specOf(query.entity).sorts && !(query.sort in specOf(query.entity).metrics)

    /** A sort as SQL: a metric, a metric's growth, or a column; nulls last either way. */
    const orderOf = (query: PageQuery) => {
      const spec = specOf(query.entity)
      const direction = sql.literal(query.descending ? "desc" : "asc")
      const metric = query.sort.endsWith("_growth") ? query.sort.slice(0, -"_growth".length) : undefined
      const value = byColumn(query)
        ? sql.literal(spec.sorts[query.sort]!)
        : metric !== undefined && metric in spec.metrics
        ? sql`(m.${sql(`cur_${metric}`)} - m.${sql(`prev_${metric}`)}) / nullif(m.${sql(`prev_${metric}`)}, 0)`
        : sql`m.${sql(`cur_${query.sort}`)}`
      return sql`${value} ${direction} nulls last, m.id ${direction}`
    }

    /** The products view's columns (`e`) and its metrics over a period and the one before (`cur_*`, `prev_*`). */
    const productViewOver = (period: Period) => {
      const names = Object.keys(specOf("products").metrics)
      return {
        columns: sql`e.external_id, e.region, ${sql.literal(views.products)},
                     ${sql.csv([...metricColumns(names, "cur"), ...metricColumns(names, "prev")])}`,
        joins: sql`${metricsJoin({ entity: "products", period }, false, "cur")}
                   ${metricsJoin({ entity: "products", period }, true, "prev")}`
      }
    }

    const countOf = (from: Fragment) =>
      read`select count(*)::int as total from ${from} m`.pipe(
        Effect.flatMap(decodeAll(Schema.Struct({ total: Schema.Int }))),
        Effect.map((rows) => rows[0]?.total ?? 0)
      )

    /**
     * One page of products ranked by `order` over `matches` (`m`), with their view over
     * `period`, what `answer` adds of the ranking (from `page`) and the total: the total comes
     * with the rows, and from its own count only when the page is past the end.
     */
    const rankedPage = <A, I>(
      ranking: { readonly matches: Fragment; readonly columns: Fragment; readonly order: Fragment; readonly answer: Fragment },
      window: { readonly period: Period; readonly limit: number; readonly offset: number },
      extra: Schema.Schema<A, I>
    ): Effect.Effect<Rows<{ readonly row: CatalogRow<"products"> } & A>> =>
      Effect.gen(function*() {
        const view = productViewOver(window.period)
        const raw = yield* read`
          with m as (${ranking.matches}),
          page as (
            select m.id, ${ranking.columns}, count(*) over () as total, row_number() over (order by ${ranking.order}) as position
              from m
             order by position
             limit ${window.limit} offset ${window.offset})
          select page.total::int as total, ${ranking.answer}, ${view.columns}
            from page join shop_products e on e.id = page.id
            ${view.joins}
           order by page.position`
        const decoded = yield* decodeRows("products")(raw)
        const extras = yield* decodeAll(extra)(raw)
        const total = raw.length > 0 || window.offset === 0 ? decoded.total : yield* countOf(sql`(${ranking.matches})`)
        return { total, rows: decoded.rows.map((row, i) => ({ row, ...extras[i]! })) }
      }).pipe(Effect.orDie)

    /** Products with some `metric` in both windows, and the two sums. */
    const trendingMatches = (query: TrendingQuery) => {
      const metric = sql(query.metric)
      const { from, previousFrom, to } = query.window
      const inCategory = query.categoryId === undefined ? sql`true` : sql`e.category_id = any(array${subtree(query.region, query.categoryId)})`
      // The window summed ahead (the rollups): one row per product and window.
      if (query.rollup !== undefined) {
        return sql`
          select e.id, e.external_id, cur.${metric} as current, prev.${metric} as previous
            from shop_products e
            join shop_rollups cur on cur.entity = 'products' and cur.days = ${query.rollup} and not cur.previous and cur.record_id = e.id
            join shop_rollups prev on prev.entity = 'products' and prev.days = ${query.rollup} and prev.previous and prev.record_id = e.id
           where e.region = ${query.region} and ${inCategory} and cur.${metric} > 0 and prev.${metric} > 0`
      }
      const clauses = [sql`e.region = ${query.region}`, sql`d.day between ${previousFrom}::date and ${to}::date`, inCategory]
      return sql`
        select d.product_id as id, e.external_id,
               (sum(d.${metric}) filter (where d.day >= ${from}::date))::float8 as current,
               (sum(d.${metric}) filter (where d.day < ${from}::date))::float8 as previous
          from shop_product_daily d join shop_products e on e.id = d.product_id
         where ${sql.and(clauses)}
         group by d.product_id, e.external_id
        having sum(d.${metric}) filter (where d.day >= ${from}::date) > 0
           and sum(d.${metric}) filter (where d.day < ${from}::date) > 0`
    }

    const titleMatches = (query: TitleQuery) =>
      sql`
        select e.id, e.reviews, e.external_id,
               ((word_similarity(${query.q}, e.title) + similarity(${query.q}, e.title)) / 2)::float8 as relevance
          from shop_products e
         where e.region = ${query.region} and ${query.q} <% e.title`

    const RollupDay = SqlSchema.findOne({
      Request: Schema.Struct({ entity: Schema.String, days: Schema.Int }),
      Result: Schema.Struct({ day_to: Schema.String }),
      execute: ({ days, entity }) => sql`select day_to::text as day_to from shop_rollup_state where entity = ${entity} and days = ${days}`
    })

    const Categories = SqlSchema.findAll({
      Request: Schema.String,
      Result: CategoryRow,
      execute: (region) => read`
        select c.external_id as id, c.name, c.level, p.external_id as parent_id
          from shop_categories c left join shop_categories p on p.id = c.parent_id
         where c.region = ${region}
         order by c.level, c.name, c.id`
    })

    const Counts = SqlSchema.single({
      Request: Schema.Struct({ region: Schema.String, id: Schema.String }),
      Result: CategoryCounts,
      execute: ({ id, region }) => read`
        select (select count(*) from shop_products where category_id in ${subtree(region, id)})::int as products,
               (select count(*) from shop_shops where main_category_id in ${subtree(region, id)})::int as shops,
               (select count(*) from shop_creators where category_ids && array${subtree(region, id)})::int as creators,
               ((select count(*) from ${subtree(region, id)} t) - 1)::int as subcategories`
    })

    return {
      /** The last day the rollup of `days` holds for an entity, if it has been computed. */
      rollupDay: (entity: ShopEntity, days: number): Effect.Effect<Option.Option<UtcDay>> =>
        RollupDay({ entity, days }).pipe(Effect.map(Option.map((row) => row.day_to)), Effect.orDie),

      /**
       * Computes an entity's rollup of `days` days ending `dayTo` (and the window before), in one
       * transaction: readers see the old rollup or the new one, never a half.
       */
      refreshRollup: (entity: ShopEntity, days: number, dayTo: UtcDay, now: Date): Effect.Effect<void> => {
        const spec = specOf(entity)
        const names = Object.keys(spec.metrics)
        const window = (previous: boolean) => {
          const last = previous ? sql`(${dayTo}::date - ${days}::int)` : sql`${dayTo}::date`
          return sql`
            insert into shop_rollups (entity, days, previous, record_id, ${sql.csv(names.map((n) => sql`${sql(n)}`))})
            select ${entity}, ${days}, ${previous}, a.${sql(spec.daily.key)}, ${sql.csv(names.map((n) => sql`a.${sql(n)}`))}
              from (select d.${sql(spec.daily.key)}, ${sql.csv(aggregates(spec))} from ${sql(spec.daily.table)} d
                     where d.day between ${last} - ${days - 1}::int and ${last}
                     group by d.${sql(spec.daily.key)}) a`
        }
        return sql.withTransaction(Effect.gen(function*() {
          // Background: sums a window of every record's daily rows, not bound by a request's timeout.
          yield* unboundedStatements(sql)
          yield* sql`delete from shop_rollups where entity = ${entity} and days = ${days}`
          yield* window(false)
          yield* window(true)
          yield* sql`insert into shop_rollup_state (entity, days, day_to, refreshed_at) values (${entity}, ${days}, ${dayTo}::date, ${now})
                     on conflict (entity, days) do update set day_to = excluded.day_to, refreshed_at = excluded.refreshed_at`
        })).pipe(Effect.asVoid, Effect.orDie)
      },

      /** Whether a record exists in the region. */
      exists: (entity: ShopEntity, region: string, externalId: ShopRecordId): Effect.Effect<boolean> =>
        read`select 1 from ${sql(specOf(entity).table)} where region = ${region} and external_id = ${externalId}`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      /**
       * A record's daily series over `from`..`to`: every day of the range, each metric column of
       * its daily table (null where the source has nothing).
       */
      series: (entity: ShopEntity, region: string, externalId: ShopRecordId, from: UtcDay, to: UtcDay): Effect.Effect<ReadonlyArray<SeriesDay>> => {
        const spec = specOf(entity)
        const columns = [...new Set(Object.values(spec.metrics).map((m) => m.column))]
        return read`
          select g.day::date::text as day, ${sql.csv(columns.map((c) => sql`d.${sql(c)}::float8 as ${sql(c)}`))}
            from generate_series(${from}::date, ${to}::date, interval '1 day') as g(day)
            left join ${sql(spec.daily.table)} d
              on d.day = g.day::date and d.${sql(spec.daily.key)} = ${idOf(spec.table, region, externalId)}
           order by g.day`.pipe(
          Effect.flatMap((raw) =>
            Effect.zip(
              decodeAll(Schema.Struct({ day: Schema.String }))(raw),
              decodeAll(metricColumnsOf(columns))(raw)
            )
          ),
          Effect.map(([days, values]) => days.map(({ day }, i) => ({ day, values: values[i]! }))),
          Effect.orDie
        )
      },

      count: (query: CatalogQuery): Effect.Effect<number> =>
        countOf(sql`(${matching(query, { current: false, previous: false })})`).pipe(Effect.orDie),

      /** One P2 page in the sort's order, the total, and each row. */
      page: <E extends ShopEntity>(query: PageQuery<E>): Effect.Effect<Rows<CatalogRow<E>>> => {
        const spec = specOf(query.entity)
        const names = Object.keys(spec.metrics)
        return read`
          with m as (${matching(query, { current: true, previous: isGrowth(query) })}),
          page as (
            select m.*, count(*) over () as total, row_number() over (order by ${orderOf(query)}) as position
              from m ${byColumn(query) ? sql`join ${sql(spec.table)} e on e.id = m.id` : sql``}
             order by position
             limit ${query.limit} offset ${query.offset})
          select ${sql.csv([
            sql`page.total::int as total`,
            ...metricColumns(names, "cur", "page"),
            ...metricColumns(names, "prev", isGrowth(query) ? "page" : "prev")
          ])},
                 e.external_id, e.region, ${sql.literal(views[query.entity])}
            from page join ${sql(spec.table)} e on e.id = page.id
            ${isGrowth(query) ? sql`` : metricsJoin(query, true, "prev")}
           order by page.position`.pipe(Effect.flatMap(decodeRows(query.entity)), Effect.orDie)
      },

      /** Trending products: one P2 page by growth (then the larger current value, then id), and the total. */
      trending: (query: TrendingQuery): Effect.Effect<Rows<Trending>> =>
        rankedPage(
          {
            matches: trendingMatches(query),
            columns: sql`m.current, m.previous, (m.current - m.previous) / m.previous as growth`,
            order: sql`(m.current - m.previous) / m.previous desc, m.current desc, m.external_id collate "C"`,
            answer: sql`page.growth, page.current, page.previous`
          },
          { ...query, period: query.window },
          Schema.Struct({ growth: Schema.Number, current: Schema.Number, previous: Schema.Number })
        ),

      /** Product search: one P2 page, best match first (then more reviews), and the total. */
      titleSearch: (query: TitleQuery): Effect.Effect<Rows<TitleMatch>> =>
        rankedPage(
          {
            matches: titleMatches(query),
            columns: sql`m.relevance`,
            order: sql`m.relevance desc, m.reviews desc nulls last, m.external_id collate "C"`,
            answer: sql`round(page.relevance::numeric, 4)::float8 as relevance`
          },
          query,
          Schema.Struct({ relevance: Schema.Number })
        ),

      /** Every category of a region, parents before children. */
      categories: (region: string): Effect.Effect<ReadonlyArray<CategoryRow>> => Categories(region).pipe(Effect.orDie),

      /** How many products, shops (by main category) and creators a category and those below it hold. */
      categoryCounts: (region: string, id: ShopRecordId): Effect.Effect<CategoryCounts> => Counts({ region, id }).pipe(Effect.orDie)
    }
  })
}) {}
