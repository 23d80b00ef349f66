import { SqlClient, SqlSchema } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import { type TermKind, termKinds } from "./Phrases.js"

/** A change to one daily count: `ads` is added (negative: taken away). */
export interface CountDelta {
  readonly kind: number
  readonly country: string
  readonly day: string
  readonly library: string
  readonly niche: string
  readonly language: string
  readonly term_id: string
  readonly ads: number
}

/** A term's text under its key. */
export interface TermText {
  readonly id: string
  readonly kind: number
  readonly term: string
}

/** Which ads a trend reads: every value optional; `country` absent reads the '*' counts (every ad once). */
export interface TrendScope {
  readonly library?: string | undefined
  readonly niche?: string | undefined
  readonly country?: string | undefined
  readonly language?: string | undefined
}

/** A window and the window of the same length before it (UTC days, both ends included). */
export interface Windows {
  readonly from: string
  readonly to: string
  readonly previousFrom: string
}

const Text = Schema.NullOr(Schema.String)
const UncountedAd = Schema.Struct({
  id: Schema.String,
  library: Schema.String,
  first_seen: Schema.String,
  niche: Text,
  countries: Schema.Array(Schema.String),
  languages: Schema.Array(Schema.String),
  headline: Text,
  body: Text,
  description: Text,
  hook: Text
})
export type UncountedAd = typeof UncountedAd.Type

const Rising = Schema.Struct({ term: Schema.String, count: Schema.Int, previous_count: Schema.Int })
export type Rising = typeof Rising.Type
const DayCount = Schema.Struct({ day: Schema.String, count: Schema.Int })
export type DayCount = typeof DayCount.Type

/**
 * The SQL of trends: the daily counts the ad import keeps (migration 0051) and what the trend
 * routes read of them. Lock order for writers: terms, then counts, each in key order, so two
 * import lanes adding to the same counts wait for each other and never deadlock.
 */
export class TrendsRepo extends Effect.Service<TrendsRepo>()("adintel/TrendsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const scoped = (scope: TrendScope): ReadonlyArray<Fragment> => [
      sql`country = ${scope.country ?? "*"}`,
      ...(scope.library === undefined ? [] : [sql`library = ${scope.library}`]),
      ...(scope.niche === undefined ? [] : [sql`niche = ${scope.niche}`]),
      ...(scope.language === undefined ? [] : [sql`language = ${scope.language}`])
    ]

    return {
      /**
       * Ads whose copy is not counted yet (stored before migration 0051), at most `limit`, in
       * id order; locked, skipping those another transaction holds (an import, another replica).
       */
      uncounted: (limit: number): Effect.Effect<ReadonlyArray<UncountedAd>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: UncountedAd,
          execute: () => sql`
            select id::text as id, library, to_char(first_seen at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as first_seen,
                   niche, countries, languages, headline, body, description, hook
              from ads where not trends_counted
             order by id limit ${limit}
               for update skip locked`
        })(undefined).pipe(Effect.orDie),

      markCounted: (ids: ReadonlyArray<string>): Effect.Effect<void> =>
        sql`update ads set trends_counted = true where id = any(${ids}::bigint[])`.pipe(Effect.asVoid, Effect.orDie),

      /** Runs `effect` in one transaction. */
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die)),

      /** Adds the deltas (in the caller's transaction: the import's batch). */
      apply: (terms: ReadonlyArray<TermText>, deltas: ReadonlyArray<CountDelta>): Effect.Effect<void> =>
        Effect.gen(function*() {
          if (terms.length > 0) {
            yield* sql`insert into trend_terms (id, kind, term)
              select id, kind, term from json_to_recordset(${JSON.stringify(terms)}::json) as r(id bigint, kind smallint, term text)
               order by id
              on conflict (id) do nothing`
          }
          if (deltas.length > 0) {
            yield* sql`insert into trend_daily (kind, country, day, library, niche, language, term_id, ads)
              select kind, country, day, library, niche, language, term_id, ads
                from json_to_recordset(${JSON.stringify(deltas)}::json)
                  as r(kind smallint, country text, day date, library text, niche text, language text, term_id bigint, ads integer)
               order by kind, country, day, library, niche, language, term_id
              on conflict (kind, country, day, library, niche, language, term_id)
              do update set ads = trend_daily.ads + excluded.ads`
          }
        }).pipe(Effect.orDie),

      /**
       * Terms used by at least `minCount` ads first seen in the window and by more than in the
       * window before: the most grown first (growth = (count - previous) / max(previous, 1)),
       * then the most used, then by text.
       */
      rising: (kind: TermKind, scope: TrendScope, windows: Windows, minCount: number, limit: number): Effect.Effect<ReadonlyArray<Rising>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: Rising,
          execute: () => sql`
            select t.term, w.count::int as count, w.previous::int as previous_count
              from (
                select term_id,
                       coalesce(sum(ads) filter (where day >= ${windows.from}::date), 0) as count,
                       coalesce(sum(ads) filter (where day < ${windows.from}::date), 0) as previous
                  from trend_daily
                 where ${sql.and([
                   sql`kind = ${termKinds[kind]}`,
                   sql`day between ${windows.previousFrom}::date and ${windows.to}::date`,
                   ...scoped(scope)
                 ])}
                 group by term_id
              ) w
              join trend_terms t on t.id = w.term_id
             where w.count >= ${minCount} and w.count > w.previous
             order by (w.count - w.previous)::numeric / greatest(w.previous, 1) desc, w.count desc, t.term collate "C"
             limit ${limit}`
        })(undefined).pipe(Effect.orDie),

      /** A term's count on each day of `from`..`to` that has one (days without are left out). */
      series: (termId: string, scope: TrendScope, from: string, to: string): Effect.Effect<ReadonlyArray<DayCount>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: DayCount,
          execute: () => sql`
            select day::text as day, sum(ads)::int as count
              from trend_daily
             where ${sql.and([sql`term_id = ${termId}::bigint`, sql`day between ${from}::date and ${to}::date`, ...scoped(scope)])}
             group by day
             order by day`
        })(undefined).pipe(Effect.orDie)
    }
  })
}) {}
