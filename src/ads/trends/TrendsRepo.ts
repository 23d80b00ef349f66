import { SqlClient, SqlSchema } from "@effect/sql"
import { ReadSql } from "../../platform/db/Replicas.js"
import { Effect, Option, Schema, Stream } from "effect"
import { PgListener, sqlStateOf, unboundedStatements } from "../../platform/db/Database.js"
import { countOf } from "../../platform/db/Rows.js"

/** A term of the dictionary. */
export interface Term {
  readonly id: number
  readonly kind: number
  readonly term: string
}

/** What an ad counts under: its library, its niche ('' when no filter can name it), a country it targets or '*'. */
export interface Cell {
  readonly library: string
  readonly niche: string
  readonly country: string
}
export interface NumberedCell extends Cell {
  readonly id: number
}

/** A day's packed counts of one kind in one cell. */
export interface DayCounts {
  readonly kind: number
  readonly day: string
  readonly cell: number
  readonly counts: Uint8Array
}

/** A term's packed counts of one month, by cell and day of the month. */
export interface MonthCounts {
  readonly term: number
  readonly month: string
  readonly counts: Uint8Array
}

/** A kept ranking (Ranking.ts `kept`), packed, for a kind, window and filter cell. */
export interface KeptRanking {
  readonly kind: number
  readonly windowDays: number
  readonly library: string
  readonly niche: string
  readonly country: string
  readonly kept: Uint8Array
}

const Bytes = Schema.Uint8ArrayFromSelf

/** Bytes as the driver sends them (a Buffer is written as bytea), without a copy. */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/**
 * Numbers, ISO days or decimal ids as the text of a PostgreSQL array, one parameter: the driver
 * turned each element of an array parameter into a quoted, escaped string of its own, some
 * hundred thousand a counting batch. Elements of other shapes are refused (they could need quoting).
 */
const plainArray = (values: ReadonlyArray<number | string>): string => {
  for (const value of values) {
    if (typeof value === "number" ? !Number.isSafeInteger(value) : !plainElement.test(value)) {
      throw new TypeError(`not a plain array element: ${String(value)}`)
    }
  }
  return `{${values.join(",")}}`
}
const plainElement = /^(?:\d{4}-\d{2}-\d{2}|\d+)$/

/**
 * Many rows' packed counts as one parameter: their bytes end to end (a Buffer, which the driver
 * sends in binary) and where each starts (from 1) and how long it is, for `substring`. A
 * `bytea[]` of them was written as hexadecimal text, a string of twice their size, and parsed
 * back by PostgreSQL: a tenth of what counting allocated.
 */
const packedColumn = (all: ReadonlyArray<Uint8Array>) => {
  const starts: Array<number> = []
  const lengths: Array<number> = []
  let size = 0
  for (const bytes of all) {
    starts.push(size + 1)
    lengths.push(bytes.length)
    size += bytes.length
  }
  return { bytes: Buffer.concat(all, size), starts, lengths }
}
const TermRow = Schema.Struct({ id: Schema.Int, kind: Schema.Int, term: Schema.String })
const CellRow = Schema.Struct({ id: Schema.Int, library: Schema.String, niche: Schema.String, country: Schema.String })
const DayRow = Schema.Struct({ kind: Schema.Int, day: Schema.String, cell: Schema.Int, counts: Bytes })
const MonthRow = Schema.Struct({ term: Schema.Int, month: Schema.String, counts: Bytes })
const State = Schema.Struct({ date_to: Schema.NullOr(Schema.String), stale: Schema.Boolean })
const RankingRow = Schema.Struct({ date_to: Schema.NullOr(Schema.String), kept: Schema.NullOr(Bytes) })
const RuleRow = Schema.Struct({ counting_rule: Schema.Int })
const MarkedRow = Schema.Struct({ marked: Schema.Int })

