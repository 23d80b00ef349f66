import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * One pending table for every event told once per import (issue 32; H1, H3): saved searches'
 * new matches and tracked brands' diffs. Each import batch records, in its own transaction, one
 * row per account, event type and subject (a saved search, a brand) it found something for: the
 * event's data without its count and ads, the count, and its newest 100 ads with what orders
 * them; the import's end takes its rows in one statement and records one event per account,
 * type and subject. It replaces 0095's `saved_search_pending`, whose rows move over as they are
 * (the library named as the events name it), so an import in flight across the upgrade is still
 * told once. The table holds only imports in flight (and one that died before its end, until a
 * later import's end takes its rows): no index, it is read whole.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table import_pending_events (
  import_id uuid not null,
  account_id uuid not null references accounts (id) on delete cascade,
  type text not null,
  subject text not null,
  data jsonb not null,
  count int not null,
  sort_keys timestamptz[] not null,
  ad_rows bigint[] not null,
  ad_ids text[] not null,
  written_at timestamptz not null
);
insert into import_pending_events (import_id, account_id, type, subject, data, count, sort_keys, ad_rows, ad_ids, written_at)
select p.import_id, s.account_id, 'saved_search.matches_new', p.saved_search_id::text,
       jsonb_build_object('saved_search_id', p.saved_search_id, 'import_id', p.import_id,
                          'library', '{"social":"social","pinboard":"pinboard","clipapp":"short-video","search":"search"}'::jsonb ->> s.library),
       p.count, p.first_seens, p.ad_rows, p.ad_ids, p.written_at
  from saved_search_pending p join saved_searches s on s.id = p.saved_search_id;
drop table saved_search_pending;
`))
