import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { Effect } from "effect"
import { defaultPeriodDays } from "../shopExplore/Entities.js"
import { categorySubtree } from "../shopExplore/ExploreRepo.js"
import { type FoundProduct, type Suggestion, type SuggestionType, suggestionTypes, type TrendingMetric, type TrendingProduct } from "./Api.js"

/** A run of UTC days, both included, and the run of the same length just before it. */
export interface Window {
  readonly from: string
  readonly to: string
  readonly previousFrom: string
  readonly previousTo: string
  /** The explore rollup (days) that holds exactly this window, when it is fresh. */
  readonly rollup?: number
}

export interface Paging {
  readonly limit: number
  readonly offset: number
}

export interface TrendingPlan extends Paging {
  readonly region: string
  readonly metric: TrendingMetric
  readonly window: Window
  readonly categoryId: string | undefined
  /** The explore rollup (days) that holds exactly this window and the one before, when fresh. */
  readonly rollup?: number
}

export interface SearchPlan extends Paging {
  readonly region: string
  readonly q: string
  /** The period of each product's metrics. */
  readonly period: Window
}

/** What a prefix matches: a string starting with it, or one with a later word starting with it. */
export interface PrefixPatterns {
  /** A LIKE pattern, compared with the lowercased string (a `lower(...) text_pattern_ops` index serves it). */
  readonly start: string
  /** A regular expression (case-insensitive, `~*`; a trigram index serves it); null: later words are not matched. */
  readonly later: string | null
}

type Row = Record<string, any>

/** What a later word starts after: a space or ASCII punctuation (ShopSearch's `patternsOf` matches the same). */
const wordSeparators = " !\"#$%&'()*+,./:;<=>?@[\\]^_`{|}~-"
/** A later word's key holds this many characters: more than the longest prefix (50). */
const wordKeyLength = 64

/** How far suggestions first read a type's rows in popularity order (see `suggestions`). */
export interface Reach {
  /** The type's most popular rows it reads at most... */
  readonly depth: number
  /** ...and the matching rows it stops at. */
  readonly take: number
}

/** Each type's strings of one class, in order. */
export type ByType = ReadonlyMap<SuggestionType, ReadonlyArray<Suggestion>>

const growth = (current: number | null, previous: number | null) =>
  current === null || previous === null || previous === 0 ? null : Math.round(((current - previous) / previous) * 10_000) / 10_000

const productMetrics = ["gmv", "units", "views"] as const

/** The products-explore view of a row (mirrors src/shopExplore's, which it must equal). */
const productView = (r: Row, period: Window) => {
  const metrics: Record<string, number | null> = {}
  for (const name of productMetrics) metrics[name] = r[`cur_${name}`] ?? null
  for (const name of productMetrics) metrics[`${name}_growth`] = growth(r[`cur_${name}`] ?? null, r[`prev_${name}`] ?? null)
  return {
    id: r.external_id as string,
    region: r.region as string,
    period: { date_from: period.from, date_to: period.to, metrics },
    title: r.title as string,
    shop: r.shop,
    category: r.category,
    price_min: r.price_min as number,
    price_max: r.price_max as number,
    currency: r.currency as string,
    commission_rate: r.commission_rate,
    rating: r.rating,
    reviews: r.reviews,
    launched_on: r.launched_on,
    images: r.images
  }
}

/**
 * The SQL of trending, search and suggestions. Reads the catalog tables of migration 0002
 * with the indexes of 0011.
 */
