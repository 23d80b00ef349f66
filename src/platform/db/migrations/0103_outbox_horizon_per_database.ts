import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The outbox's horizon counts this database's transactions only (issue 43; H3; SPEC-NOTES
 * "Events"). Migration 0091 reads events below `pg_snapshot_xmin(pg_current_snapshot())`: the
 * oldest transaction still running anywhere on the server, though only this database's can
 * write an event here. On a server that holds other databases (a shared host; the test run's
 * one cluster), any write transaction of theirs held every stream and webhook pass back until it
 * ended. `outbox_horizon()` is the oldest running transaction of the snapshot that is not known to
 * be another database's (`pg_stat_activity`), else the snapshot's `xmax`. Only a transaction
 * positively seen in another database is passed over: one that ended meanwhile, a prepared one,
 * or one whose row this role may not read still counts, so a read is never ahead of an event.
 * Called as `(select outbox_horizon())`, once per statement.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create function outbox_horizon() returns xid8 language sql stable as $$
  select coalesce(min(running), pg_snapshot_xmax(pg_current_snapshot()))
    from pg_snapshot_xip(pg_current_snapshot()) running
   where not exists (
     select 1 from pg_stat_activity elsewhere
      where elsewhere.backend_xid is not null
        and elsewhere.datid <> (select oid from pg_database where datname = current_database())
        and elsewhere.backend_xid::text::bigint = running::text::bigint % 4294967296)
$$;
`))
