import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { AccountId } from "../../kernel/Ids.js"

/** Who regenerated a key: the browser session (with its client address) or an operator (admin API, CLI). */
export const KeyOrigin = Schema.Struct({
  via: Schema.Literal("session", "operator"),
  address: Schema.NullOr(Schema.String)
})
export type KeyOrigin = typeof KeyOrigin.Type

/** One recorded event. Only key regenerations so far; `data` is typed per kind. */
export const AccountEvent = Schema.Struct({
  id: Schema.String,
  account_id: AccountId,
  kind: Schema.Literal("api_key_regenerated"),
  occurred_at: Schema.DateFromSelf,
  data: KeyOrigin
})
export type AccountEvent = typeof AccountEvent.Type

/** An account whose monthly credits used have reached a share of its allowance in the current period. */
export const CreditUsage = Schema.Struct({
  account_id: AccountId,
  period_start: Schema.DateFromSelf,
  used: Schema.Int,
  monthly_limit: Schema.Int
})
export type CreditUsage = typeof CreditUsage.Type

/** Where a page of events starts: after this one. */
export interface EventPosition {
  readonly occurred_at: Date
  readonly id: string
}

/** The events an account keeps: the newest ones (a regeneration loop cannot grow the table without end). */
export const maxEventsPerAccount = 100

/** The SQL of `account_events` (migration 0022) and the read of the meters that credit alerts need. */
export class AccountEventsRepo extends Effect.Service<AccountEventsRepo>()("adintel/AccountEventsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    return {
      /** Records a key regeneration; in the caller's transaction when there is one. */
      keyRegenerated: (accountId: AccountId, origin: KeyOrigin, at: Date): Effect.Effect<void> =>
        Effect.gen(function*() {
          yield* sql`insert into account_events (account_id, kind, occurred_at, data)
                     values (${accountId}::uuid, 'api_key_regenerated', ${at}, ${JSON.stringify(origin)}::jsonb)`
          yield* sql`delete from account_events where account_id = ${accountId}::uuid and id < (
                       select min(id) from (select id from account_events where account_id = ${accountId}::uuid
                                             order by id desc limit ${maxEventsPerAccount}) newest)`
        }).pipe(Effect.orDie),

      /** Events that occurred at or after `from`, oldest first, after `after`; at most `limit`. */
      since: (from: Date, after: EventPosition | null, limit: number): Effect.Effect<ReadonlyArray<AccountEvent>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: AccountEvent,
          execute: () => sql`
            select id::text, account_id::text, kind, occurred_at, data from account_events
             where occurred_at >= ${from}
               and ${after === null ? sql`true` : sql`(occurred_at, id) > (${after.occurred_at}, ${after.id}::bigint)`}
             order by occurred_at, id
             limit ${limit}`
        })(undefined).pipe(Effect.orDie),

      /**
       * Accounts that have used at least `percent` % of their monthly allowance in the period
       * that holds `now` (a meter row of an earlier period counts for nothing: its period is
       * over), by account id after `after`, at most `limit`. A plain read: no meter row is locked.
       */
      creditUsage: (now: Date, percent: number, after: AccountId | null, limit: number): Effect.Effect<ReadonlyArray<CreditUsage>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: CreditUsage,
          execute: () => sql`
            select m.account_id::text, m.period_start, m.used, coalesce(a.monthly_limit, p.monthly_credits) as monthly_limit
              from account_meters m
              join accounts a on a.id = m.account_id
              join plans p on p.name = a.plan
             where coalesce(a.monthly_limit, p.monthly_credits) > 0
               and m.used * 100 >= coalesce(a.monthly_limit, p.monthly_credits) * ${percent}
               and m.period_start >= meter_period_start(m.period_anchor, ${now})
               and ${after === null ? sql`true` : sql`m.account_id > ${after}::uuid`}
             order by m.account_id
             limit ${limit}`
        })(undefined).pipe(Effect.orDie)
    }
  })
}) {}