export class ShopSearchRepo extends Effect.Service<ShopSearchRepo>()("adintel/ShopSearchRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The view's columns of product `e`, and its metrics over the period and the one before. */
    const viewColumns = sql`
      e.external_id, e.region, e.title, e.price_min::float8 as price_min, e.price_max::float8 as price_max, e.currency,
      e.commission_rate::float8 as commission_rate, e.rating::float8 as rating, e.reviews,
      e.launched_on::text as launched_on, e.images,
      (select json_build_object('id', s.external_id, 'name', s.name) from shop_shops s where s.id = e.shop_id) as shop,
      (select json_build_object('id', c.external_id, 'name', c.name) from shop_categories c where c.id = e.category_id) as category,
      cur.gmv as cur_gmv, cur.units as cur_units, cur.views as cur_views,
      prev.gmv as prev_gmv, prev.units as prev_units, prev.views as prev_views`

    const metricsOver = (from: string, to: string) =>
      sql`(select sum(d.gmv)::float8 as gmv, sum(d.units)::float8 as units, sum(d.views)::float8 as views
             from shop_product_daily d where d.product_id = e.id and d.day between ${from}::date and ${to}::date)`

    const withMetrics = (period: Window) =>
      sql`left join lateral ${metricsOver(period.from, period.to)} cur on true
          left join lateral ${metricsOver(period.previousFrom, period.previousTo)} prev on true`

    const subtree = (region: string, externalId: string) => categorySubtree(sql, region, externalId)

    const countOf = (from: Fragment) =>
      sql<{ total: number }>`select count(*)::int as total from ${from} m`.pipe(Effect.map((rows) => rows[0]?.total ?? 0))

    /**
     * One page of rows in `position` order with the total: the total comes with the rows, and
     * from its own count only when the page is past the end.
     */
    const paged = <A>(matches: Fragment, page: Effect.Effect<ReadonlyArray<Row>, SqlError>, offset: number, read: (r: Row) => A) =>
      Effect.flatMap(page, (rows) =>
        Effect.map(
          rows.length > 0 || offset === 0 ? Effect.succeed(rows[0]?.total ?? 0) : countOf(sql`(${matches})`),
          (total) => ({ total: total as number, rows: rows.map(read) })
        ))

    /** Products with some `metric` in both windows, and the two sums. */
    const trendingMatches = (plan: TrendingPlan) => {
      const metric = sql(plan.metric)
      const { from, previousFrom, to } = plan.window
      const inCategory = plan.categoryId === undefined ? sql`true` : sql`e.category_id = any(array${subtree(plan.region, plan.categoryId)})`
      // The window summed ahead (explore's rollups): one row per product and window.
      if (plan.rollup !== undefined) {
        return sql`
          select e.id, e.external_id, cur.${metric} as current, prev.${metric} as previous
            from shop_products e
            join shop_rollups cur on cur.entity = 'products' and cur.days = ${plan.rollup} and not cur.previous and cur.record_id = e.id
            join shop_rollups prev on prev.entity = 'products' and prev.days = ${plan.rollup} and prev.previous and prev.record_id = e.id
           where e.region = ${plan.region} and ${inCategory} and cur.${metric} > 0 and prev.${metric} > 0`
      }
      const clauses = [sql`e.region = ${plan.region}`, sql`d.day between ${previousFrom}::date and ${to}::date`, inCategory]
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

    const searchMatches = (plan: SearchPlan) =>
      sql`
        select e.id, e.reviews, e.external_id,
               ((word_similarity(${plan.q}, e.title) + similarity(${plan.q}, e.title)) / 2)::float8 as relevance
          from shop_products e
         where e.region = ${plan.region} and ${plan.q} <% e.title`

    /**
     * Where each type's strings live and what makes them popular: a stored column where there
     * is one (0011 indexes it in this order), else a category's GMV over the period, computed,
     * which is cheap for a table of a few hundred rows.
     */
    const sources: Record<SuggestionType, {
      readonly table: string
      readonly text: string
      readonly popularity: (period: Window) => Fragment
      /** Few rows: always read whole, matching rows first. */
      readonly small?: true
    }> = {
      products: { table: "shop_products", text: "title", popularity: () => sql`e.reviews` },
      shops: { table: "shop_shops", text: "name", popularity: () => sql`e.followers` },
      creators: { table: "shop_creators", text: "handle", popularity: () => sql`e.followers` },
      categories: {
        table: "shop_categories",
        text: "name",
        small: true,
        popularity: (period) =>
          period.rollup === undefined
            ? sql`(select sum(d.gmv) from shop_category_daily d where d.category_id = e.id and d.day between ${period.from}::date and ${period.to}::date)`
            : sql`(select r.gmv from shop_rollups r
                    where r.entity = 'categories' and r.days = ${period.rollup} and not r.previous and r.record_id = e.id)`
      }
    }

    /** A type's strings in the region (all regions: undefined) with their popularity (ordered by `popularOrder`, ties by id, byte order). */
    const strings = (type: SuggestionType, region: string | undefined, period: Window) => {
      const source = sources[type]
      return sql`
        select e.region, e.${sql(source.text)} as text, e.external_id as id, ${source.popularity(period)} as popularity
          from ${sql(source.table)} e
         where ${region === undefined ? sql`true` : sql`e.region = ${region}`}`
    }
    const popularOrder = sql`popularity desc nulls last, id collate "C"`

    /** One class of strings: those starting with the prefix, or (only) a later word of which does. */
    const classMatch = (patterns: PrefixPatterns, starts: boolean) => {
      const startsWith = sql`lower(text) like lower(${patterns.start})`
      return starts || patterns.later === null ? startsWith : sql`text ~* ${patterns.later} and not ${startsWith}`
    }

    /** Of some rows, the first `limit` strings (case ignored), each as its most popular row, in popularity order. */
    const firstOfEach = (type: SuggestionType, rows: Fragment, limit: number) =>
      sql`
        select ${type}::text as type, text, id, rank from (
          select text, id, row_number() over (order by ${popularOrder}) as rank
            from (select distinct on (lower(text)) * from ${rows} r order by lower(text), ${popularOrder}) firsts
        ) ranked
         where rank <= ${limit}`

    /** A type's first `limit` strings of the class, of all its rows. */
    const allOf = (type: SuggestionType, region: string, period: Window, patterns: PrefixPatterns, starts: boolean, limit: number) =>
      firstOfEach(type, sql`(select * from (${strings(type, region, period)}) typed where ${classMatch(patterns, starts)})`, limit)

    /** One statement for several types: a branch each; the rows back by type, in rank order. */
    const byType = (types: ReadonlyArray<SuggestionType>, branch: (type: SuggestionType) => Fragment): Effect.Effect<ByType> =>
      types.length === 0
        ? Effect.succeed(new Map())
        : sql<Row>`${sql.join(" union all ", false)(types.map((type) => sql`(${branch(type)})`))} order by type, rank`.pipe(
          Effect.map((rows) => {
            const found = new Map<SuggestionType, Array<Suggestion>>(types.map((type) => [type, []]))
            for (const r of rows) found.get(r.type)!.push({ text: r.text, type: r.type, id: r.id })
            return found
          }),
          Effect.orDie
        )

    return {
      /** Trending products: one P2 page by growth (then the larger current value, then id), and the total. */
      trending: (plan: TrendingPlan): Effect.Effect<{ readonly rows: ReadonlyArray<TrendingProduct>; readonly total: number }> => {
        const matches = trendingMatches(plan)
        return paged(
          matches,
          sql<Row>`
            with m as (${matches}),
            page as (
              select m.id, m.current, m.previous, (m.current - m.previous) / m.previous as growth, count(*) over () as total,
                     row_number() over (order by (m.current - m.previous) / m.previous desc, m.current desc, m.external_id collate "C") as position
                from m
               order by position
               limit ${plan.limit} offset ${plan.offset})
            select page.total::int as total, page.growth, page.current, page.previous, ${viewColumns}
              from page join shop_products e on e.id = page.id
              ${withMetrics(plan.window)}
             order by page.position`,
          plan.offset,
          (r): TrendingProduct => ({
            ...productView(r, plan.window),
            growth: Math.round(r.growth * 10_000) / 10_000,
            current: r.current,
            previous: r.previous
          })
        ).pipe(Effect.orDie)
      },

      /** Product search: one P2 page, best match first (then more reviews), and the total. */
      search: (plan: SearchPlan): Effect.Effect<{ readonly rows: ReadonlyArray<FoundProduct>; readonly total: number }> => {
        const matches = searchMatches(plan)
        return paged(
          matches,
          sql<Row>`
            with m as (${matches}),
            page as (
              select m.id, m.relevance, count(*) over () as total,
                     row_number() over (order by m.relevance desc, m.reviews desc nulls last, m.external_id collate "C") as position
                from m
               order by position
               limit ${plan.limit} offset ${plan.offset})
            select page.total::int as total, round(page.relevance::numeric, 4)::float8 as relevance, ${viewColumns}
              from page join shop_products e on e.id = page.id
              ${withMetrics(plan.period)}
             order by page.position`,
          plan.offset,
          (r): FoundProduct => ({ ...productView(r, plan.period), relevance: r.relevance })
        ).pipe(Effect.orDie)
      },

      /**
       * Suggestions: for each type, its first `limit` strings of the class (distinct, case
       * ignored, each as its most popular row), in popularity order. One statement; per type:
       * - first its first `take` rows of the class among its `depth` most popular rows: when
       *   these hold `limit` strings, they are the type's first `limit` of all (every row read is
       *   more popular than any row after), and a common prefix is answered from a few rows;
       * - else every row of the class, found through an index of the type's text (by prefix
       *   for strings starting with it, trigrams for later words): a rarer prefix has few.
       * PostgreSQL runs the second only when the first fell short (a one-time filter). A small
       * type is read whole at once.
       */
      suggestions: (
        types: ReadonlyArray<SuggestionType>,
        region: string,
        period: Window,
        patterns: PrefixPatterns,
        starts: boolean,
        limit: number,
        reach: Reach
      ): Effect.Effect<ByType> =>
        byType(types, (type) => {
          if (sources[type].small) return allOf(type, region, period, patterns, starts, limit)
          const popularRows = sql`(
            select * from (select * from (${strings(type, region, period)}) typed order by ${popularOrder} limit ${reach.depth}) top
             where ${classMatch(patterns, starts)} order by ${popularOrder} limit ${reach.take})`
          return sql`
            with popular as materialized (${firstOfEach(type, popularRows, limit)}),
            enough as materialized (select count(*) >= ${limit} as ok from popular)
            select * from popular where (select ok from enough)
            union all
            select * from (${allOf(type, region, period, patterns, starts, limit)}) every_row where not (select ok from enough)`
        }),

      /** The last day of the 30 days whose popularity `shop_suggestions` holds; undefined: it does not hold. */
      suggestionsDay: sql<{ day_to: string }>`
        select day_to::text as day_to from shop_rollup_state where entity = 'suggestions' and days = ${defaultPeriodDays}`.pipe(
        Effect.map((rows) => rows[0]?.day_to),
        Effect.orDie
      ),

      /**
       * `suggestions`' strings, from those summed ahead (migration 0016): the same answer from
       * a few thousand rows at most instead of the catalog. A branch per type, each planned for its own rows: strings starting with
       * the prefix are a range of `shop_suggestions`' prefix index (or its popular strings,
       * filtered, when the prefix is common), those with a later word starting with it a range
       * of `shop_suggestion_words`, checked against the class's own pattern and each taken once.
       */
      summedAhead: (types: ReadonlyArray<SuggestionType>, region: string, patterns: PrefixPatterns, starts: boolean, limit: number) =>
        byType(types, (type) => {
          const startsWith = (alias: string) => sql`lower(${sql(alias)}.text) like lower(${patterns.start})`
          const rows = starts || patterns.later === null
            ? sql`select s.text, s.external_id, s.popularity from shop_suggestions s
                   where s.region = ${region} and s.type = ${type} and ${startsWith("s")}`
            : sql`select distinct w.text, w.external_id, w.popularity from shop_suggestion_words w
                   where w.region = ${region} and w.type = ${type} and w.key like lower(${patterns.start})
                     and w.text ~* ${patterns.later} and not ${startsWith("w")}`
          return sql`
            select ${type}::text as type, text, id, row_number() over (order by ${popularOrder}) as rank from (
              select * from (select m.text, m.external_id as id, m.popularity from (${rows}) m) named order by ${popularOrder} limit ${limit}
            ) firsts`
        }),

      /**
       * Computes `shop_suggestions` and `shop_suggestion_words` for the 30 days `from`..`to`
       * (categories' popularity is their GMV over them), in one transaction: readers see the old
       * strings or the new, never a half.
       */
      refreshSuggestions: (from: string, to: string, now: Date) =>
        sql.withTransaction(Effect.gen(function*() {
          const period: Window = { from, to, previousFrom: from, previousTo: to }
          // One refresh at a time across replicas: a second one waits, then replaces the first's rows.
          yield* sql`select pg_advisory_xact_lock(hashtext('adintel.shop_suggestions'))`
          yield* sql`delete from shop_suggestions`
          for (const type of suggestionTypes) {
            yield* sql`
              insert into shop_suggestions (region, type, text, external_id, popularity)
              select distinct on (region, lower(text)) region, ${type}, text, id, popularity
                from (${strings(type, undefined, period)}) typed
               order by region, lower(text), ${popularOrder}`
          }
          yield* sql`delete from shop_suggestion_words`
          yield* sql`
            insert into shop_suggestion_words (region, type, key, text, external_id, popularity)
            select s.region, s.type, left(lower(substr(s.text, i)), ${wordKeyLength}), s.text, s.external_id, s.popularity
              from shop_suggestions s cross join lateral generate_series(2, char_length(s.text)) i
             where strpos(${wordSeparators}, substr(s.text, i - 1, 1)) > 0 or substr(s.text, i, 1) !~ '[A-Za-z0-9]'`
          // The planner's statistics of the new rows, per type: whether a prefix is common there.
          yield* sql`analyze shop_suggestions, shop_suggestion_words`
          yield* sql`insert into shop_rollup_state (entity, days, day_to, refreshed_at) values ('suggestions', ${defaultPeriodDays}, ${to}::date, ${now})
                     on conflict (entity, days) do update set day_to = excluded.day_to, refreshed_at = excluded.refreshed_at`
        })).pipe(Effect.asVoid, Effect.orDie)
    }
  })
}) {}
