import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Visits to short-video shop records: the service counts, per record, UTC day and account, how
 * often a detail page was opened (a product, shop, creator, video or category), so the visit
 * routes can answer counts per record and per day, and "opened by the same visitors". One
 * row per record, day and account bounds the table by what accounts actually open.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table shop_visits (
  entity_type text not null check (entity_type in ('product', 'shop', 'creator', 'video', 'category')),
  entity_id bigint not null,
  day date not null,
  account_id uuid not null references accounts (id) on delete cascade,
  visits integer not null check (visits > 0),
  primary key (entity_type, entity_id, day, account_id)
);
create index shop_visits_account on shop_visits (account_id, day);
`))
