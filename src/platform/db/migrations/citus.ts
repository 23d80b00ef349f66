import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { databaseMode } from "../mode/DatabaseMode.js"

/**
 * How the corpus is laid out on Citus (docs/SCALING.md section 3; docs/SPEC-NOTES.md "Citus mode").
 * `ads` and the rows that hang off an ad are sharded by advertiser and co-located: a brand's
 * ads, and everything joined to them by ad, are on one shard. The tables every search joins,
 * and the stores and landers (for now: their keys by external id and their ad lookups by id
 * would each need a shard key of their own), are reference tables, copied to every node.
 * Everything else (the meter, keys, sessions, workspace, webhooks, outbox, trends) stays on
 * the coordinator as plain tables.
 */
export const distributedByAdvertiser = ["ads", "ad_creatives", "ad_embeddings", "brand_ad_signals", "brand_ad_stops"] as const
export const referenceTables = [
  "advertisers", "stores", "store_products", "store_daily", "store_product_daily", "store_product_images",
  "landers", "lander_ad_counts", "lander_facets"
] as const

/** Foreign keys of the coordinator's tables into the corpus: Citus holds none from a plain table into a Citus table. */
const coordinatorKeys = [
  ["trend_pending", "trend_pending_ad_id_fkey"],
  ["brand_follows", "brand_follows_advertiser_id_fkey"],
  ["lander_favorites", "lander_favorites_lander_id_fkey"],
  ["store_tracking", "store_tracking_store_id_fkey"]
] as const

/** Keys of the rows that hang off an ad: by the ad's advertiser and id, on the ad's shard. */
const adRowKeys = [
  ["ad_creatives", "ad_creatives_ad_id_fkey"],
  ["ad_embeddings", "ad_embeddings_ad_id_fkey"],
  ["brand_ad_signals", "brand_ad_signals_ad_id_fkey"],
  ["brand_ad_stops", "brand_ad_stops_ad_id_fkey"]
] as const

const ForeignKey = Schema.Struct({ table: Schema.String, name: Schema.String, definition: Schema.String })

/**
 * Distributes the corpus on a Citus coordinator, once (a database distributed already, or one
 * without Citus, is left as it is). Run after the migrations, in their transaction, at every
 * start: a database moved onto a Citus coordinator with its migrations already run is
 * distributed at its first start there.
 *
 * - The coordinator's foreign keys into the corpus go (Citus holds none from a plain table into
 *   a Citus table). Nothing the service runs deletes a corpus row those reference (an ad that
 *   moves keeps its id); a row deleted by hand leaves a favorite or a follow that lists nothing,
 *   and a trend-pending row that counting skips.
 * - The keys among the corpus tables are set aside while the tables are distributed (Citus
 *   refuses a key between a distributed table and a plain one), then put back: the rows of an ad
 *   reference it by advertiser and id.
 * - `ads` is keyed by advertiser and id, and by advertiser, library and external id
 *   (`ads_external_key`, which the import's upsert names); an index by library and external id
 *   finds an ad whatever its advertiser.
 */
export const distributeCorpus = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const mode = yield* databaseMode
  if (mode._tag === "PostgreSQL") return
  const [done] = yield* sql`select exists (select 1 from pg_dist_partition where logicalrelid = 'ads'::regclass) as done`.pipe(
    Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ done: Schema.Boolean }))))
  )
  if (done!.done) return
  // Tables that hold rows are copied to their shards as they are distributed; over one
  // connection per node, so that the transaction's later steps (the keys put back) may touch
  // those shards again (Citus refuses it after a parallel copy).
  yield* sql`set local citus.multi_shard_modify_mode to 'sequential'`
  const corpus = [...distributedByAdvertiser, ...referenceTables]
  for (const [table, key] of [...coordinatorKeys, ...adRowKeys]) {
    yield* sql.unsafe(`alter table ${table} drop constraint if exists ${key}`)
  }
  // The keys among the corpus tables, as PostgreSQL prints them, before they are set aside.
  const keys = yield* sql`
    select c.conrelid::regclass::text as table, c.conname as name, pg_get_constraintdef(c.oid) as definition
      from pg_constraint c
     where c.contype = 'f' and c.conrelid::regclass::text in ${sql.in(corpus)}
     order by c.conrelid::regclass::text, c.conname`.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(ForeignKey))))
  for (const key of keys) yield* sql.unsafe(`alter table ${key.table} drop constraint ${key.name}`)
  yield* sql.unsafe(`
    alter table ads drop constraint ads_pkey, add constraint ads_pkey primary key (advertiser_id, id);
    alter table ads drop constraint ads_external_key, add constraint ads_external_key unique (advertiser_id, library, external_id);
    create index ads_external_lookup on ads (library, external_id);
  `)
  for (const table of referenceTables) yield* sql`select create_reference_table(${table})`
  yield* sql`select create_distributed_table('ads', 'advertiser_id')`
  for (const table of distributedByAdvertiser.slice(1)) {
    yield* sql`select create_distributed_table(${table}, 'advertiser_id', colocate_with => 'ads')`
  }
  for (const key of keys) yield* sql.unsafe(`alter table ${key.table} add constraint ${key.name} ${key.definition}`)
  for (const [table, key] of adRowKeys) {
    yield* sql.unsafe(
      `alter table ${table} add constraint ${key} foreign key (advertiser_id, ad_id) references ads (advertiser_id, id) on delete cascade`
    )
  }
}).pipe(Effect.orDie, Effect.withSpan("Database.distributeCorpus"))
