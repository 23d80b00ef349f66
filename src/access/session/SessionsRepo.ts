import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { LogEntry } from "./Api.js"
import { AccountId } from "../../kernel/Ids.js"

export type ThrottleKind = "account" | "address"

/** The ledger filters of `GET /api/logs`, resolved: instants, not days. */
export interface LogFilter {
  readonly accountId: AccountId
  readonly route: Option.Option<{ readonly exact: string } | { readonly prefix: string }>
  readonly status: Option.Option<number>
  readonly from: Option.Option<Date>
  /** Exclusive. */
  readonly until: Option.Option<Date>
  readonly limit: number
  readonly offset: number
}

const LogRow = Schema.Struct({
  id: Schema.String,
  method: Schema.String,
  route: Schema.String,
  status: Schema.NullOr(Schema.Int),
  latency_ms: Schema.NullOr(Schema.Int),
  charged_at: Schema.DateFromSelf,
  pool: Schema.Literal("monthly", "addon"),
  refunded: Schema.Boolean
})

/** What a password sign-in checks; no hash when the account has no password. */
const Credentials = Schema.Struct({ id: AccountId, password_hash: Schema.NullOr(Schema.String) })
const Notice = Schema.Struct({ notice: Schema.NullOr(Schema.String) })
const Lockout = Schema.Struct({ locked_until: Schema.DateFromSelf })
/** Calls of one UTC day (YYYY-MM-DD), refunded ones among them. */
const UsageDay = Schema.Struct({ day: Schema.String, calls: Schema.Int, refunded: Schema.Int })
const UsageRoute = Schema.Struct({ route: Schema.String, calls: Schema.Int })
const LogTotal = Schema.Struct({ total: Schema.Int })

