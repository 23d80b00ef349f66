import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Saved searches' matches (issue 32; H1) keep one index instead of two: the order `/matches`
 * pages by, unique, in place of the `(saved_search_id, ad_id)` key. A match is only ever found
 * for an ad the batch stored for the first time, with that ad's `first_seen`, so the one index
 * keeps a search from holding an ad twice as the key did, and every match costs one index
 * entry fewer to write. `matched_at` was never read: the row drops it.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table saved_search_matches drop constraint saved_search_matches_pkey;
drop index saved_search_matches_newest;
alter table saved_search_matches drop column matched_at;
create unique index saved_search_matches_newest on saved_search_matches (saved_search_id, first_seen desc, ad_id desc);
`))
