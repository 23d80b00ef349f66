import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { countOf } from "../../platform/db/Rows.js"
import { type AccountId, StoreRow } from "../../kernel/Ids.js"

/** What a track did; `present` (tracked already) and `full` (at the limit) wrote nothing. */
export type Tracking = "added" | "present" | "full"

const TrackedRow = Schema.Struct({ row: StoreRow, tracked_at: Schema.String, tracked_day: Schema.String })

/** The SQL of the tracker: `store_tracking`, one row per account and store. */
export class StoreTrackerRepo extends Effect.Service<StoreTrackerRepo>()("adintel/StoreTrackerRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const count = (account: AccountId) =>
      countOf(sql`select count(*)::int as n from store_tracking where account_id = ${account}::uuid`)

    return {
      count: (account: AccountId): Effect.Effect<number> => Effect.orDie(count(account)),

      /**
       * Tracks under a per-account lock (transaction-scoped advisory lock), so the count the
       * limit is checked against stays true until the insert, on every replica.
       */
      track: (account: AccountId, store: StoreRow, now: Date, limit: number): Effect.Effect<Tracking> =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`select pg_advisory_xact_lock(hashtext('adintel.store_tracking'), hashtext(${account}))`
          const present = yield* sql`select 1 from store_tracking where account_id = ${account}::uuid and store_id = ${store}::bigint`
          if (present.length > 0) return "present" as const
          if ((yield* count(account)) >= limit) return "full" as const
          yield* sql`insert into store_tracking (account_id, store_id, tracked_at) values (${account}::uuid, ${store}::bigint, ${now})`
          return "added" as const
        })).pipe(Effect.orDie),

      untrack: (account: AccountId, store: StoreRow): Effect.Effect<void> =>
        sql`delete from store_tracking where account_id = ${account}::uuid and store_id = ${store}::bigint`.pipe(Effect.asVoid, Effect.orDie),

      /** One page of the tracked stores, newest tracked first (then the later of two at once). */
      page: (account: AccountId, window: { readonly limit: number; readonly offset: number }) =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: TrackedRow,
          execute: () => sql`
            select store_id::text as row,
                   to_char(tracked_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as tracked_at,
                   to_char(tracked_at at time zone 'UTC', 'YYYY-MM-DD') as tracked_day
              from store_tracking t where t.account_id = ${account}::uuid
             -- qualified: the output columns of the same names are text
             order by t.tracked_at desc, t.seq desc
             limit ${window.limit} offset ${window.offset}`
        })(undefined).pipe(Effect.orDie)
    }
  })
}) {}
