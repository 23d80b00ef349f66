import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Saved searches' new matches waiting for their digest slot (issue 32; H1, W5, W6). The alerts
 * pass used to read every `saved_search.matches_new` event of the last 14 days on each pass and
 * regroup them; now it reads each event once, in commit order after a cursor
 * (`notification_cursors`, one row per reader, locked by the pass that moves it: replicas take
 * turns), and queues it under the slot that tells it. A pass then takes only the queue's due
 * rows (`slot <= now`) and deletes what it told: its work follows what is new and what is due,
 * not the events of two weeks. A queued row goes with its event when the outbox is pruned.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table notification_cursors (
  name text primary key,
  xid xid8 not null,
  seq bigint not null
);
create table saved_search_digest_queue (
  event_seq bigint primary key references outbox_events (seq) on delete cascade,
  account_id uuid not null,
  saved_search_id uuid not null,
  slot timestamptz not null
);
create index saved_search_digest_queue_due on saved_search_digest_queue (slot, account_id, saved_search_id);
create index outbox_events_type_commit on outbox_events (type, xid, seq);
`))
