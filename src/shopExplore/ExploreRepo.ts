import { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect } from "effect"
import type { EntityView } from "./Api.js"
import { entities, type EntitySpec, type ExploreParams, type Link, type ShopEntity } from "./Entities.js"

/** The days period metrics are computed over, and the period just before, of the same length. */
export interface Period {
  readonly from: string
  readonly to: string
  readonly previousFrom: string
  readonly previousTo: string
}

export interface ExplorePlan {
  readonly entity: ShopEntity
  readonly region: string
  readonly params: ExploreParams
  readonly period: Period
  /** One record only, by its id (a detail page's totals). */
  readonly only?: string
  /** The rollup window (days) that holds exactly this period, when one is fresh. */
  readonly rollup?: number
}

export interface PagePlan extends ExplorePlan {
  readonly sort: string
  readonly descending: boolean
  readonly limit: number
  readonly offset: number
}

type Row = Record<string, any>

/** Each entity's view: what its rows select (from `e`, the entity) and how they read. */
const views: Record<ShopEntity, { readonly select: string; readonly read: (r: Row) => Record<string, unknown> }> = {
  categories: {
    select: `e.name, e.level, (select p.external_id from shop_categories p where p.id = e.parent_id) as parent_external_id`,
    read: (r) => ({ name: r.name, level: r.level, parent_id: r.parent_external_id })
  },
  shops: {
    select: `e.name, e.shop_type, e.rating::float8 as rating, e.followers::float8 as followers,
             (select json_build_object('id', c.external_id, 'name', c.name) from shop_categories c where c.id = e.main_category_id) as main_category`,
    read: (r) => ({ name: r.name, shop_type: r.shop_type, rating: r.rating, followers: r.followers, main_category: r.main_category })
  },
  creators: {
    select: `e.handle, e.nickname, e.followers::float8 as followers, e.engagement_rate::float8 as engagement_rate`,
    read: (r) => ({ handle: r.handle, nickname: r.nickname, followers: r.followers, engagement_rate: r.engagement_rate })
  },
  videos: {
    select: `e.description, e.duration_seconds, e.is_ad,
             to_char(e.published_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as published_at,
             (select json_build_object('id', c.external_id, 'handle', c.handle) from shop_creators c where c.id = e.creator_id) as creator`,
    read: (r) => ({
      description: r.description,
      creator: r.creator,
      duration_seconds: r.duration_seconds,
      published_at: r.published_at,
      is_ad: r.is_ad
    })
  },
  products: {
    select: `e.title, e.price_min::float8 as price_min, e.price_max::float8 as price_max, e.currency,
             e.commission_rate::float8 as commission_rate, e.rating::float8 as rating, e.reviews,
             e.launched_on::text as launched_on, e.images,
             (select json_build_object('id', s.external_id, 'name', s.name) from shop_shops s where s.id = e.shop_id) as shop,
             (select json_build_object('id', c.external_id, 'name', c.name) from shop_categories c where c.id = e.category_id) as category`,
    read: (r) => ({
      title: r.title,
      shop: r.shop,
      category: r.category,
      price_min: r.price_min,
      price_max: r.price_max,
      currency: r.currency,
      commission_rate: r.commission_rate,
      rating: r.rating,
      reviews: r.reviews,
      launched_on: r.launched_on,
      images: r.images
    })
  }
}

/** A category and every category below it, as a parenthesised query of row ids (for `in`, `array`). */
export const categorySubtree = (sql: SqlClient.SqlClient, region: string, externalId: string) => sql`(
  with recursive tree as (
    select id from shop_categories where region = ${region} and external_id = ${externalId}
    union all
    select c.id from shop_categories c join tree t on c.parent_id = t.id)
  select id from tree)`

const growth = (current: number | null, previous: number | null) =>
  current === null || previous === null || previous === 0 ? null : Math.round(((current - previous) / previous) * 10_000) / 10_000

