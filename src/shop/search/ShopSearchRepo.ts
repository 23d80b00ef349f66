import { SqlClient, SqlSchema } from "@effect/sql"
import { unboundedStatements } from "../../platform/db/Database.js"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import type { UtcDay } from "../../kernel/UtcDay.js"
import { defaultPeriodDays } from "../catalog/Entities.js"
import { type Suggestion, type SuggestionType, suggestionTypes } from "./Api.js"

/** The days whose popularity a suggestion has: categories' is their GMV over them (`rollup`: read from the rollups). */
export interface Window {
  readonly from: UtcDay
  readonly to: UtcDay
  /** The rollup (days) that holds exactly these days, when it is fresh. */
  readonly rollup?: number
}

/** What a prefix matches: a string starting with it, or one with a later word starting with it. */
export interface PrefixPatterns {
  /** A LIKE pattern, compared with the lowercased string (a `lower(...) text_pattern_ops` index serves it). */
  readonly start: string
  /** A regular expression (case-insensitive, `~*`; a trigram index serves it); null: later words are not matched. */
  readonly later: string | null
}

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

/** A string of a suggestion, as its statement answers it. */
const SuggestionRow = Schema.Struct({ type: Schema.Literal(...suggestionTypes), text: Schema.String, id: Schema.String })

/**
 * The SQL of suggestions: the catalog's strings (tables of migration 0002, indexes of 0013) and
 * those summed ahead (0016). Trending and title search read the catalog through `ShopCatalog`.
 */
export class ShopSearchRepo extends Effect.Service<ShopSearchRepo>()("adintel/ShopSearchRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * Where each type's strings live and what makes them popular: a stored column where there
     * is one (0013 indexes it in this order), else a category's GMV over the period, computed,
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
        : SqlSchema.findAll({
          Request: Schema.Void,
          Result: SuggestionRow,
          execute: () => sql`${sql.join(" union all ", false)(types.map((type) => sql`(${branch(type)})`))} order by type, rank`
        })(undefined).pipe(
          Effect.map((rows) => {
            const found = new Map<SuggestionType, Array<Suggestion>>(types.map((type) => [type, []]))
            for (const r of rows) found.get(r.type)!.push({ text: r.text, type: r.type, id: r.id })
            return found
          }),
          Effect.orDie
        )

    return {
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
      suggestionsDay: SqlSchema.findOne({
        Request: Schema.Void,
        Result: Schema.Struct({ day_to: Schema.String }),
        execute: () => sql`select day_to::text as day_to from shop_rollup_state where entity = 'suggestions' and days = ${defaultPeriodDays}`
      })(undefined).pipe(Effect.map(Option.map((row) => row.day_to)), Effect.orDie),

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
          const period: Window = { from, to }
          // Background: reads every record's strings, not bound by a request's timeout.
          yield* unboundedStatements(sql)
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
