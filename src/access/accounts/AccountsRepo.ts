import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { AccountId } from "../../kernel/Ids.js"
import { PlanName } from "../gateway/Api.js"
import type { UpdateAccount } from "./Api.js"

/** An account with its meters as of `now`: periods that have ended read as reset. */
export const AccountRow = Schema.Struct({
  id: AccountId,
  email: Schema.String,
  plan: PlanName,
  /** The plan gives API access (Basic or higher, spec: Authentication). */
  api_access: Schema.Boolean,
  monthly_limit: Schema.Int,
  used: Schema.Int,
  addon_remaining: Schema.Int,
  daily_search_limit: Schema.NullOr(Schema.Int),
  search_used: Schema.Int,
  script_generation_limit: Schema.Int,
  script_used: Schema.Int,
  script_period_start: Schema.NullOr(Schema.DateFromSelf),
  /** The monthly credit period containing `now` (G3): from, and until (exclusive). */
  period_start: Schema.DateFromSelf,
  period_end: Schema.DateFromSelf
})
export type AccountRow = typeof AccountRow.Type

const AccountIdRow = Schema.Struct({ id: AccountId })
/** An account's live key, sealed. */
const SealedKey = Schema.Struct({ key_sealed: Schema.Uint8ArrayFromSelf })

export interface NewAccount {
  readonly email: string
  readonly passwordHash: string | null
  readonly plan: PlanName
  readonly keyHash: Uint8Array
  readonly keySealed: Uint8Array
  readonly now: Date
}

