import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Keyword searches filter as much as they match: one GIN index per library over the full-text
 * document, the countries and the status (btree_gin), so "serum, in the US, active" is decided
 * inside the index and only the final matches are read and ranked (at a million ads: ~300 ms
 * down to ~10 ms for common words). Every search names its library, so each index is partial;
 * they replace the plain full-text and countries indexes (one GIN insert per ad, as before).
 * A hosted store's search-engine creatives are listed newest first, and stores are found by
 * domain.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create extension if not exists btree_gin;
drop index ads_search;
drop index ads_countries;
create index ads_search_social on ads using gin (search_vector, countries, status) where library = 'social';
create index ads_search_pinboard on ads using gin (search_vector, countries, status) where library = 'pinboard';
create index ads_search_clipapp on ads using gin (search_vector, countries, status) where library = 'clipapp';
create index ads_search_search on ads using gin (search_vector, countries, status) where library = 'search';
create index ads_store_search on ads (store_id, first_seen desc, id desc) where library = 'search' and store_id is not null;
create index stores_domain on stores (domain, id);
`))
