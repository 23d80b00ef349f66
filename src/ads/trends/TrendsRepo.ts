import { SqlClient, SqlSchema } from "@effect/sql"
import { unboundedStatements } from "../../platform/db/Database.js"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import { nichePattern } from "./Api.js"
import { type TermKind, termKinds } from "./Phrases.js"
import { anyValue, type Columns, type DayShift } from "./Windows.js"

/** A change to a daily count: `ads` is added (negative: taken away). */
export interface DailyDelta {
  readonly kind: number
  readonly country: string
  readonly day: string
  readonly library: string
  readonly niche: string
  readonly language: string
  readonly termId: string
  readonly ads: number
}

/** A change to a window's totals in one cell (library, niche, country: a value or `anyValue`). */
export interface TotalDelta {
  readonly kind: number
  readonly windowDays: number
  readonly library: string
  readonly niche: string
  readonly country: string
  readonly termId: string
  readonly count: number
  readonly previous: number
}

/** A term's text under its key. */
export interface TermText {
  readonly id: string
  readonly kind: number
  readonly term: string
}

/** Which ads a trend reads: every value optional (absent: any). */
export interface TrendScope {
  readonly library?: string | undefined
  readonly niche?: string | undefined
  readonly country?: string | undefined
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
/** A ranking, with the last day of the windows its totals were kept for (null: none yet). */
const Ranking = Schema.Struct({ date_to: Schema.NullOr(Schema.String), rows: Schema.Array(Rising) })
const DateTo = Schema.Struct({ date_to: Schema.NullOr(Schema.String) })

const DayCount = Schema.Struct({ day: Schema.String, count: Schema.Int })
export type DayCount = typeof DayCount.Type

/**
 * The SQL of trends: the daily counts and window totals the ad import keeps (migrations 0051,
 * 0072) and what the trend routes read of them. Lock order for writers: the totals' state row
 * first (every write of counts and every move of the windows takes it, so they run one at a
 * time), then terms, then counts, each in key order.
 */
export class TrendsRepo extends Effect.Service<TrendsRepo>()("adintel/TrendsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** A ranking's rows of totals: the cell of `scope`, terms that rose and are used enough. */
    const ranked = (alias: string, kind: TermKind, windowDays: number, scope: TrendScope, minCount: number): Fragment => {
      const t = sql(alias)
      return sql.and([
        sql`${t}.kind = ${termKinds[kind]}`,
        sql`${t}.window_days = ${windowDays}`,
        sql`${t}.library = ${scope.library ?? anyValue}`,
        sql`${t}.niche = ${scope.niche ?? anyValue}`,
        sql`${t}.country = ${scope.country ?? anyValue}`,
        sql`${t}.count > ${t}.previous`,
        sql`${t}.count >= ${minCount}`
      ])
    }

    const dateToOf = (statement: Effect.Effect<ReadonlyArray<unknown>, unknown>) =>
      SqlSchema.single({ Request: Schema.Void, Result: DateTo, execute: () => statement })(undefined).pipe(
        Effect.map(({ date_to }) => Option.fromNullable(date_to)),
        Effect.orDie
      )

    return {
      /**
       * Ads whose copy is not counted yet (`trend_pending`, migration 0071), at most `limit`, in
       * id order; locked with their pending rows (an import of one of them waits, then sees it
       * counted), skipping those another transaction holds (an import, another replica).
       */
      uncounted: (limit: number, wait: boolean): Effect.Effect<ReadonlyArray<UncountedAd>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: UncountedAd,
          execute: () => sql`
            select a.id::text as id, a.library, to_char(a.first_seen at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as first_seen,
                   a.niche, a.countries, a.languages, a.headline, a.body, a.description, a.hook
              from trend_pending p join ads a on a.id = p.ad_id
             order by p.ad_id limit ${limit}
               for update of p, a ${wait ? sql`` : sql`skip locked`}`
        })(undefined).pipe(Effect.orDie),

      markCounted: (ids: ReadonlyArray<string>): Effect.Effect<void> =>
        sql`delete from trend_pending where ad_id = any(${ids}::bigint[])`.pipe(Effect.asVoid, Effect.orDie),

      /** Whether at least `n` ads are not counted yet. */
      pendingAtLeast: (n: number): Effect.Effect<boolean> =>
        sql<{ found: boolean }>`select exists (select 1 from trend_pending offset ${n - 1}) as found`.pipe(
          Effect.map(([row]) => row?.found === true),
          Effect.orDie
        ),