export class AccountsRepo extends Effect.Service<AccountsRepo>()("adintel/AccountsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findRow = SqlSchema.findOne({
      Request: Schema.Struct({ id: AccountId, now: Schema.DateFromSelf }),
      Result: AccountRow,
      execute: ({ id, now }) => sql`
        select a.id, a.email, a.plan, p.api_access,
               coalesce(a.monthly_limit, p.monthly_credits) as monthly_limit,
               case when meter_period_start(m.period_anchor, ${now}) > m.period_start then 0 else m.used end as used,
               m.addon_remaining,
               coalesce(a.daily_search_limit, p.daily_search_limit) as daily_search_limit,
               case when m.search_day = (${now}::timestamptz at time zone 'UTC')::date then m.search_used else 0 end as search_used,
               coalesce(a.script_generation_limit, p.script_generation_limit) as script_generation_limit,
               case when ${now} < m.script_period_start + interval '30 days' then m.script_used else 0 end as script_used,
               case when ${now} < m.script_period_start + interval '30 days' then m.script_period_start end as script_period_start,
               meter_period_start(m.period_anchor, ${now}) as period_start,
               -- periods last 28 to 31 days: 32 days on is always inside the next one
               meter_period_start(m.period_anchor, meter_period_start(m.period_anchor, ${now}) + interval '32 days') as period_end
          from accounts a
          join plans p on p.name = a.plan
          join account_meters m on m.account_id = a.id
         where a.id = ${id}::uuid`
    })

    /**
     * Takes the account's lock, its meter row, before a transaction changes several of its rows
     * (lock order, migration 0017). False for an unknown account.
     */
    const lockAccount = (id: AccountId) =>
      Effect.map(sql`select 1 from account_meters where account_id = ${id}::uuid for update`, (rows) => rows.length > 0)

    return {
      /** None for an unknown id. */
      find: (id: AccountId, now: Date) => Effect.orDie(findRow({ id, now })),

      findIdByEmail: (email: string) =>
        SqlSchema.findOne({
          Request: Schema.Void,
          Result: AccountIdRow,
          execute: () => sql`select id from accounts where lower(email) = lower(${email})`
        })(undefined).pipe(Effect.map(Option.map((row) => row.id)), Effect.orDie),

      /** Account, meters and first key in one transaction. None when the e-mail is taken. */
      insert: (account: NewAccount) =>
        sql.withTransaction(
          Effect.gen(function*() {
            const created = yield* SqlSchema.findOne({
              Request: Schema.Void,
              Result: AccountIdRow,
              execute: () => sql`
              insert into accounts (email, password_hash, plan, created_at)
              values (${account.email}, ${account.passwordHash}, ${account.plan}, ${account.now})
              on conflict ((lower(email))) do nothing
              returning id`
            })(undefined)
            if (Option.isNone(created)) return Option.none<AccountId>()
            const id = created.value.id
            yield* sql`insert into account_meters (account_id, period_anchor, period_start)
                       values (${id}, ${account.now}, ${account.now})`
            yield* sql`insert into api_keys (account_id, key_hash, key_sealed, created_at)
                       values (${id}, ${account.keyHash}, ${account.keySealed}, ${account.now})`
            return Option.some(id)
          })
        ).pipe(Effect.orDie),

      /** Applies a patch; `used` is set within the current period. False for an unknown id. */
      update: (id: AccountId, patch: UpdateAccount, now: Date) =>
        sql.withTransaction(
          Effect.gen(function*() {
            if (!(yield* lockAccount(id))) return false
            const set = (key: keyof UpdateAccount) => patch[key] !== undefined
            yield* sql`
              update accounts set
                plan = ${set("plan") ? sql`${patch.plan!}` : sql`plan`},
                monthly_limit = ${set("monthly_limit") ? sql`${patch.monthly_limit ?? null}::integer` : sql`monthly_limit`},
                daily_search_limit = ${set("daily_search_limit") ? sql`${patch.daily_search_limit ?? null}::integer` : sql`daily_search_limit`},
                script_generation_limit = ${set("script_generation_limit") ? sql`${patch.script_generation_limit ?? null}::integer` : sql`script_generation_limit`}
              where id = ${id}::uuid`
            yield* sql`
              update account_meters set
                period_start = greatest(period_start, meter_period_start(period_anchor, ${now})),
                used = ${set("used") ? sql`${patch.used!}` : sql`case when meter_period_start(period_anchor, ${now}) > period_start then 0 else used end`},
                addon_remaining = ${set("addon_remaining") ? sql`${patch.addon_remaining!}` : sql`addon_remaining`}
              where account_id = ${id}::uuid`
            return true
          })
        ).pipe(Effect.orDie),

      /** Adds purchased add-on credits; false for an unknown id. */
      addAddon: (id: AccountId, amount: number) =>
        sql`update account_meters set addon_remaining = addon_remaining + ${amount}
             where account_id = ${id}::uuid returning account_id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      /** Revokes the live key and stores a new one, atomically: the old key is dead at commit. */
      replaceKey: (id: AccountId, keyHash: Uint8Array, keySealed: Uint8Array, now: Date) =>
        sql.withTransaction(
          Effect.gen(function*() {
            if (!(yield* lockAccount(id))) return false
            yield* sql`update api_keys set revoked_at = ${now} where account_id = ${id}::uuid and revoked_at is null`
            yield* sql`insert into api_keys (account_id, key_hash, key_sealed, created_at)
                       values (${id}::uuid, ${keyHash}, ${keySealed}, ${now})`
            return true
          })
        ).pipe(Effect.orDie),

      /** A new password; the account's browser sessions end with the old one. */
      setPassword: (id: AccountId, passwordHash: string) =>
        sql.withTransaction(
          Effect.gen(function*() {
            const updated = yield* sql`update accounts set password_hash = ${passwordHash} where id = ${id}::uuid returning id`
            yield* sql`delete from sessions where account_id = ${id}::uuid`
            return updated.length > 0
          })
        ).pipe(Effect.orDie),

      /** The sealed live key of an account. */
      liveKey: (id: AccountId) =>
        SqlSchema.findOne({
          Request: Schema.Void,
          Result: SealedKey,
          execute: () => sql`
          select key_sealed from api_keys where account_id = ${id}::uuid and revoked_at is null`
        })(undefined).pipe(Effect.map(Option.map((row) => row.key_sealed)), Effect.orDie)
    }
  })
}) {}
