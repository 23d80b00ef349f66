import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The outbox streamed in commit order (issue 32; H3). `seq` is taken at insert, and transactions
 * commit in their own order, so a reader following `seq` could pass an event whose transaction
 * committed after a later-numbered one. Each event now keeps its transaction's id (`xid8`): a
 * reader orders by (xid, seq) and reads only events below the oldest transaction still running
 * (`pg_snapshot_xmin(pg_current_snapshot())`). Every event that can still appear then has a
 * larger xid than any it has read: it never skips one.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table outbox_events add column xid xid8 not null default pg_current_xact_id();
drop index outbox_events_account;
create index outbox_events_account on outbox_events (account_id, xid, seq);
`))