const Text = Schema.NullOr(Schema.String)
const Texts = Schema.Array(Schema.String)
const NullableTexts = Schema.Array(Text)
const Counts = Schema.Array(Schema.NonNegativeInt)
/** A batch of uncounted ads as columns (`uncounted`): an ad's countries and languages are the next `*_counts[i]` of `countries` and `languages`. */
const UncountedColumns = Schema.Struct({
  id: Texts,
  library: Texts,
  first_seen: Texts,
  niche: NullableTexts,
  country_counts: Counts,
  countries: Texts,
  language_counts: Counts,
  languages: Texts,
  headline: NullableTexts,
  body: NullableTexts,
  description: NullableTexts,
  hook: NullableTexts
})

/** A batch of uncounted ads, as columns. */
export type UncountedAds = typeof UncountedColumns.Type

/** Decoded columns, checked to line up: a defect when they do not (they come from one statement, so they always do). */
const linedUp = (columns: UncountedAds): Effect.Effect<UncountedAds> =>
  Effect.suspend(() => {
    const n = columns.id.length
    const lined = [columns.library, columns.first_seen, columns.niche, columns.country_counts, columns.language_counts, columns.headline, columns.body, columns.description, columns.hook]
      .every((column) => column.length === n)
    const sum = (counts: ReadonlyArray<number>) => counts.reduce((total, count) => total + count, 0)
    if (!lined || sum(columns.country_counts) !== columns.countries.length || sum(columns.language_counts) !== columns.languages.length) {
      return Effect.die(new Error("uncounted ads: the columns of a batch do not line up"))
    }
    return Effect.succeed(columns)
  })

/**
 * What a counting fiber is told through PostgreSQL (LISTEN/NOTIFY, so that every replica and the
 * admin CLI's imports reach it): `count`, ads wait to be counted (an import's batch committed);
 * `build`, an import ended, so the rankings are to be built once its ads are counted.
 */
const CountSignal = Schema.Literal("count", "build")
export type CountSignal = typeof CountSignal.Type
/** A signal as sent: what, and which process sent it (a fiber is told of its own process's imports directly). */
const SignalPayload = Schema.TemplateLiteralParser(CountSignal, " ", Schema.String)
/** The channel of `CountSignal`s. */
const signalChannel = "adintel_trend_counts"

/** What the counts' state says: the day the rankings were built for (none: not yet), and whether counts in their windows changed since. */
export interface CountsState {
  readonly dateTo: Option.Option<string>
  readonly stale: boolean
}

/**
 * The SQL of trends (migrations 0071, 0077, 0106): the ads to count, the dictionaries of terms
 * and cells, the packed daily counts by day (`trend_days`) and by term (`trend_series`), the kept
 * rankings and their state (with the version of the rule that made the counts). Writers of
 * counts and builders of rankings take the state's lock first (`lock`): they run one at a time,
 * in key order within their statements.
 */
