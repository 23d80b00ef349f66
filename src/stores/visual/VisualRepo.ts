import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { StoreId, StoreProductId, StoreRow } from "../../kernel/Ids.js"

/** A product's row id (a bigint as text). */
export const ProductRow = Schema.String.pipe(Schema.brand("ProductRow"))
export type ProductRow = typeof ProductRow.Type

/** The features of one product image, as stored. */
export interface ImageFeaturesRecord {
  readonly store_external_id: string
  readonly external_id: string
  readonly image_url: string
  readonly phash: bigint
  readonly dhash: bigint
  readonly colour: Uint8Array
}

export const IndexedRow = Schema.Struct({
  product: ProductRow,
  store: StoreRow,
  phash: Schema.BigInt,
  dhash: Schema.BigInt,
  colour: Schema.Uint8ArrayFromSelf,
  seq: Schema.NumberFromString
})
export type IndexedRow = typeof IndexedRow.Type

export const PendingImage = Schema.Struct({ store_external_id: StoreId, external_id: StoreProductId, image_url: Schema.String })
export type PendingImage = typeof PendingImage.Type

export const MatchedProduct = Schema.Struct({
  row: ProductRow,
  id: StoreProductId,
  title: Schema.String,
  price: Schema.NullOr(Schema.Number),
  currency: Schema.NullOr(Schema.String),
  image_url: Schema.String,
  url: Schema.NullOr(Schema.String)
})
export type MatchedProduct = typeof MatchedProduct.Type

const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex")

/**
 * The SQL of visual search: `store_product_images`, one row per product (its main image),
 * each write numbered by `seq` so an index loads only what changed since it last looked.
 */
export class VisualRepo extends Effect.Service<VisualRepo>()("adintel/VisualRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      /** Stores features; a product hashed again (a new main image) gets a new `seq`. */
      record: (batch: ReadonlyArray<ImageFeaturesRecord>): Effect.Effect<void> =>
        batch.length === 0 ? Effect.void : sql`
          insert into store_product_images (product_id, store_id, image_url, phash, dhash, colour, seq)
          select p.id, p.store_id, r.image_url, r.phash, r.dhash, decode(r.colour, 'hex'), nextval('store_product_images_seq')
            from json_to_recordset(${JSON.stringify(batch.map((f) => ({
            store_external_id: f.store_external_id,
            external_id: f.external_id,
            image_url: f.image_url,
            phash: BigInt.asIntN(64, f.phash).toString(),
            dhash: BigInt.asIntN(64, f.dhash).toString(),
            colour: hex(f.colour)
          })))}::json) as r(store_external_id text, external_id text, image_url text, phash bigint, dhash bigint, colour text)
            join stores s on s.external_id = r.store_external_id
            join store_products p on p.store_id = s.id and p.external_id = r.external_id
          on conflict (product_id) do update
            set store_id = excluded.store_id, image_url = excluded.image_url, phash = excluded.phash,
                dhash = excluded.dhash, colour = excluded.colour, seq = excluded.seq`.pipe(Effect.asVoid, Effect.orDie),

      /** The newest write's number: an index that has loaded it is current. */
      latest: SqlSchema.single({
        Request: Schema.Void,
        Result: Schema.Struct({ seq: Schema.NumberFromString }),
        execute: () => sql`select coalesce(max(seq), 0)::text as seq from store_product_images`
      })(undefined).pipe(Effect.map(({ seq }) => seq), Effect.orDie),

      /** Features written after `seq`, in order, at most `limit`. */
      since: (seq: number, limit: number): Effect.Effect<ReadonlyArray<IndexedRow>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: IndexedRow,
          execute: () => sql`
            select f.product_id::text as product, f.store_id::text as store, f.phash::text as phash, f.dhash::text as dhash,
                   f.colour, f.seq::text as seq
              from store_product_images f where f.seq > ${seq} order by f.seq limit ${limit}`
        })(undefined).pipe(Effect.orDie),

      /** Products whose main image has no features yet, or changed since it was hashed. */
      pending: (limit: number): Effect.Effect<ReadonlyArray<PendingImage>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: PendingImage,
          execute: () => sql`
            select s.external_id as store_external_id, p.external_id, p.images->>0 as image_url
              from store_products p
              join stores s on s.id = p.store_id
              left join store_product_images f on f.product_id = p.id
             where p.images->>0 is not null and (f.product_id is null or f.image_url <> p.images->>0)
             order by p.id limit ${limit}`
        })(undefined).pipe(Effect.orDie),

      /** The products of these rows, as a visual search lists them. */
      products: (rows: ReadonlyArray<ProductRow>): Effect.Effect<ReadonlyArray<MatchedProduct>> =>
        rows.length === 0 ? Effect.succeed([]) : SqlSchema.findAll({
          Request: Schema.Void,
          Result: MatchedProduct,
          execute: () => sql`
            select p.id::text as row, p.external_id as id, p.title, p.price::float8 as price, p.currency,
                   f.image_url, p.url
              from store_products p join store_product_images f on f.product_id = p.id
             where p.id = any(${rows}::bigint[])`
        })(undefined).pipe(Effect.orDie)
    }
  })
}) {}
