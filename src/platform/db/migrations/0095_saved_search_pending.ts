import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Saved searches' new matches waiting for their import's end (issue 32; H1, H3): each import
 * batch records, in its own transaction beside the match rows, one row per saved search it found
 * matches for (the count and its newest 100 ads, with what orders them); when the import ends,
 * one statement takes the import's rows and records one `saved_search.matches_new` event per
 * saved search. The table holds only imports in flight (and one that died before its end, until
 * a later import's end takes its rows): no index, it is read whole.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table saved_search_pending (
  import_id uuid not null,
  saved_search_id uuid not null,
  count int not null,
  first_seens timestamptz[] not null,
  ad_rows bigint[] not null,
  ad_ids text[] not null,
  written_at timestamptz not null
);
`))
