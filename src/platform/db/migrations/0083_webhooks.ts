import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Webhooks (issue 32; INTERPRETATIONS H2, H3).
 *
 * - `webhook_endpoints`: an account's endpoints. The secret is sealed like the API keys
 *   (KeySealer); after a rotation the previous one stays valid until `previous_until`.
 *   `failing_since` is the first failed attempt since the last success (3 days of it disables).
 * - `webhook_deliveries`: one row per event and endpoint, made by the trigger below in the
 *   transaction that records the event, so no event is lost between its commit and a worker.
 *   A worker claims a due row (`FOR UPDATE SKIP LOCKED`) and leases it by moving
 *   `next_attempt_at` past its timeout; `attempts` counts the attempts claimed, and the outcome
 *   of an attempt is written only by the worker holding that attempt.
 * - The fan-out trigger: statement-level, one set-based insert per `emit` whatever its size.
 *   `webhook.test` events are not fanned out: the test route makes the one delivery it asks for.
 * - `notifications.type` takes `webhook_disabled`, the inbox item of an endpoint disabled.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  url text not null,
  events text[] not null,
  description text,
  enabled boolean not null default true,
  secret bytea not null,
  previous_secret bytea,
  previous_until timestamptz,
  failing_since timestamptz,
  created_at timestamptz not null
);
create index webhook_endpoints_account on webhook_endpoints (account_id, created_at desc);

create table webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
  event_seq bigint not null references outbox_events (seq) on delete cascade,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  last_status_code integer,
  next_attempt_at timestamptz not null,
  created_at timestamptz not null,
  delivered_at timestamptz,
  finished_at timestamptz,
  unique (endpoint_id, event_seq)
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending';
create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at desc, id);
create index webhook_deliveries_event on webhook_deliveries (event_seq);
create index webhook_deliveries_finished on webhook_deliveries (finished_at) where status <> 'pending';

create function webhook_fan_out() returns trigger language plpgsql as $$
begin
  insert into webhook_deliveries (endpoint_id, event_seq, next_attempt_at, created_at)
  select w.id, e.seq, e.created_at, e.created_at
    from new_events e
    join webhook_endpoints w on w.account_id = e.account_id and w.enabled and e.type = any (w.events)
   where e.type <> 'webhook.test';
  return null;
end
$$;
create trigger outbox_events_fan_out after insert on outbox_events
  referencing new table as new_events for each statement execute function webhook_fan_out();

alter table notifications drop constraint notifications_type_check;
alter table notifications add constraint notifications_type_check
  check (type in ('brand_new_ads', 'credits_used', 'api_key_regenerated', 'webhook_disabled'));
`))