      /** No window totals kept (in the caller's transaction, which holds `lockTotals`): the next move builds them. */
      dropTotals: Effect.zipRight(sql`truncate trend_totals`, sql`update trend_state set date_to = null`).pipe(Effect.asVoid, Effect.orDie),

      /** Which of these ads (row ids) are not counted yet. */
      pendingOf: (ids: ReadonlyArray<string>): Effect.Effect<ReadonlySet<string>> =>
        ids.length === 0 ? Effect.succeed(new Set<string>()) : sql<{ id: string }>`
          select ad_id::text as id from trend_pending where ad_id = any(${ids}::bigint[])`.pipe(
          Effect.map((rows) => new Set(rows.map((r) => r.id))),
          Effect.orDie
        ),

      /** These ads (by library and external id), just written, are to be counted: in the import's transaction. */
      markPending: (ads: ReadonlyArray<{ readonly library: string; readonly external_id: string }>): Effect.Effect<void> =>
        ads.length === 0 ? Effect.void : sql`
          insert into trend_pending (ad_id)
          select a.id from json_to_recordset(${JSON.stringify(ads)}::json) as r(library text, external_id text)
            join ads a on a.library = r.library and a.external_id = r.external_id
           order by a.id
          on conflict (ad_id) do nothing`.pipe(Effect.asVoid, Effect.orDie),

      /**
       * Runs `effect` in one transaction: the counting fiber's work (counts, window moves, builds),
       * which may read the daily counts whole, so the statement timeout of requests is lifted.
       */
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        sql.withTransaction(Effect.zipRight(unboundedStatements(sql), effect)).pipe(Effect.catchTag("SqlError", Effect.die)),

      /** The last day of the windows the totals are kept for (none: not built yet). */
      dateTo: dateToOf(sql`select date_to::text as date_to from trend_state`),

      /**
       * The same, locked to the caller's transaction: counts written and windows moved after
       * this wait for it to end. Every writer of counts takes it first.
       */
      lockTotals: dateToOf(sql`select date_to::text as date_to from trend_state for update`),

      /** Adds the deltas to the daily counts and the window totals, in the caller's transaction (which holds `lockTotals`). */
      apply: (terms: ReadonlyArray<TermText>, daily: Columns<DailyDelta> | undefined, totals: Columns<TotalDelta> | undefined): Effect.Effect<void> =>
        Effect.gen(function*() {
          if (terms.length > 0) {
            yield* sql`insert into trend_terms (id, kind, term)
              select id, kind, term
                from unnest(${terms.map((t) => t.id)}::bigint[], ${terms.map((t) => t.kind)}::smallint[], ${terms.map((t) => t.term)}::text[]) as t(id, kind, term)
               order by id
              on conflict (id) do nothing`
          }
          // A batch's counts are sorted in memory, not spilled to disk (the default 4 MB is short of it).
          if (daily !== undefined || totals !== undefined) yield* sql`set local work_mem = '64MB'`
          if (daily !== undefined) {
            yield* sql`insert into trend_daily (kind, country, day, library, niche, language, term_id, ads)
              select kind, country, day, library, niche, language, term_id, ads
                from unnest(${daily.kind}::smallint[], ${daily.country}::text[], ${daily.day}::date[], ${daily.library}::text[],
                            ${daily.niche}::text[], ${daily.language}::text[], ${daily.termId}::bigint[], ${daily.ads}::integer[])
                  as d(kind, country, day, library, niche, language, term_id, ads)
               order by kind, country, day, term_id, library, niche, language
              on conflict (kind, country, day, term_id, library, niche, language)
              do update set ads = trend_daily.ads + excluded.ads`
          }
          if (totals !== undefined) {
            yield* sql`insert into trend_totals (kind, window_days, library, niche, country, term_id, count, previous)
              select kind, window_days, library, niche, country, term_id, count, previous
                from unnest(${totals.kind}::smallint[], ${totals.windowDays}::smallint[], ${totals.library}::text[], ${totals.niche}::text[],
                            ${totals.country}::text[], ${totals.termId}::bigint[], ${totals.count}::integer[], ${totals.previous}::integer[])
                  as t(kind, window_days, library, niche, country, term_id, count, previous)
               order by kind, window_days, library, niche, country, term_id
              on conflict (kind, window_days, library, niche, country, term_id)
              do update set count = trend_totals.count + excluded.count, previous = trend_totals.previous + excluded.previous`
          }
        }).pipe(Effect.orDie),

