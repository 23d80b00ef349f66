import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Bounds on what saved searches that match everything cost (issue 44; H1, H3; SPEC-NOTES "One
 * event per account and import").
 *
 * The saved-search digest's queue holds a row per event and search: a `saved_search.matches_new`
 * event names each of its account's searches that matched the import, not one search. (Rows of
 * before keep their one search each.)
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table saved_search_digest_queue drop constraint saved_search_digest_queue_pkey;
alter table saved_search_digest_queue add primary key (event_seq, saved_search_id);
`))
