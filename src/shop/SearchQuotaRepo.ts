import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The daily short-video search counter of `account_meters` (G7). */
export class SearchQuotaRepo extends Effect.Service<SearchQuotaRepo>()("adintel/SearchQuotaRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      /**
       * Takes one search of `day` (a UTC date, `YYYY-MM-DD`) if fewer than `limit` were taken
       * (null: unlimited). Atomic: concurrent searches never overshoot. False when none is left.
       */
      take: (accountId: string, day: string, limit: number | null) =>
        sql<{ search_used: number }>`
          update account_meters
             set search_used = case when search_day = ${day}::date then search_used + 1 else 1 end,
                 search_day = ${day}::date
           where account_id = ${accountId}
             and (${limit}::integer is null
                  or (case when search_day = ${day}::date then search_used else 0 end) < ${limit}::integer)
          returning search_used`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)
    }
  })
}) {}
