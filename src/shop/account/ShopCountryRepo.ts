import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { AccountId } from "../../kernel/Ids.js"

/** The country an account chose for the short-video shop (`account_shop_settings`). */
export class ShopCountryRepo extends Effect.Service<ShopCountryRepo>()("adintel/ShopCountryRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const find = SqlSchema.findOne({
      Request: AccountId,
      Result: Schema.Struct({ country: Schema.String }),
      execute: (accountId) => sql`select country from account_shop_settings where account_id = ${accountId}::uuid`
    })
    return {
      find: (accountId: AccountId) => find(accountId).pipe(Effect.map(Option.map((row) => row.country)), Effect.orDie),
      save: (accountId: AccountId, country: string, now: Date) =>
        sql`insert into account_shop_settings (account_id, country, updated_at) values (${accountId}::uuid, ${country}, ${now})
            on conflict (account_id) do update set country = excluded.country, updated_at = excluded.updated_at`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
    }
  })
}) {}
