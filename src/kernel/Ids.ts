import { Schema } from "effect"

/** An account's id (`accounts.id`, a PostgreSQL `uuid`): only a decoded row or input makes one. */
export const AccountId = Schema.UUID.pipe(Schema.brand("AccountId")).annotations({ identifier: "AccountId" })
export type AccountId = typeof AccountId.Type
