import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Saved searches' matches (issue 32; H1) as one row per saved search and import batch instead
 * of one per match: the batch's matches of that search, ordered as `/matches` pages them (the
 * ad's `first_seen` newest first, ties by the ad's row, newest first too), the ads' rows in
 * `ad_ids` and their `first_seen` at the same positions in `first_seens`; `newest` and `oldest`
 * are the first and last of those. A batch writes a few thousand such rows instead of tens of
 * thousands of matches (each a heap row and an index entry): that write was most of the import's
 * matching pass. `/matches` reads a search's rows by `newest` (the index) and unnests them.
 *
 * The rows of before are kept: each saved search's matches, in that order, become rows of at
 * most 1,000 (no batch is larger). The old key (one row per search and ad) is not kept: a match
 * is only ever found by the batch that first stored its ad.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table saved_search_matches rename to saved_search_matches_0090;
create table saved_search_matches (
  saved_search_id uuid not null,
  newest timestamptz not null,
  oldest timestamptz not null,
  first_seens timestamptz[] not null,
  ad_ids bigint[] not null
);
insert into saved_search_matches (saved_search_id, newest, oldest, first_seens, ad_ids)
select saved_search_id, max(first_seen), min(first_seen),
       array_agg(first_seen order by first_seen desc, ad_id desc), array_agg(ad_id order by first_seen desc, ad_id desc)
  from (select m.*, (row_number() over (partition by saved_search_id order by first_seen desc, ad_id desc) - 1) / 1000 as chunk
          from saved_search_matches_0090 m) numbered
 group by saved_search_id, chunk;
drop table saved_search_matches_0090;
create index saved_search_matches_newest on saved_search_matches (saved_search_id, newest desc);
`))
