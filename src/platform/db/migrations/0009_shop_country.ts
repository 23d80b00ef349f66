import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The short-video shop country an account chose (`POST .../request-country`): every explore and
 * detail call without an explicit `country` uses it.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table account_shop_settings (
  account_id uuid primary key references accounts (id) on delete cascade,
  country text not null check (country ~ '^[A-Z]{2}$'),
  updated_at timestamptz not null
);
`))
