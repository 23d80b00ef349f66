import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Trends at scale (issue 29): ads to count are taken in order of their first-seen day. A batch
 * of a few days' ads touches each of those days' packed rows once, where a batch in id order
 * touched most days of the 180 and rewrote their rows batch after batch.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table trend_pending add column day date;
update trend_pending p set day = (a.first_seen at time zone 'UTC')::date from ads a where a.id = p.ad_id;
alter table trend_pending alter column day set not null;
create index trend_pending_day on trend_pending (day, ad_id);
`))
