import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { UtcDay } from "../../kernel/UtcDay.js"
import { AccountId } from "../../kernel/Ids.js"

/** The daily short-video search counter of `account_meters` (G7). */
export class SearchQuotaRepo extends Effect.Service<SearchQuotaRepo>()("adintel/SearchQuotaRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const take = SqlSchema.findOne({
      Request: Schema.Struct({ accountId: AccountId, day: Schema.String, limit: Schema.NullOr(Schema.Int) }),
      Result: Schema.Struct({ search_used: Schema.Int }),
      execute: ({ accountId, day, limit }) => sql`
        update account_meters
           set search_used = case when search_day = ${day}::date then search_used + 1 else 1 end,
               search_day = ${day}::date
         where account_id = ${accountId}
           and (${limit}::integer is null
                or (case when search_day = ${day}::date then search_used else 0 end) < ${limit}::integer)
        returning search_used`
    })

    return {
      /**
       * Takes one search of `day` if fewer than `limit` were taken (null: unlimited). Atomic:
       * concurrent searches never overshoot. False when none is left.
       */
      take: (accountId: AccountId, day: UtcDay, limit: number | null) =>
        take({ accountId, day, limit }).pipe(Effect.map(Option.isSome), Effect.orDie)
    }
  })
}) {}
