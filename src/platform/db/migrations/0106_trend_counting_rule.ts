import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Trends keep the version of the rule their counts were made by (issue 46; src/ads/trends/):
 * `trend_state.counting_rule`. When it is behind the code's (`countingRule`, Phrases.ts), the
 * counting service drops the counts and rankings at start and counts every ad again, so that no
 * ranking lists a topic the rule now refuses. The counts of before were made by rule 0.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table trend_state add column counting_rule smallint not null default 0;
`))