export class TrendsRepo extends Effect.Service<TrendsRepo>()("adintel/TrendsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // The routes' reads (a ranking, its terms' texts, a term's history) go to a replica when one
    // is healthy (issue 31): the counting fiber builds what they read, on the primary.
    const read = yield* ReadSql
    const listener = yield* PgListener
    /** Whether at least `n` ads are not counted yet, without counting them all. */
    const pendingAtLeast = (n: number) =>
      Effect.map(countOf(sql`select count(*)::int as n from (select 1 from trend_pending limit ${n}) p`), (found) => found >= n)
    const anyPending = pendingAtLeast(1)

    const stateOf = (locked: boolean) =>
      SqlSchema.single({
        Request: Schema.Void,
        Result: State,
        execute: () => sql`select date_to::text as date_to, stale from trend_state ${locked ? sql`for update` : sql``}`
      })(undefined).pipe(
        Effect.map(({ date_to, stale }): CountsState => ({ dateTo: Option.fromNullable(date_to), stale })),
        Effect.orDie
      )

    const ruleOf = (locked: boolean) =>
      SqlSchema.single({
        Request: Schema.Void,
        Result: RuleRow,
        execute: () => sql`select counting_rule from trend_state ${locked ? sql`for update` : sql``}`
      })(undefined).pipe(Effect.map((row) => row.counting_rule), Effect.orDie)

    const findTermsOn = (client: SqlClient.SqlClient) => SqlSchema.findAll({
      Request: Schema.Struct({ kinds: Schema.Array(Schema.Int), terms: Schema.Array(Schema.String) }),
      Result: TermRow,
      execute: ({ kinds, terms }) => client`
        select t.id, t.kind, t.term from trend_terms t
          join unnest(${kinds}::smallint[], ${terms}::text[]) as k(kind, term) on t.kind = k.kind and t.term = k.term`
    })
    const findTerms = findTermsOn(sql)
    const termsByIdOn = (client: SqlClient.SqlClient) => SqlSchema.findAll({
      Request: Schema.Array(Schema.Int),
      Result: TermRow,
      execute: (ids) => client`select id, kind, term from trend_terms where id = any(${ids}::int[])`
    })

    return {
      /**
       * Ads whose copy is not counted yet (`trend_pending`), at most `limit`, in order of their
       * first-seen day (a batch touches few days' rows; migration 0078). Their pending rows are
       * locked (an import that changes one of them locks its pending row first, so it waits,
       * then sees it counted: `pendingOf`), not the ads: locking a million ads rewrote each
       * ad's row. Rows another transaction holds are skipped unless `wait`.
       */
      uncounted: (limit: number, wait: boolean): Effect.Effect<UncountedAds> =>
        SqlSchema.single({
          Request: Schema.Void,
          Result: UncountedColumns,
          // One row of arrays, in the batch's order (a row per ad, decoded one by one, was a
          // tenth of counting's time), each sent as JSON (the driver's parser of PostgreSQL's
          // array text is slower than JSON.parse): the countries and languages of all ads end to
          // end, with how many each ad has.
          execute: () => sql`
            with locked as (
              -- The pending rows alone: on Citus a row lock is refused on a join with a distributed table.
              select p.day, p.ad_id from trend_pending p
               order by p.day, p.ad_id limit ${limit}
                 for update ${wait ? sql`` : sql`skip locked`}
            ), picked as (
              select p.day as pending_day, p.ad_id, a.library, a.first_seen, a.niche, a.countries, a.languages, a.headline, a.body, a.description, a.hook
                from locked p join ads a on a.id = p.ad_id)
            select to_json(coalesce(array_agg(ad_id::text order by pending_day, ad_id), '{}')) as id,
                   to_json(coalesce(array_agg(library order by pending_day, ad_id), '{}')) as library,
                   to_json(coalesce(array_agg(to_char(first_seen at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') order by pending_day, ad_id), '{}')) as first_seen,
                   to_json(coalesce(array_agg(niche order by pending_day, ad_id), '{}')) as niche,
                   to_json(coalesce(array_agg(cardinality(countries) order by pending_day, ad_id), '{}')) as country_counts,
                   to_json(coalesce((select array_agg(c order by k.pending_day, k.ad_id, o) from picked k, unnest(k.countries) with ordinality u(c, o)), '{}')) as countries,
                   to_json(coalesce(array_agg(cardinality(languages) order by pending_day, ad_id), '{}')) as language_counts,
                   to_json(coalesce((select array_agg(l order by k.pending_day, k.ad_id, o) from picked k, unnest(k.languages) with ordinality u(l, o)), '{}')) as languages,
                   to_json(coalesce(array_agg(headline order by pending_day, ad_id), '{}')) as headline,
                   to_json(coalesce(array_agg(body order by pending_day, ad_id), '{}')) as body,
                   to_json(coalesce(array_agg(description order by pending_day, ad_id), '{}')) as description,
                   to_json(coalesce(array_agg(hook order by pending_day, ad_id), '{}')) as hook
              from picked`
        })(undefined).pipe(
          Effect.flatMap(linedUp),
          Effect.orDie
        ),

      markCounted: (ids: ReadonlyArray<string>): Effect.Effect<void> =>
        Effect.suspend(() => sql`delete from trend_pending where ad_id = any(${plainArray(ids)}::bigint[])`).pipe(Effect.asVoid, Effect.orDie),

      /** How many ads are not counted yet: for the progress of a long count. */
      pendingCount: countOf(sql`select count(*)::int as n from trend_pending`).pipe(Effect.orDie),

      /** Whether at least `n` ads are not counted yet: what each import batch's signal asks, without counting them all. */
      pendingAtLeast: (n: number): Effect.Effect<boolean> => Effect.orDie(pendingAtLeast(n)),

      /**
       * Which of these ads (row ids) are not counted yet, their pending rows locked to the
       * caller's transaction: a counter holding one is waited for (its count committed, the row
       * gone), and none takes them until the caller ends.
       */
      pendingOf: (ids: ReadonlyArray<string>): Effect.Effect<ReadonlySet<string>> =>
        ids.length === 0 ? Effect.succeed(new Set<string>()) : SqlSchema.findAll({
          Request: Schema.Void,
          Result: Schema.Struct({ id: Schema.String }),
          execute: () => sql`select ad_id::text as id from trend_pending where ad_id = any(${ids}::bigint[]) order by ad_id for update`
        })(undefined).pipe(
          Effect.map((rows) => new Set(rows.map((r) => r.id))),
          Effect.orDie
        ),

      /**
       * Gives the pending table's space back once a bulk count emptied it: a million deleted
       * rows leave a 60 MB index that vacuum cannot shrink. Only when no other transaction
       * holds the table (`nowait`: an import or a counter at work is never waited for, nor
       * blocked) and it is empty; whether it did.
       */
      compactPending: Effect.gen(function*() {
        if (yield* anyPending) return false
        return yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`lock table trend_pending in access exclusive mode nowait`
          const empty = !(yield* anyPending)
          if (empty) yield* sql`truncate trend_pending`
          return empty
        }))
      }).pipe(
        // 55P03: lock_not_available, someone holds the table; a later count tries again.
        Effect.catchIf((e) => sqlStateOf(e) === "55P03", () => Effect.succeed(false)),
        Effect.orDie,
        Effect.withSpan("TrendsRepo.compactPending")
      ),

      /** These ads (row ids, and first-seen days), just written, are to be counted: in the import's transaction. */
      markPending: (ads: ReadonlyArray<{ readonly id: string; readonly day: string }>): Effect.Effect<void> =>
        ads.length === 0 ? Effect.void : sql`
          insert into trend_pending (ad_id, day)
          select p.id, p.day from unnest(${ads.map((a) => a.id)}::bigint[], ${ads.map((a) => a.day)}::date[]) as p(id, day)
           order by p.id
          on conflict (ad_id) do update set day = excluded.day`.pipe(Effect.asVoid, Effect.orDie),

      /** Tells every counting fiber `what`, from the process `from`; in a transaction, once it commits. */
      signal: (what: CountSignal, from: string): Effect.Effect<void> =>
        // Identical notifications of one transaction are delivered once.
        sql`select pg_notify(${signalChannel}, ${`${what} ${from}`})`.pipe(Effect.asVoid, Effect.orDie),

      /**
       * The signals every process's `signal` sends, as they come, from a connection of their own
       * (an unknown payload is passed over); first `listening`, once it listens. Fails when the
       * connection is lost: what was sent until it listens again is lost.
       */
      signals: listener.listen(signalChannel).pipe(
        Stream.filterMap((heard): Option.Option<"listening" | { readonly what: CountSignal; readonly from: string }> =>
          heard._tag === "Listening"
            ? Option.some("listening")
            : Option.map(Schema.decodeUnknownOption(SignalPayload)(heard.payload), ([what, , from]) => ({ what, from })))
      ),

      /**
       * Runs `effect` in one transaction: the counting fiber's work (counts, builds of the
       * rankings), which may read the counts whole, so the statement timeout of requests is lifted.
       */
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        sql.withTransaction(Effect.zipRight(unboundedStatements(sql), effect)).pipe(Effect.catchTag("SqlError", Effect.die)),

      /** The counts' state as it is. */
      state: stateOf(false),

      /** The counts' state, locked to the caller's transaction: every writer of counts and builder of rankings takes it first. */
      lock: stateOf(true),

      /** The version of the rule the counts were made by (Phrases.ts `countingRule`, migration 0106). */
      countingRule: ruleOf(false),

      /**
       * That version, locked to the caller's transaction with the whole of `trend_pending`: in
       * the order imports and counters take them (pending rows, then the state), so that a count
       * or an import under way ends first and the next waits for the caller.
       */
      lockCountingRule: Effect.zipRight(sql`lock table trend_pending in exclusive mode`.pipe(Effect.orDie), ruleOf(true)),

      /**
       * Every count and ranking dropped and every ad marked to be counted again, the counts now
       * made by `rule`; how many ads were marked (0 on a database without ads, a fresh one). In
       * the caller's transaction (which holds `lockCountingRule`).
       */
      countAgain: (rule: number): Effect.Effect<number> =>
        Effect.gen(function*() {
          yield* sql`truncate trend_days, trend_series, trend_rankings`
          const [marked] = yield* SqlSchema.findAll({
            Request: Schema.Void,
            Result: MarkedRow,
            execute: () => sql`
              with marked as (
                insert into trend_pending (ad_id, day)
                select id, (first_seen at time zone 'UTC')::date from ads
                on conflict (ad_id) do nothing
                returning 1)
              select count(*)::int as marked from marked`
          })(undefined)
          yield* sql`update trend_state set date_to = null, stale = true, counting_rule = ${rule}`
          return marked?.marked ?? 0
        }).pipe(Effect.orDie),

      /** Counts in the rankings' windows changed: they are to be built again. In the caller's transaction (which holds `lock`). */
      markStale: sql`update trend_state set stale = true`.pipe(Effect.asVoid, Effect.orDie),

      /** The ids of these terms, those not in the dictionary added. In the caller's transaction (which holds `lock`). */
      termIds: (terms: ReadonlyArray<{ readonly kind: number; readonly term: string }>): Effect.Effect<ReadonlyArray<Term>> =>
        terms.length === 0 ? Effect.succeed([]) : Effect.gen(function*() {
          const request = { kinds: terms.map((t) => t.kind), terms: terms.map((t) => t.term) }
          yield* sql`insert into trend_terms (kind, term)
            select kind, term from unnest(${request.kinds}::smallint[], ${request.terms}::text[]) as k(kind, term)
             order by kind, term
            on conflict (kind, term) do nothing`
          return yield* findTerms(request)
        }).pipe(Effect.orDie),

      /** A term's id, if any ad used it (on a replica: a term it has not replayed yet has no history there either). */
      termId: (kind: number, term: string): Effect.Effect<Option.Option<number>> =>
        Effect.map(findTermsOn(read)({ kinds: [kind], terms: [term] }), (rows) => Option.map(Option.fromNullable(rows[0]), (r) => r.id)).pipe(Effect.orDie),

      /**
       * The texts of these terms. Read on a replica, and any it lacks on the primary: a ranking
       * read on one replica may name a term another replica, further behind, has not replayed.
       */
      termsById: (ids: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<Term>> =>
        ids.length === 0 ? Effect.succeed([]) : Effect.gen(function*() {
          const found = yield* termsByIdOn(read)(ids)
          if (found.length === new Set(ids).size) return found
          const known = new Set(found.map((t) => t.id))
          return [...found, ...yield* termsByIdOn(sql)(ids.filter((id) => !known.has(id)))]
        }).pipe(Effect.orDie),

      /** Every term of a kind: the build of the rankings orders ties by text. */
      termsOfKind: (kind: number): Effect.Effect<ReadonlyArray<Term>> =>
        SqlSchema.findAll({ Request: Schema.Int, Result: TermRow, execute: (kind) => sql`select id, kind, term from trend_terms where kind = ${kind}` })(kind)
          .pipe(Effect.orDie),

      /** The ids of these cells, those not known added. In the caller's transaction (which holds `lock`). */
      cellIds: (cells: ReadonlyArray<Cell>): Effect.Effect<ReadonlyArray<NumberedCell>> =>
        cells.length === 0 ? Effect.succeed([]) : Effect.gen(function*() {
          const columns = [cells.map((c) => c.library), cells.map((c) => c.niche), cells.map((c) => c.country)] as const
          yield* sql`insert into trend_cells (library, niche, country)
            select * from unnest(${columns[0]}::text[], ${columns[1]}::text[], ${columns[2]}::text[]) as c(library, niche, country)
             order by 1, 2, 3
            on conflict (library, niche, country) do nothing`
          return yield* SqlSchema.findAll({
            Request: Schema.Void,
            Result: CellRow,
            execute: () => sql`select c.id, c.library, c.niche, c.country from trend_cells c
              join unnest(${columns[0]}::text[], ${columns[1]}::text[], ${columns[2]}::text[]) as k(library, niche, country)
                on c.library = k.library and c.niche = k.niche and c.country = k.country`
          })(undefined)
        }).pipe(Effect.orDie),

      /** Every cell. */
      cells: SqlSchema.findAll({ Request: Schema.Void, Result: CellRow, execute: () => sql`select id, library, niche, country from trend_cells` })(undefined)
        .pipe(Effect.orDie),

      /** The stored counts of these days and cells. */
      daysOf: (keys: ReadonlyArray<{ readonly kind: number; readonly day: string; readonly cell: number }>): Effect.Effect<ReadonlyArray<DayCounts>> =>
        keys.length === 0 ? Effect.succeed([]) : SqlSchema.findAll({
          Request: Schema.Void,
          Result: DayRow,
          execute: () => sql`
            select d.kind, d.day::text as day, d.cell, d.counts from trend_days d
              join unnest(${plainArray(keys.map((k) => k.kind))}::smallint[], ${plainArray(keys.map((k) => k.day))}::date[], ${plainArray(keys.map((k) => k.cell))}::int[]) as k(kind, day, cell)
                on d.kind = k.kind and d.day = k.day and d.cell = k.cell`
        })(undefined).pipe(Effect.orDie),

      /** Writes these days' counts (none: the row goes). In the caller's transaction (which holds `lock`). */
      writeDays: (rows: ReadonlyArray<{ readonly kind: number; readonly day: string; readonly cell: number; readonly counts: Uint8Array | undefined }>) =>
        Effect.gen(function*() {
          const kept = rows.filter((r) => r.counts !== undefined).sort((a, b) => a.kind - b.kind || (a.day < b.day ? -1 : a.day > b.day ? 1 : a.cell - b.cell))
          const gone = rows.filter((r) => r.counts === undefined)
          if (kept.length > 0) {
            const counts = packedColumn(kept.map((r) => r.counts!))
            yield* sql`insert into trend_days (kind, day, cell, counts)
              select k.kind, k.day, k.cell, substring(${counts.bytes}::bytea from k.start for k.length)
                from unnest(${plainArray(kept.map((r) => r.kind))}::smallint[], ${plainArray(kept.map((r) => r.day))}::date[], ${plainArray(kept.map((r) => r.cell))}::int[],
                            ${plainArray(counts.starts)}::int[], ${plainArray(counts.lengths)}::int[]) as k(kind, day, cell, start, length)
              on conflict (kind, day, cell) do update set counts = excluded.counts`
          }
          if (gone.length > 0) {
            yield* sql`delete from trend_days d
              using unnest(${gone.map((r) => r.kind)}::smallint[], ${gone.map((r) => r.day)}::date[], ${gone.map((r) => r.cell)}::int[]) as k(kind, day, cell)
              where d.kind = k.kind and d.day = k.day and d.cell = k.cell`
          }
        }).pipe(Effect.orDie),

      /** A kind's counts of `from`..`to` in these cells: what the rankings are built from. */
      daysIn: (kind: number, from: string, to: string, cells: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<DayCounts>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: DayRow,
          execute: () => sql`select kind, day::text as day, cell, counts from trend_days
            where kind = ${kind} and day between ${from}::date and ${to}::date and cell = any(${cells}::int[])`
        })(undefined).pipe(Effect.orDie),

      /** The stored counts of these terms and months. */
      monthsOf: (keys: ReadonlyArray<{ readonly term: number; readonly month: string }>): Effect.Effect<ReadonlyArray<MonthCounts>> =>
        keys.length === 0 ? Effect.succeed([]) : SqlSchema.findAll({
          Request: Schema.Void,
          Result: MonthRow,
          execute: () => sql`
            select s.term, s.month::text as month, s.counts from trend_series s
              join unnest(${plainArray(keys.map((k) => k.term))}::int[], ${plainArray(keys.map((k) => k.month))}::date[]) as k(term, month)
                on s.term = k.term and s.month = k.month`
        })(undefined).pipe(Effect.orDie),

      /** Writes these months' counts (none: the row goes). In the caller's transaction (which holds `lock`). */
      writeMonths: (rows: ReadonlyArray<{ readonly term: number; readonly month: string; readonly counts: Uint8Array | undefined }>) =>
        Effect.gen(function*() {
          const kept = rows.filter((r) => r.counts !== undefined).sort((a, b) => a.term - b.term || (a.month < b.month ? -1 : a.month > b.month ? 1 : 0))
          const gone = rows.filter((r) => r.counts === undefined)
          if (kept.length > 0) {
            const counts = packedColumn(kept.map((r) => r.counts!))
            yield* sql`insert into trend_series (term, month, counts)
              select k.term, k.month, substring(${counts.bytes}::bytea from k.start for k.length)
                from unnest(${plainArray(kept.map((r) => r.term))}::int[], ${plainArray(kept.map((r) => r.month))}::date[], ${plainArray(counts.starts)}::int[], ${plainArray(counts.lengths)}::int[])
                  as k(term, month, start, length)
              on conflict (term, month) do update set counts = excluded.counts`
          }
          if (gone.length > 0) {
            yield* sql`delete from trend_series s
              using unnest(${gone.map((r) => r.term)}::int[], ${gone.map((r) => r.month)}::date[]) as k(term, month)
              where s.term = k.term and s.month = k.month`
          }
        }).pipe(Effect.orDie),

      /** One term's counts of the months `from`..`to` (first days of months). */
      series: (term: number, from: string, to: string): Effect.Effect<ReadonlyArray<MonthCounts>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: MonthRow,
          execute: () => read`select term, month::text as month, counts from trend_series
            where term = ${term} and month between ${from}::date and ${to}::date order by month`
        })(undefined).pipe(Effect.orDie),

      /**
       * The kept ranking of a kind, window and filter cell, with the day the rankings were built
       * for, in one statement (a build commits both at once). No row: nothing rose there.
       */
      ranking: (kind: number, windowDays: number, cell: Cell) =>
        SqlSchema.single({
          Request: Schema.Void,
          Result: RankingRow,
          execute: () => read`
            select (select date_to::text from trend_state) as date_to,
                   (select kept from trend_rankings
                     where kind = ${kind} and window_days = ${windowDays} and library = ${cell.library}
                       and niche = ${cell.niche} and country = ${cell.country}) as kept`
        })(undefined).pipe(Effect.map(({ date_to, kept }) => ({ dateTo: date_to, kept })), Effect.orDie),

      /**
       * The rankings for the windows ending `dateTo`, in place of those before, and counts no
       * window or history reaches any more dropped. In the caller's transaction (which holds `lock`).
       */
      replaceRankings: (rankings: ReadonlyArray<KeptRanking>, dateTo: string, daysFrom: string, monthsFrom: string) =>
        Effect.gen(function*() {
          yield* sql`delete from trend_rankings`
          if (rankings.length > 0) {
            yield* sql`insert into trend_rankings (kind, window_days, library, niche, country, kept)
              select * from unnest(${rankings.map((r) => r.kind)}::smallint[], ${rankings.map((r) => r.windowDays)}::smallint[],
                                   ${rankings.map((r) => r.library)}::text[], ${rankings.map((r) => r.niche)}::text[],
                                   ${rankings.map((r) => r.country)}::text[], ${rankings.map((r) => asBuffer(r.kept))}::bytea[])`
          }
          yield* sql`delete from trend_days where day < ${daysFrom}::date`
          yield* sql`delete from trend_series where month < ${monthsFrom}::date`
          yield* sql`update trend_state set date_to = ${dateTo}::date, stale = false`
        }).pipe(Effect.orDie)
    }
  })
}) {}
