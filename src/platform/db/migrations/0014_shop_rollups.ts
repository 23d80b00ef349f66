import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Period metrics of the standard windows (the 7 and 30 days up to yesterday, and the window
 * before each), summed once per record instead of on every explore: an explore over the default
 * period reads one row per record. `shop_rollup_state` says which last day a window holds; a
 * metrics import clears it, so explore falls back to the daily series until the next refresh.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table shop_rollups (
  entity text not null,
  days smallint not null,
  previous boolean not null,
  record_id bigint not null,
  gmv float8,
  units float8,
  views float8,
  likes float8,
  comments float8,
  shares float8,
  followers_gained float8,
  primary key (entity, days, previous, record_id)
);

create table shop_rollup_state (
  entity text not null,
  days smallint not null,
  day_to date not null,
  refreshed_at timestamptz not null,
  primary key (entity, days)
);
`))
