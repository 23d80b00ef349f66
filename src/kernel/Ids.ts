import { Effect, Option, Schema } from "effect"
import { ExternalId } from "./Fields.js"

/**
 * Branded ids: only a decoded row or request makes one, so an id of one kind is never passed
 * where another is expected. Repositories brand what rows hold; the contract keeps ids plain
 * strings (its typed client takes the strings its answers give), and services brand what a
 * request names with `idOf`.
 */

/** An account's id (`accounts.id`, a PostgreSQL `uuid`): only a decoded row or input makes one. */
export const AccountId = Schema.UUID.pipe(Schema.brand("AccountId")).annotations({ identifier: "AccountId" })
export type AccountId = typeof AccountId.Type

/** A brand's id (INTERPRETATIONS W1): a social-library advertiser's `external_id`, what routes and boards name it by. */
export const BrandId = ExternalId.pipe(Schema.brand("BrandId"))
export type BrandId = typeof BrandId.Type

/** A workspace folder's id (`workspace_folders.id`, a `uuid`). */
export const FolderId = Schema.UUID.pipe(Schema.brand("FolderId"))
export type FolderId = typeof FolderId.Type

/** A workspace board's id (`workspace_boards.id`, a `uuid`). */
export const BoardId = Schema.UUID.pipe(Schema.brand("BoardId"))
export type BoardId = typeof BoardId.Type

/** A request's id as the branded `id`; `missing` when it cannot be one, as it names nothing. */
export const idOf = <A, E>(id: Schema.Schema<A, string>, missing: E) => (value: string): Effect.Effect<A, E> =>
  Option.match(Schema.decodeUnknownOption(id)(value), { onNone: () => Effect.fail(missing), onSome: Effect.succeed })