export class ExploreRepo extends Effect.Service<ExploreRepo>()("adintel/ExploreRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

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
     * the plan may use them, else summed from the daily series.
     */
    const metricsJoin = (plan: ExplorePlan, previous: boolean, alias: "cur" | "prev") => {
      const spec = entities[plan.entity]
      if (plan.rollup !== undefined) {
        return sql`left join shop_rollups ${sql(alias)} on ${sql(alias)}.entity = ${plan.entity} and ${sql(alias)}.days = ${plan.rollup}
                     and ${sql(alias)}.previous = ${previous} and ${sql(alias)}.record_id = e.id`
      }
      const [from, to] = previous ? [plan.period.previousFrom, plan.period.previousTo] : [plan.period.from, plan.period.to]
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
    const filters = (plan: ExplorePlan): Fragment => {
      const spec = entities[plan.entity]
      const p = plan.params
      const clauses: Array<Fragment> = [sql`e.region = ${plan.region}`]
      if (plan.only !== undefined) clauses.push(sql`e.external_id = ${plan.only}`)
      const column = (name: string) => sql.literal(name)
      for (const [name, filter] of Object.entries(spec.filters)) {
        const c = filter.constraint
        switch (c.kind) {
          case "range": {
            const [min, max] = [p[`min_${name}`], p[`max_${name}`]] as Array<number | undefined>
            if (min !== undefined) clauses.push(sql`${column(c.column)} >= ${min}`)
            if (max !== undefined) clauses.push(sql`${column(c.column)} <= ${max}`)
            break
          }
          case "days": {
            const [from, to] = [p[`${name}_from`], p[`${name}_to`]] as Array<string | undefined>
            if (from !== undefined) clauses.push(sql`${column(c.column)} >= (${from}::date::timestamp at time zone 'UTC')`)
            if (to !== undefined) clauses.push(sql`${column(c.column)} < ((${to}::date + 1)::timestamp at time zone 'UTC')`)
            break
          }
          default: {
            const value = p[name]
            if (value === undefined) break
            if (c.kind === "choice") clauses.push(sql`${column(c.column)}::text = any(${value as ReadonlyArray<string>}::text[])`)
            if (c.kind === "bool") clauses.push(sql`${column(c.column)} = ${value as boolean}`)
            if (c.kind === "ref") {
              clauses.push(sql`${column(c.column)} = ${idOf(c.table, plan.region, value as string)}`)
            }
            if (c.kind === "category") {
              clauses.push(
                c.many
                  ? sql`${column(c.column)} && array${subtree(plan.region, value as string)}`
                  : // an array, not `in (query)`: the planner then sees a few ids and uses the column's index
                  sql`${column(c.column)} = any(array${subtree(plan.region, value as string)})`
              )
            }
            if (c.kind === "keyword") {
              const pattern = `%${(value as string).replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`
              clauses.push(sql.or(c.columns.map((col) => sql`${column(col)} ilike ${pattern}`)))
            }
            if (c.kind === "linked") clauses.push(linked(c.through, plan.region, value as string))
          }
        }
      }
      return sql.and(clauses)
    }

    /** The matching rows with their metrics over the period and the period before. */
    /**
     * The matching rows, with their metrics over the period when `current` (always when a
     * metric bounds them) and over the period before when `previous`. Each costs a pass over
     * every matching row's days: a count without metric bounds needs neither, a page sorted by
     * anything but growth computes the previous period for its own rows only.
     */
    const matching = (plan: ExplorePlan, needs: { readonly current: boolean; readonly previous: boolean }) => {
      const spec = entities[plan.entity]
      const names = Object.keys(spec.metrics)
      const metricBounds = names.flatMap((name) => {
        const [min, max] = [plan.params[`min_${name}`], plan.params[`max_${name}`]] as Array<number | undefined>
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
          ${current ? metricsJoin(plan, false, "cur") : sql``}
          ${needs.previous ? metricsJoin(plan, true, "prev") : sql``}
         where ${filters(plan)} and ${sql.and(metricBounds)}`
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

    const isGrowth = (plan: PagePlan) => plan.sort.endsWith("_growth")

    /** Whether the sort is one of the entity's columns (`e`), not a metric of the period (`m`). */
    const byColumn = (plan: PagePlan) => plan.sort in entities[plan.entity].sorts && !(plan.sort in entities[plan.entity].metrics)

    /** A sort as SQL: a metric, a metric's growth, or a column; nulls last either way. */
    const orderOf = (plan: PagePlan) => {
      const spec = entities[plan.entity]
      const direction = sql.literal(plan.descending ? "desc" : "asc")
      const metric = plan.sort.endsWith("_growth") ? plan.sort.slice(0, -"_growth".length) : undefined
      const value = byColumn(plan)
        ? sql.literal(spec.sorts[plan.sort]!)
        : metric !== undefined && metric in spec.metrics
        ? sql`(m.${sql(`cur_${metric}`)} - m.${sql(`prev_${metric}`)}) / nullif(m.${sql(`prev_${metric}`)}, 0)`
        : sql`m.${sql(`cur_${plan.sort}`)}`
      return sql`${value} ${direction} nulls last, m.id ${direction}`
    }

    return {
      /** The last day the rollup of `days` holds for an entity, if it has been computed. */
      rollupDay: (entity: ShopEntity, days: number) =>
        sql<{ day_to: string }>`select day_to::text as day_to from shop_rollup_state where entity = ${entity} and days = ${days}`.pipe(
          Effect.map((rows) => rows[0]?.day_to),
          Effect.orDie
        ),

      /**
       * Computes an entity's rollup of `days` days ending `dayTo` (and the window before), in one
       * transaction: readers see the old rollup or the new one, never a half.
       */
      refreshRollup: (entity: ShopEntity, days: number, dayTo: string, now: Date) => {
        const spec = entities[entity]
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
          yield* sql`delete from shop_rollups where entity = ${entity} and days = ${days}`
          yield* window(false)
          yield* window(true)
          yield* sql`insert into shop_rollup_state (entity, days, day_to, refreshed_at) values (${entity}, ${days}, ${dayTo}::date, ${now})
                     on conflict (entity, days) do update set day_to = excluded.day_to, refreshed_at = excluded.refreshed_at`
        })).pipe(Effect.asVoid, Effect.orDie)
      },

      /** Whether a record exists in the region. */
      exists: (entity: ShopEntity, region: string, externalId: string) =>
        sql`select 1 from ${sql(entities[entity].table)} where region = ${region} and external_id = ${externalId}`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      /**
       * A record's daily series over `from`..`to`: every day of the range, each metric column of
       * its daily table (null where the source has nothing).
       */
      series: (entity: ShopEntity, region: string, externalId: string, from: string, to: string) => {
        const spec = entities[entity]
        const columns = [...new Set(Object.values(spec.metrics).map((m) => m.column))]
        return sql<Row>`
          select g.day::date::text as day, ${sql.csv(columns.map((c) => sql`d.${sql(c)}::float8 as ${sql(c)}`))}
            from generate_series(${from}::date, ${to}::date, interval '1 day') as g(day)
            left join ${sql(spec.daily.table)} d
              on d.day = g.day::date and d.${sql(spec.daily.key)} = ${idOf(spec.table, region, externalId)}
           order by g.day`.pipe(Effect.orDie)
      },

      count: (plan: ExplorePlan) =>
        sql<{ total: number }>`select count(*)::int as total from (${matching(plan, { current: false, previous: false })}) m`.pipe(
          Effect.map((rows) => rows[0]?.total ?? 0),
          Effect.orDie
        ),

      /** One P2 page in the sort's order, the total, and each row's view. */
      page: (plan: PagePlan): Effect.Effect<{ readonly rows: ReadonlyArray<EntityView>; readonly total: number }> => {
        const spec = entities[plan.entity]
        const names = Object.keys(spec.metrics)
        return sql<Row>`
          with m as (${matching(plan, { current: true, previous: isGrowth(plan) })}),
          page as (
            select m.*, count(*) over () as total, row_number() over (order by ${orderOf(plan)}) as position
              from m ${byColumn(plan) ? sql`join ${sql(spec.table)} e on e.id = m.id` : sql``}
             order by position
             limit ${plan.limit} offset ${plan.offset})
          select ${sql.csv([
            sql`page.total::int as total`,
            ...metricColumns(names, "cur", "page"),
            ...metricColumns(names, "prev", isGrowth(plan) ? "page" : "prev")
          ])},
                 e.external_id, e.region, ${sql.literal(views[plan.entity].select)}
            from page join ${sql(spec.table)} e on e.id = page.id
            ${isGrowth(plan) ? sql`` : metricsJoin(plan, true, "prev")}
           order by page.position`.pipe(
          Effect.map((rows) => ({
            total: rows[0]?.total ?? 0,
            rows: rows.map((r) => {
              const metrics: Record<string, number | null> = {}
              for (const name of names) metrics[name] = r[`cur_${name}`] ?? null
              for (const name of names) metrics[`${name}_growth`] = growth(r[`cur_${name}`] ?? null, r[`prev_${name}`] ?? null)
              return {
                id: r.external_id,
                region: r.region,
                ...views[plan.entity].read(r),
                period: { date_from: plan.period.from, date_to: plan.period.to, metrics }
              } as EntityView
            })
          })),
          Effect.orDie
        )
      }
    }
  })
}) {}
