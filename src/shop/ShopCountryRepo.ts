import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** The country an account chose for the short-video shop (`account_shop_settings`). */
export class ShopCountryRepo extends Effect.Service<ShopCountryRepo>()("adintel/ShopCountryRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      find: (accountId: string) =>
        sql<{ country: string }>`select country from account_shop_settings where account_id = ${accountId}::uuid`.pipe(
          Effect.map((rows) => Option.fromNullable(rows[0]?.country)),
          Effect.orDie
        ),
      save: (accountId: string, country: string, now: Date) =>
        sql`insert into account_shop_settings (account_id, country, updated_at) values (${accountId}::uuid, ${country}, ${now})
            on conflict (account_id) do update set country = excluded.country, updated_at = excluded.updated_at`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
    }
  })
}) {}
