import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The rows that hang off an ad, and the rest of each one's key after the advertiser and the ad. */
const adRows = [
  ["ad_creatives", ""],
  ["ad_embeddings", ", model"],
  ["brand_ad_signals", ""],
  ["brand_ad_stops", ", last_seen"]
] as const

/**
 * What sharding the corpus on Citus needs of the schema (issue 45; `citus.ts` distributes it),
 * done on every database, so that one PostgreSQL and a Citus coordinator run the same code:
 *
 * - The rows that hang off an ad (its creative's hashes, its copy's embeddings, the brand tabs'
 *   signals, the stops of tracked brands) carry the ad's `advertiser_id`: on Citus they live on
 *   the ad's shard, and a join names it. Their keys lead with it. Written from the ad's row, so
 *   it is always the ad's.
 * - `ads.id` is drawn from a sequence instead of an identity: an ad that moves to another
 *   advertiser is deleted and written again under the same id (on Citus its shard changes, and
 *   a distribution column cannot be updated), which an identity's `generated always` refuses.
 * - The ads' key by library and external id is named `ads_external_key`: the import's upsert
 *   names it, and on Citus it is that key with the advertiser before it (`citus.ts`).
 * - The triggers on `landers` go: on Citus a trigger on a reference table runs on every copy
 *   and would write each row once per node. The import writes a lander's count and facet rows
 *   itself, in the statement that writes the lander (`IngestRepo`).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
${adRows.map(([table, rest]) => `
alter table ${table} add column advertiser_id bigint;
update ${table} r set advertiser_id = a.advertiser_id from ads a where a.id = r.ad_id;
alter table ${table} alter column advertiser_id set not null,
  drop constraint ${table}_pkey, add constraint ${table}_pkey primary key (advertiser_id, ad_id${rest});`).join("\n")}

alter table ads alter column id drop identity;
create sequence ads_id_seq as bigint;
select setval('ads_id_seq', coalesce((select max(id) from ads), 0) + 1, false);
alter table ads alter column id set default nextval('ads_id_seq');
alter sequence ads_id_seq owned by ads.id;
alter table ads rename constraint ads_library_external_id_key to ads_external_key;

drop trigger landers_count_row on landers;
drop trigger landers_facets_row on landers;
drop function lander_ad_counts_row();
drop function lander_facets_row();
`))