export class SessionsRepo extends Effect.Service<SessionsRepo>()("adintel/SessionsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findSession = SqlSchema.findOne({
      Request: Schema.Struct({ idHash: Schema.Uint8ArrayFromSelf, now: Schema.DateFromSelf, idleSince: Schema.DateFromSelf }),
      Result: Schema.Struct({ account_id: AccountId }),
      // A live session is seen again: its idle clock restarts.
      execute: ({ idHash, idleSince, now }) => sql`
        update sessions set last_seen_at = ${now}
         where id_hash = ${idHash} and expires_at > ${now} and last_seen_at > ${idleSince}
        returning account_id`
    })

    const route = (filter: LogFilter) =>
      Option.match(filter.route, {
        onNone: () => sql`true`,
        onSome: (r) => ("exact" in r ? sql`route = ${r.exact}` : sql`starts_with(route, ${r.prefix})`)
      })
    const where = (filter: LogFilter) =>
      sql.and([
        sql`account_id = ${filter.accountId}::uuid`,
        route(filter),
        Option.match(filter.status, { onNone: () => sql`true`, onSome: (status) => sql`status = ${status}` }),
        Option.match(filter.from, { onNone: () => sql`true`, onSome: (from) => sql`charged_at >= ${from}` }),
        Option.match(filter.until, { onNone: () => sql`true`, onSome: (until) => sql`charged_at < ${until}` })
      ])

    return {
      /** Accounts sign in by e-mail, case-insensitively; accounts without a password cannot. */
      credentialsOf: (email: string) =>
        SqlSchema.findOne({
          Request: Schema.Void,
          Result: Credentials,
          execute: () => sql`
          select id, password_hash from accounts where lower(email) = lower(${email})`
        })(undefined).pipe(Effect.orDie),

      /** A stronger hash of the same password, unless the password changed meanwhile (compare and set). */
      rehash: (accountId: AccountId, previous: string, next: string) =>
        sql`update accounts set password_hash = ${next} where id = ${accountId}::uuid and password_hash = ${previous}`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      create: (session: { idHash: Uint8Array; accountId: AccountId; now: Date; expiresAt: Date }) =>
        sql`insert into sessions (id_hash, account_id, created_at, last_seen_at, expires_at)
            values (${session.idHash}, ${session.accountId}::uuid, ${session.now}, ${session.now}, ${session.expiresAt})`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      /** The account of a live session (not past its absolute expiry, not idle too long). */
      find: (idHash: Uint8Array, now: Date, idleSince: Date) =>
        findSession({ idHash, now, idleSince }).pipe(Effect.map(Option.map((row) => row.account_id)), Effect.orDie),

      remove: (idHash: Uint8Array) => sql`delete from sessions where id_hash = ${idHash}`.pipe(Effect.asVoid, Effect.orDie),

      /**
       * Clears, as a new session of `accountId` is made: sessions that can no longer be used,
       * and the account's oldest live ones beyond `keep` (a password signed in over and over
       * does not grow the table).
       */
      removeEnded: (accountId: AccountId, now: Date, idleSince: Date, keep: number) =>
        Effect.zipRight(
          sql`delete from sessions where expires_at <= ${now} or last_seen_at <= ${idleSince}`,
          sql`delete from sessions where id_hash in (
                select id_hash from sessions where account_id = ${accountId}::uuid
                 order by created_at desc offset ${keep})`
        ).pipe(Effect.asVoid, Effect.orDie),

      setNotice: (idHash: Uint8Array, notice: string) =>
        sql`update sessions set notice = ${notice} where id_hash = ${idHash}`.pipe(Effect.asVoid, Effect.orDie),

      /** The notice left for the next page, cleared as it is read. */
      takeNotice: (idHash: Uint8Array) =>
        SqlSchema.findOne({
          Request: Schema.Void,
          Result: Notice,
          execute: () => sql`
          update sessions s set notice = null from (select notice from sessions where id_hash = ${idHash} for update) old
           where s.id_hash = ${idHash}
          returning old.notice`
        })(undefined).pipe(Effect.map(Option.flatMap((row) => Option.fromNullable(row.notice))), Effect.orDie),

      /** Until when sign-ins of this subject are refused; none when they are not. */
      lockedUntil: (kind: ThrottleKind, subject: string, now: Date) =>
        SqlSchema.findOne({
          Request: Schema.Void,
          Result: Lockout,
          execute: () => sql`
          select locked_until from login_failures
           where kind = ${kind} and subject = ${subject} and locked_until > ${now}`
        })(undefined).pipe(Effect.map(Option.map((row) => row.locked_until)), Effect.orDie),

      /**
       * Counts a failed sign-in. Failures older than `window` start the count again; the one
       * that reaches `max` locks the subject until `now + lockout`.
       */
      recordFailure: (kind: ThrottleKind, subject: string, now: Date, options: { windowStart: Date; max: number; lockedUntil: Date }) =>
        Effect.zipRight(
          sql`delete from login_failures where first_failed_at < ${options.windowStart} and coalesce(locked_until <= ${now}, true)`,
          sql`
          insert into login_failures as f (kind, subject, failures, first_failed_at, locked_until)
          values (${kind}, ${subject}, 1, ${now}, case when 1 >= ${options.max} then ${options.lockedUntil}::timestamptz end)
          on conflict (kind, subject) do update set
            failures = case when f.first_failed_at < ${options.windowStart} then 1 else f.failures + 1 end,
            first_failed_at = case when f.first_failed_at < ${options.windowStart} then ${now} else f.first_failed_at end,
            locked_until = case
              when (case when f.first_failed_at < ${options.windowStart} then 1 else f.failures + 1 end) >= ${options.max}
              then ${options.lockedUntil}::timestamptz else f.locked_until end`
        ).pipe(Effect.asVoid, Effect.orDie),

      clearFailures: (kind: ThrottleKind, subject: string) =>
        sql`delete from login_failures where kind = ${kind} and subject = ${subject}`.pipe(Effect.asVoid, Effect.orDie),

      /** Calls per UTC day since `since` (refunded ones counted apart), busiest routes first. */
      usage: (accountId: AccountId, since: Date) =>
        Effect.all({
          days: SqlSchema.findAll({
            Request: Schema.Void,
            Result: UsageDay,
            execute: () => sql`
            select to_char((charged_at at time zone 'UTC')::date, 'YYYY-MM-DD') as day,
                   count(*)::int as calls, count(refunded_at)::int as refunded
              from request_ledger
             where account_id = ${accountId}::uuid and charged_at >= ${since}
             group by 1 order by 1`
          })(undefined),
          routes: SqlSchema.findAll({
            Request: Schema.Void,
            Result: UsageRoute,
            execute: () => sql`
            select route, count(*)::int as calls
              from request_ledger
             where account_id = ${accountId}::uuid and charged_at >= ${since}
             group by route order by calls desc, route
             limit 50`
          })(undefined)
        }).pipe(Effect.orDie),

      logs: (filter: LogFilter) =>
        Effect.all({
          total: SqlSchema.findOne({
            Request: Schema.Void,
            Result: LogTotal,
            execute: () => sql`select count(*)::int as total from request_ledger where ${where(filter)}`
          })(undefined).pipe(Effect.map(Option.match({ onNone: () => 0, onSome: (row) => row.total }))),
          rows: SqlSchema.findAll({
            Request: Schema.Void,
            Result: LogRow,
            execute: () => sql`
              select id::text, method, route, status, latency_ms, charged_at, pool, refunded_at is not null as refunded
                from request_ledger
               where ${where(filter)}
               order by charged_at desc, id desc
               limit ${filter.limit} offset ${filter.offset}`
          })(undefined)
        }).pipe(
          Effect.map(({ rows, total }) => ({
            total,
            entries: rows.map((row): LogEntry => ({ ...row, charged_at: row.charged_at.toISOString() }))
          })),
          Effect.orDie
        )
    }
  })
}) {}

