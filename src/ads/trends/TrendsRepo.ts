import { SqlClient, SqlSchema } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import { type TermKind, termKinds } from "./Phrases.js"

/** Changes to daily counts, column by column (row i of each): `ads` is added (negative: taken away). */
export interface CountDeltas {
  readonly kind: Array<number>
  readonly country: Array<string>
  readonly day: Array<string>
  readonly library: Array<string>
  readonly niche: Array<string>
  readonly language: Array<string>
  readonly termId: Array<string>
  readonly ads: Array<number>
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
const StoredAnswer = Schema.Struct({ version: Schema.String, data: Schema.NullOr(Schema.Array(Rising)) })

/** What a stored answer answers: the term kind, the window's length, the scope and the minimum count. */
export interface AnswerKey extends TrendScope {
  readonly kind: TermKind
  readonly windowDays: number
  readonly minCount: number
}

/** A scope field left open, in a stored answer's key (no niche, library, country or language is spelt so). */
const any = "*"
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

    const answerKey = (key: AnswerKey): ReadonlyArray<Fragment> => [
      sql`a.kind = ${termKinds[key.kind]}`,
      sql`a.window_days = ${key.windowDays}`,
      sql`a.library = ${key.library ?? any}`,
      sql`a.niche = ${key.niche ?? any}`,
      sql`a.country = ${key.country ?? any}`,
      sql`a.language = ${key.language ?? any}`,
      sql`a.min_count = ${key.minCount}`
    ]

    const scoped = (scope: TrendScope): ReadonlyArray<Fragment> => [
      sql`country = ${scope.country ?? "*"}`,
      ...(scope.library === undefined ? [] : [sql`library = ${scope.library}`]),
      ...(scope.niche === undefined ? [] : [sql`niche = ${scope.niche}`]),
      ...(scope.language === undefined ? [] : [sql`language = ${scope.language}`])
    ]

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

      /** Runs `effect` in one transaction. */
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die)),

      /**
       * Adds the deltas, in the caller's transaction (the import's batch), and moves the
       * counts' version last, so the answers computed before are known to be stale exactly
       * when these counts are visible (and the version's row lock is held only to the commit).
       */
      apply: (terms: ReadonlyArray<TermText>, deltas: CountDeltas): Effect.Effect<void> =>
        Effect.gen(function*() {
          if (terms.length > 0) {
            yield* sql`insert into trend_terms (id, kind, term)
              select id, kind, term
                from unnest(${terms.map((t) => t.id)}::bigint[], ${terms.map((t) => t.kind)}::smallint[], ${terms.map((t) => t.term)}::text[]) as t(id, kind, term)
               order by id
              on conflict (id) do nothing`
          }
          if (deltas.ads.length === 0) return
          // A batch's counts are sorted in memory, not spilled to disk (the default 4 MB is short of it).
          yield* sql`set local work_mem = '64MB'`
          yield* sql`insert into trend_daily (kind, country, day, library, niche, language, term_id, ads)
            select kind, country, day, library, niche, language, term_id, ads
              from unnest(${deltas.kind}::smallint[], ${deltas.country}::text[], ${deltas.day}::date[], ${deltas.library}::text[],
                          ${deltas.niche}::text[], ${deltas.language}::text[], ${deltas.termId}::bigint[], ${deltas.ads}::integer[])
                as d(kind, country, day, library, niche, language, term_id, ads)
             order by kind, country, day, term_id, library, niche, language
            on conflict (kind, country, day, term_id, library, niche, language)
            do update set ads = trend_daily.ads + excluded.ads`
          yield* sql`update trend_state set version = version + 1`
        }).pipe(Effect.orDie),

      /** A stored answer of `key` for the window ending `to`, if it was computed from the counts as they are. */
      stored: (key: AnswerKey, to: string): Effect.Effect<{ readonly version: string; readonly rows: Option.Option<ReadonlyArray<Rising>> }> =>
        SqlSchema.single({
          Request: Schema.Void,
          Result: StoredAnswer,
          execute: () => sql`
            select s.version::text as version, a.data
              from trend_state s
              left join trend_answers a on ${sql.and(answerKey(key))} and a.date_to = ${to}::date and a.version = s.version`
        })(undefined).pipe(
          Effect.map(({ data, version }) => ({ version, rows: Option.fromNullable(data) })),
          Effect.orDie
        ),

      /**
       * Keeps an answer computed from the counts of `version`, unless a newer one is there;
       * drops stale answers and, past `cap` answers, those written longest ago.
       */
      store: (key: AnswerKey, to: string, version: string, rows: ReadonlyArray<Rising>, now: Date, cap: number): Effect.Effect<void> =>
        Effect.gen(function*() {
          yield* sql`insert into trend_answers (kind, window_days, library, niche, country, language, min_count, date_to, version, computed_at, data)
            values (${termKinds[key.kind]}, ${key.windowDays}, ${key.library ?? any}, ${key.niche ?? any}, ${key.country ?? any},
                    ${key.language ?? any}, ${key.minCount}, ${to}::date, ${version}::bigint, ${now}, ${JSON.stringify(rows)}::jsonb)
            on conflict (kind, window_days, library, niche, country, language, min_count) do update
              set date_to = excluded.date_to, version = excluded.version, computed_at = excluded.computed_at, data = excluded.data, seq = default
              where trend_answers.version <= excluded.version`
          yield* sql`delete from trend_answers where version < ${version}::bigint or date_to < ${to}::date`
          yield* sql`delete from trend_answers where seq <= (select seq from trend_answers order by seq desc offset ${cap} limit 1)`
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

      /** A phrase's count on each of `days` that has one (days without are left out): one key probe per day. */
      series: (termId: string, scope: TrendScope, days: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<DayCount>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: DayCount,
          execute: () => sql`
            select day::text as day, sum(ads)::int as count
              from trend_daily
             where ${sql.and([
               sql`kind = ${termKinds.phrase}`,
               sql`day = any(${days}::date[])`,
               sql`term_id = ${termId}::bigint`,
               ...scoped(scope)
             ])}
             group by day
             order by day`
        })(undefined).pipe(Effect.orDie)
    }
  })
}) {}
