import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Bounds on what saved searches that match everything cost (issue 44; H1, H3; SPEC-NOTES "One
 * event per account and import; kept matches; a search that matches everything").
 *
 * Match rows keep when they were stored (`matched_at`) and how many matches they hold
 * (`matches`), so a prune forgets those past `SAVED_SEARCH_MATCHES_KEEP`'s age (by the index) and
 * keeps a query's newest `count` without reading the arrays. The rows of before count their age
 * from this migration (no record says when they were stored; a migration runs at start-up and has
 * no Clock to read), and their `matches` stays null (read from the array). The rows of searches
 * saved before migration 0102 (`saved_search_matches`, no longer written) go by age alone.
 *
 * The saved-search digest's queue holds a row per event and search: a `saved_search.matches_new`
 * event names each of its account's searches that matched the import, not one search. (Rows of
 * before keep their one search each.)
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table saved_search_query_matches add column matched_at timestamptz not null default now(), add column matches integer;
alter table saved_search_query_matches alter column matched_at drop default;
create index saved_search_query_matches_matched on saved_search_query_matches (matched_at);
alter table saved_search_matches add column matched_at timestamptz not null default now();
alter table saved_search_matches alter column matched_at drop default;
create index saved_search_matches_matched on saved_search_matches (matched_at);

alter table saved_search_digest_queue drop constraint saved_search_digest_queue_pkey;
alter table saved_search_digest_queue add primary key (event_seq, saved_search_id);
`))
