import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { Data, Effect, Schema } from "effect"
import m0001 from "./0001_gateway.js"
import m0002 from "./0002_catalog.js"
import m0003 from "./0003_sessions.js"
import m0004 from "./0004_ad_similarity.js"
import m0005 from "./0005_ad_embeddings.js"
import m0006 from "./0006_creative_failures.js"
import m0007 from "./0007_ad_search_indexes.js"
import m0008 from "./0008_shop_favorites.js"
import m0009 from "./0009_shop_country.js"
import m0010 from "./0010_shop_presets.js"
import m0012 from "./0012_shop_visits.js"
import m0013 from "./0013_shop_search.js"
import m0014 from "./0014_shop_rollups.js"
import m0015 from "./0015_transcripts.js"
import m0016 from "./0016_shop_suggestions.js"
import m0017 from "./0017_gateway_hardening.js"
import m0020 from "./0020_brand_follows.js"
import m0021 from "./0021_notifications.js"
import m0022 from "./0022_account_events.js"
import m0030 from "./0030_brand_ad_signals.js"
import m0040 from "./0040_workspace.js"
import m0050 from "./0050_landers.js"
import m0051 from "./0051_trends.js"
import m0060 from "./0060_stores.js"
import m0070 from "./0070_oauth.js"
import m0071 from "./0071_trend_pending.js"
import m0072 from "./0072_trend_totals.js"
import m0073 from "./0073_lander_sorts.js"
import m0074 from "./0074_store_media_known.js"
import m0075 from "./0075_oauth_registration_address.js"
import m0076 from "./0076_session_rate_window.js"
import m0077 from "./0077_trend_packed_counts.js"
import m0078 from "./0078_trend_pending_day.js"
import m0079 from "./0079_lander_ad_counts.js"
import m0080 from "./0080_ads_advertiser_covering.js"
import m0081 from "./0081_lander_facets.js"
import m0082 from "./0082_outbox_events.js"
import m0083 from "./0083_webhooks.js"
import m0087 from "./0087_gateway_page_charge.js"
import m0088 from "./0088_saved_searches.js"
import m0089 from "./0089_saved_search_notifications.js"
import m0090 from "./0090_saved_search_matches_one_index.js"
import m0091 from "./0091_outbox_commit_order.js"
import m0095 from "./0095_saved_search_pending.js"
import m0096 from "./0096_webhook_leases.js"
import m0097 from "./0097_import_pending_events.js"
import m0098 from "./0098_saved_search_match_groups.js"
import m0099 from "./0099_saved_search_probes.js"
import m0100 from "./0100_saved_search_digest_queue.js"
import m0102 from "./0102_saved_search_queries.js"
import m0103 from "./0103_outbox_horizon_per_database.js"
import m0104 from "./0104_webhook_url_once_account_pace.js"
import m0105 from "./0105_saved_search_bounds.js"
import m0106 from "./0106_trend_counting_rule.js"
import m0107 from "./0107_shard_keys.js"
import { distributeCorpus } from "./citus.js"

/** Forward-only, numbered, run in order at start-up by the `@effect/sql` Migrator. */
export const migrations = {
  "0001_gateway": m0001,
  "0002_catalog": m0002,
  "0003_sessions": m0003,
  "0004_ad_similarity": m0004,
  "0005_ad_embeddings": m0005,
  "0006_creative_failures": m0006,
  "0007_ad_search_indexes": m0007,
  "0008_shop_favorites": m0008,
  "0009_shop_country": m0009,
  "0010_shop_presets": m0010,
  "0012_shop_visits": m0012,
  "0013_shop_search": m0013,
  "0014_shop_rollups": m0014,
  "0015_transcripts": m0015,
  "0016_shop_suggestions": m0016,
  "0017_gateway_hardening": m0017,
  "0020_brand_follows": m0020,
  "0021_notifications": m0021,
  "0022_account_events": m0022,
  "0030_brand_ad_signals": m0030,
  "0040_workspace": m0040,
  "0050_landers": m0050,
  "0051_trends": m0051,
  "0060_stores": m0060,
  "0070_oauth": m0070,
  "0071_trend_pending": m0071,
  "0072_trend_totals": m0072,
  "0073_lander_sorts": m0073,
  "0074_store_media_known": m0074,
  "0075_oauth_registration_address": m0075,
  "0076_session_rate_window": m0076,
  "0077_trend_packed_counts": m0077,
  "0078_trend_pending_day": m0078,
  "0079_lander_ad_counts": m0079,
  "0080_ads_advertiser_covering": m0080,
  "0081_lander_facets": m0081,
  "0082_outbox_events": m0082,
  "0083_webhooks": m0083,
  "0087_gateway_page_charge": m0087,
  "0088_saved_searches": m0088,
  "0089_saved_search_notifications": m0089,
  "0090_saved_search_matches_one_index": m0090,
  "0091_outbox_commit_order": m0091,
  "0095_saved_search_pending": m0095,
  "0096_webhook_leases": m0096,
  "0097_import_pending_events": m0097,
  "0098_saved_search_match_groups": m0098,
  "0099_saved_search_probes": m0099,
  "0100_saved_search_digest_queue": m0100,
  "0102_saved_search_queries": m0102,
  "0103_outbox_horizon_per_database": m0103,
  "0104_webhook_url_once_account_pace": m0104,
  "0105_saved_search_bounds": m0105,
  "0106_trend_counting_rule": m0106,
  "0107_shard_keys": m0107
}

