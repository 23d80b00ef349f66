import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The account's event outbox (issue 32; INTERPRETATIONS H3): every event an account can be told
 * about, written in the transaction of the change that caused it, so that no event is lost when
 * a later step fails and none is told of a change that rolled back. Webhook deliveries and the
 * RPC `Events` stream read it; `seq` is the order a stream resumes from. `id` is the event's
 * public id (`webhook-id`), stable across retries.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table outbox_events (
  seq bigserial primary key,
  id text not null unique,
  account_id uuid not null references accounts (id) on delete cascade,
  type text not null check (type in (
    'brand.ads_new', 'brand.ads_stopped', 'saved_search.matches_new',
    'credits.threshold', 'api_key.regenerated', 'webhook.test'
  )),
  data jsonb not null,
  created_at timestamptz not null
);
create index outbox_events_account on outbox_events (account_id, seq);
create index outbox_events_created on outbox_events (created_at);
`))