      /**
       * Moves the totals to the windows ending `to`, in the caller's transaction (which holds
       * `lockTotals`): the daily counts of each shifted day added to (or taken from) every cell
       * they fall in, terms no window counts any more dropped, and `to` kept as the totals' day.
       * Daily counts before `keepFrom` (no history reaches them) go.
       */
      shift: (shifts: ReadonlyArray<DayShift>, to: string, keepFrom: string): Effect.Effect<void> =>
        Effect.gen(function*() {
          if (shifts.length > 0) {
            yield* sql`set local work_mem = '256MB'`
            // Every cell of a daily row: its library and niche or any (the grouping sets), its country.
            yield* sql`insert into trend_totals (kind, window_days, library, niche, country, term_id, count, previous)
              select d.kind, s.window_days, coalesce(d.library, ${anyValue}), coalesce(d.niche, ${anyValue}), d.country, d.term_id,
                     sum(d.ads * s.count)::int, sum(d.ads * s.previous)::int
                from unnest(${shifts.map((s) => s.windowDays)}::smallint[], ${shifts.map((s) => s.day)}::date[],
                            ${shifts.map((s) => s.count)}::integer[], ${shifts.map((s) => s.previous)}::integer[])
                  as s(window_days, day, count, previous)
                join trend_daily d on d.day = s.day
               where d.day = any(${[...new Set(shifts.map((s) => s.day))]}::date[])
               group by d.kind, s.window_days, d.country, d.term_id, grouping sets ((d.library, d.niche), (d.library), (d.niche), ())
              having (grouping(d.niche) = 1 or d.niche ~ ${nichePattern.source})
                 and (sum(d.ads * s.count) <> 0 or sum(d.ads * s.previous) <> 0)
               order by 1, 2, 3, 4, 5, 6
              on conflict (kind, window_days, library, niche, country, term_id)
              do update set count = trend_totals.count + excluded.count, previous = trend_totals.previous + excluded.previous`
            yield* sql`delete from trend_totals where count = 0 and previous = 0`
          }
          yield* sql`delete from trend_daily where day < ${keepFrom}::date`
          yield* sql`update trend_state set date_to = ${to}::date`
        }).pipe(Effect.orDie),

      /**
       * Terms of the cell used by at least `minCount` ads first seen in the window and by more
       * than in the window before, the most grown first (growth = (count - previous) /
       * max(previous, 1)), then the most used, then by text; with the day the totals were kept
       * for, read in the same statement. The index yields them in order; the terms tied with
       * the last row are read too, so that text orders the ties.
       */
      rising: (kind: TermKind, windowDays: number, scope: TrendScope, minCount: number, limit: number) =>
        SqlSchema.single({
          Request: Schema.Void,
          Result: Ranking,
          execute: () => sql`
            with ranked as (
              select x.term_id, x.count, x.previous, x.growth from trend_totals x
               where ${ranked("x", kind, windowDays, scope, minCount)}
               order by x.growth desc, x.count desc limit ${limit}
            ), edge as (
              select growth, count from ranked order by growth, count limit 1
            ), listed as (
              select term_id, count, previous, growth from ranked
              union
              select y.term_id, y.count, y.previous, y.growth from trend_totals y join edge e on y.growth = e.growth and y.count = e.count
               where ${ranked("y", kind, windowDays, scope, minCount)}
            )
            select (select date_to::text from trend_state) as date_to,
                   coalesce((select json_agg(json_build_object('term', t.term, 'count', l.count, 'previous_count', l.previous)
                                     order by l.growth desc, l.count desc, t.term collate "C")
                               from listed l join trend_terms t on t.id = l.term_id), '[]') as rows`
        })(undefined).pipe(Effect.map(({ date_to, rows }) => ({ dateTo: date_to, rows: rows.slice(0, limit) })), Effect.orDie),

      /** A phrase's count on each of `days` that has one (days without are left out): one key probe per day and country. */
      series: (termId: string, scope: TrendScope, days: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<DayCount>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: DayCount,
          execute: () => sql`
            select day::text as day, sum(ads)::int as count
              from trend_daily
             where ${sql.and([
               sql`kind = ${termKinds.phrase}`,
               sql`country = ${scope.country ?? anyValue}`,
               sql`day = any(${days}::date[])`,
               sql`term_id = ${termId}::bigint`,
               ...(scope.library === undefined ? [] : [sql`library = ${scope.library}`]),
               ...(scope.niche === undefined ? [] : [sql`niche = ${scope.niche}`])
             ])}
             group by day
             order by day`
        })(undefined).pipe(Effect.orDie)
    }
  })
}) {}
