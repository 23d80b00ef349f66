import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Trends (issue 20): each window's totals kept ahead, so that a ranking reads its first rows
 * off an index instead of summing the daily counts. At the bench scale a 90-day ranking summed
 * millions of daily rows (about 95,000 phrases a window, 14,500 a day); kept answers
 * (`trend_answers`) hid that only until the next import.
 *
 * `trend_totals` holds, for the windows ending `trend_state.date_to` (7, 30 and 90 days, each
 * against as many days before it), how many new ads use a term, per cell: library, niche and
 * country, each a value or '*' (any), so every combination of the three filters is a cell of
 * its own. The import adds its ads' share to the cells in the batch's transaction; when the
 * day changes, the totals move to the new windows from the daily counts of the days that
 * change role (`trend_daily`, which keeps the finest counts and the histories).
 * `growth` orders the rankings; the partial index holds only terms that rose.
 *
 * Language is no trend filter any more (L2 names library, niche and country): each filter
 * doubles the cells every ad adds to.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
drop table trend_answers;
alter table trend_state drop column version;
alter table trend_state add column date_to date;
create table trend_totals (
  kind smallint not null,
  window_days smallint not null,
  library text collate "C" not null,
  niche text collate "C" not null,
  country text collate "C" not null,
  term_id bigint not null,
  count integer not null,
  previous integer not null,
  growth double precision generated always as ((count - previous)::double precision / greatest(previous, 1)) stored,
  primary key (kind, window_days, library, niche, country, term_id)
) with (fillfactor = 80);
create index trend_totals_rising on trend_totals (kind, window_days, library, niche, country, growth desc, count desc)
  where count > previous;
`))
