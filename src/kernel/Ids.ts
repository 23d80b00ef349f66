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

/** An API key's id (`api_keys.id`, a `uuid`): what the ledger, codes and grants name a key by, never the key itself. */
export const KeyId = Schema.UUID.pipe(Schema.brand("KeyId"))
export type KeyId = typeof KeyId.Type

/** An ad's id (`ads.external_id`): unique within its library, what routes, searches and saved ads name an ad by. */
export const AdId = ExternalId.pipe(Schema.brand("AdId"))
export type AdId = typeof AdId.Type

/** A brand's id (INTERPRETATIONS W1): a social-library advertiser's `external_id`, what routes and boards name it by. */
export const BrandId = ExternalId.pipe(Schema.brand("BrandId"))
export type BrandId = typeof BrandId.Type

/** A hosted store's id (`stores.external_id`): what routes name a store by (`store_id`, the explorer's `id`). */
export const StoreId = ExternalId.pipe(Schema.brand("StoreId"))
export type StoreId = typeof StoreId.Type

/** A hosted store's row id (`stores.id`, a bigint as text): what its SQL is scoped by; never on the wire. */
export const StoreRow = Schema.String.pipe(Schema.brand("StoreRow"))
export type StoreRow = typeof StoreRow.Type

/**
 * A hosted store's product id (`store_products.external_id`, unique within its store). The
 * short-video shop's products are `ShopRecordId`s (shop/catalog/Entities.ts).
 */
export const StoreProductId = ExternalId.pipe(Schema.brand("StoreProductId"))
export type StoreProductId = typeof StoreProductId.Type

/** A workspace folder's id (`workspace_folders.id`, a `uuid`). */
export const FolderId = Schema.UUID.pipe(Schema.brand("FolderId"))
export type FolderId = typeof FolderId.Type

/** A workspace board's id (`workspace_boards.id`, a `uuid`). */
export const BoardId = Schema.UUID.pipe(Schema.brand("BoardId"))
export type BoardId = typeof BoardId.Type

/** A request's id as the branded `id`; `missing` when it cannot be one, as it names nothing. */
export const idOf = <A, E>(id: Schema.Schema<A, string>, missing: E) => (value: string): Effect.Effect<A, E> =>
  Option.match(Schema.decodeUnknownOption(id)(value), { onNone: () => Effect.fail(missing), onSome: Effect.succeed })

/** A webhook endpoint's id (`webhook_endpoints.id`, a `uuid`). */
export const WebhookId = Schema.UUID.pipe(Schema.brand("WebhookId"))
export type WebhookId = typeof WebhookId.Type

/** A webhook delivery's id (`webhook_deliveries.id`, a `uuid`): one event to one endpoint, with its attempts. */
export const WebhookDeliveryId = Schema.UUID.pipe(Schema.brand("WebhookDeliveryId"))
export type WebhookDeliveryId = typeof WebhookDeliveryId.Type

/** A saved search's id (`saved_searches.id`, a `uuid`). */
export const SavedSearchId = Schema.UUID.pipe(Schema.brand("SavedSearchId"))
export type SavedSearchId = typeof SavedSearchId.Type
