import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { DigestPrefs, Frequency } from "./Api.js"
import { AccountId } from "../../kernel/Ids.js"

/** An account's digest state: its preferences (null: never set) and its latest digest's slot. */
export const DigestState = Schema.Struct({
  account_id: AccountId,
  frequency: Schema.NullOr(Frequency),
  email: Schema.NullOr(Schema.Boolean),
  hour_utc: Schema.NullOr(Schema.Int),
  last_slot: Schema.NullOr(Schema.DateFromSelf)
})
export type DigestState = typeof DigestState.Type

/** What a digest did, recorded on its row. */
export interface DigestOutcome {
  readonly brands: number
  readonly ads: number
  /** `pending`: its e-mail is to be sent; `none`: no e-mail for it. */
  readonly email: "pending" | "none"
}

/** The SQL of digest preferences and digests: `digest_prefs`, `notification_digests` (migration 0021). */
export class DigestRepo extends Effect.Service<DigestRepo>()("adintel/DigestRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    return {
      /** The preferences these accounts saved, in one read (an account with no row has none: the default). */
      prefsOfAccounts: (accounts: ReadonlyArray<AccountId>): Effect.Effect<ReadonlyMap<AccountId, DigestPrefs>> =>
        accounts.length === 0 ? Effect.succeed(new Map()) : SqlSchema.findAll({
          Request: Schema.Void,
          Result: Schema.Struct({ account_id: AccountId, ...DigestPrefs.fields }),
          execute: () => sql`select account_id::text, frequency, email, hour_utc from digest_prefs
                              where account_id = any(${accounts}::uuid[])`
        })(undefined).pipe(
          Effect.map((rows) => new Map(rows.map(({ account_id, ...prefs }) => [account_id, prefs]))),
          Effect.orDie
        ),

      prefs: (account: AccountId): Effect.Effect<Option.Option<DigestPrefs>> =>
        SqlSchema.findOne({
          Request: Schema.Void,
          Result: DigestPrefs,
          execute: () => sql`select frequency, email, hour_utc from digest_prefs where account_id = ${account}::uuid`
        })(undefined).pipe(Effect.orDie),

      savePrefs: (account: AccountId, prefs: DigestPrefs, now: Date): Effect.Effect<void> =>
        sql`insert into digest_prefs (account_id, frequency, email, hour_utc, updated_at)
            values (${account}::uuid, ${prefs.frequency}, ${prefs.email}, ${prefs.hour_utc}, ${now})
            on conflict (account_id) do update
              set frequency = excluded.frequency, email = excluded.email, hour_utc = excluded.hour_utc, updated_at = excluded.updated_at`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      /** The digest state of each of these accounts. */
      states: (accounts: ReadonlyArray<AccountId>): Effect.Effect<ReadonlyArray<DigestState>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: DigestState,
          execute: () => sql`
            select a.account_id::text, p.frequency, p.email, p.hour_utc,
                   (select max(d.slot) from notification_digests d where d.account_id = a.account_id) as last_slot
              from unnest(${accounts}::uuid[]) as a(account_id)
              left join digest_prefs p on p.account_id = a.account_id`
        })(undefined).pipe(Effect.orDie),

      /**
       * Takes the account's digest of `slot`: true for the one caller whose row went in (a
       * second replica's insert waits for the first's transaction, then finds the row). Also
       * drops the account's digest rows older than `keepAfter`: only the latest one is ever read.
       */
      claim: (account: AccountId, slot: Date, now: Date, keepAfter: Date): Effect.Effect<boolean> =>
        Effect.gen(function*() {
          const taken = yield* sql`insert into notification_digests (account_id, slot, taken_at)
                                   values (${account}::uuid, ${slot}, ${now})
                                   on conflict do nothing returning 1`
          if (taken.length === 0) return false
          yield* sql`delete from notification_digests where account_id = ${account}::uuid and slot < ${keepAfter}`
          return true
        }).pipe(Effect.orDie),

      record: (account: AccountId, slot: Date, outcome: DigestOutcome): Effect.Effect<void> =>
        sql`update notification_digests set brands = ${outcome.brands}, ads = ${outcome.ads}, email_status = ${outcome.email}
             where account_id = ${account}::uuid and slot = ${slot}`.pipe(Effect.asVoid, Effect.orDie),

      /** Takes the digest's e-mail to send: true for the one caller that moved it from `pending`. */
      startEmail: (account: AccountId, slot: Date): Effect.Effect<boolean> =>
        sql`update notification_digests set email_status = 'sending'
             where account_id = ${account}::uuid and slot = ${slot} and email_status = 'pending' returning 1`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      finishEmail: (account: AccountId, slot: Date, status: "sent" | "failed"): Effect.Effect<void> =>
        sql`update notification_digests set email_status = ${status}
             where account_id = ${account}::uuid and slot = ${slot}`.pipe(Effect.asVoid, Effect.orDie),

      /** Runs `effect` in one transaction: a digest's claim, its items and its record commit together or not at all. */
      atomically: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
        sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die))
    }
  })
}) {}