/** The migrations a database ran, as the Migrator's table records them. */
const Applied = Schema.Array(Schema.Struct({ id: Schema.Int, name: Schema.String }))

/** A migration's number: the digits its name starts with (as the `@effect/sql` Migrator reads them). */
export const migrationId = (name: string) => Number(name.split("_")[0])

/**
 * The database ran a migration later than one the code knows and it never ran. The Migrator
 * runs only migrations numbered above the latest applied, so that one would never run, and
 * nothing would say so. `message` is one sentence for the operator: the missing migration and
 * what to do.
 */
export class MigrationSkipped extends Data.TaggedError("MigrationSkipped")<{ readonly message: string }> {}

/** The code's migrations a database never ran though it ran a later one: none on a database that can migrate. */
export const skipped = (applied: ReadonlyArray<number>) => {
  const latest = Math.max(0, ...applied)
  const ran = new Set(applied)
  return Object.keys(migrations).filter((name) => migrationId(name) < latest && !ran.has(migrationId(name)))
}

/**
 * Runs the migrations, one start-up at a time across replicas: an advisory lock held for the
 * transaction. The Migrator probes for its table with a query that would abort our
 * transaction when the table is missing, so the table is created first, as it would create it.
 * A database that skipped one (`skipped`) is refused before anything runs. On a Citus
 * coordinator the corpus is then distributed, once (`citus.ts`).
 */
export const migrate = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(
    Effect.gen(function*() {
      yield* sql`select pg_advisory_xact_lock(hashtext('adintel.migrations'))`
      // A migration may rewrite a large table: not bound by the statement timeout of requests.
      yield* sql`set local statement_timeout = 0`
      yield* sql`create table if not exists effect_sql_migrations (
        migration_id integer primary key,
        created_at timestamp with time zone not null default now(),
        name text not null
      )`
      const applied = yield* sql`select migration_id as id, name from effect_sql_migrations order by migration_id`.pipe(
        Effect.flatMap((rows) => Effect.orDie(Schema.decodeUnknown(Applied)(rows)))
      )
      const missing = skipped(applied.map((m) => m.id))
      if (missing.length > 0) {
        const latest = applied[applied.length - 1]!
        return yield* new MigrationSkipped({
          message: `This database never ran migration ${missing.join(", ")} but already ran the later ` +
            `${String(latest.id).padStart(4, "0")}_${latest.name}, and migrations only run above the latest applied: ` +
            `restore a backup taken before that one, or apply src/platform/db/migrations/${missing[0]}.ts by hand and ` +
            `record it in effect_sql_migrations, then start again.`
        })
      }
      yield* Migrator.make({})({ loader: Migrator.fromRecord(migrations) })
      // On a Citus coordinator, the corpus distributed (once); nothing on one PostgreSQL.
      yield* distributeCorpus
    })
  )
}).pipe(
  // A statement that fails is the database's own failure, not the operator's to fix: a defect.
  Effect.catchTags({ SqlError: Effect.die, MigrationError: Effect.die }),
  Effect.withSpan("Database.migrate")
)
