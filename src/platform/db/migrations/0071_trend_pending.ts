import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Trends (issue 20): the ads whose copy the daily counts do not hold yet move from a column of
 * `ads` (`trends_counted`, migration 0051) to a table of their own. Marking an ad counted
 * rewrote its row, and an update of that column is not HOT (an index reads it): every counted
 * ad left a dead version in `ads` and a new entry in each of its indexes, the full-text GIN
 * among them, which the searches then read past until a vacuum. Now counting deletes a row
 * here, and `ads` is written only by imports.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table trend_pending (
  ad_id bigint primary key references ads (id) on delete cascade
);
insert into trend_pending (ad_id) select id from ads where not trends_counted;
drop index ads_trends_uncounted;
alter table ads drop column trends_counted;
`))
