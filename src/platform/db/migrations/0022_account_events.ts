import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * What happened to an account that its owner should hear of (issue 19): access records it here
 * in the same transaction as the change itself (a key regeneration, with when and from which
 * address), and products above read it through access's service; access never calls them.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table account_events (
  id bigint generated always as identity primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  kind text not null check (kind in ('api_key_regenerated')),
  occurred_at timestamptz not null,
  data jsonb not null default '{}' check (jsonb_typeof(data) = 'object')
);
create index account_events_occurred on account_events (occurred_at, id);
create index account_events_account on account_events (account_id, id desc);
`))
