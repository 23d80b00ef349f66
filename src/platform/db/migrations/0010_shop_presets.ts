import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Short-video shop filter presets (issue 5): an account's saved explore filters, one row per
 * account, scope (explore page) and name. `name_key` is the name as compared (folded by the
 * service, so uniqueness does not depend on the database's locale); `filters` is `json`, not
 * `jsonb`, so a preset answers its filters in the order they were saved. Every save and update
 * takes the next `write_seq`, which orders presets written at the same instant; the times come
 * from the service's clock.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create sequence shop_presets_write_seq;
create table shop_presets (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  scope text not null check (scope in ('categories', 'shops', 'creators', 'videos', 'products')),
  name text not null check (char_length(name) between 1 and 100),
  name_key text not null,
  filters json not null check (json_typeof(filters) = 'object'),
  write_seq bigint not null default nextval('shop_presets_write_seq'),
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create unique index shop_presets_name on shop_presets (account_id, scope, name_key);
create index shop_presets_recent on shop_presets (account_id, updated_at desc, write_seq desc);
create index shop_presets_scope_recent on shop_presets (account_id, scope, updated_at desc, write_seq desc);
`))
