import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Trends at scale (issue 29; src/ads/trends/): counts that grow with the vocabulary, not with
 * ads times filter cells. At the demo scale `trend_daily` and `trend_totals` held 22 KB per ad,
 * nine times the ad itself: a row per term, day and cell (40 to 70 bytes with its index entry),
 * and window totals for every combination of the three filters.
 *
 * - `trend_terms`: the dictionary, a small integer per term (kind 0 phrase, 1 hook).
 * - `trend_cells`: what an ad counts under, once per country it targets and once as any
 *   country ('*'): its library, its niche ('' for one no filter can name, or none).
 * - `trend_days`: per kind, day and cell, how many new ads use each term, packed (Packed.ts:
 *   two to three bytes a term). Kept for the 180 days the rankings read.
 * - `trend_series`: the same counts per term and month, packed by cell and day: one term's
 *   history reads a row a month. Kept for the 365 days of a history.
 * - `trend_rankings`: per kind, window and filter cell (each filter a value or '*'), the terms
 *   some ranking can list, in ranking order (Ranking.ts `kept`), built from `trend_days` for the
 *   windows ending `trend_state.date_to`. `trend_state.stale` says counts in those windows
 *   changed since: the counting fiber builds them again.
 *
 * Every ad is counted again from its copy (the counting fiber does it at start).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
drop table trend_totals;
drop table trend_daily;
drop table trend_terms;
create table trend_terms (
  id integer generated always as identity primary key,
  kind smallint not null check (kind in (0, 1)),
  term text collate "C" not null,
  unique (kind, term)
);
create table trend_cells (
  id integer generated always as identity primary key,
  library text collate "C" not null,
  niche text collate "C" not null,
  country text collate "C" not null,
  unique (library, niche, country)
);
create table trend_days (
  kind smallint not null,
  day date not null,
  cell integer not null references trend_cells (id),
  counts bytea not null,
  primary key (kind, day, cell)
);
create table trend_series (
  term integer not null references trend_terms (id),
  month date not null,
  counts bytea not null,
  primary key (term, month)
);
create table trend_rankings (
  kind smallint not null,
  window_days smallint not null,
  library text collate "C" not null,
  niche text collate "C" not null,
  country text collate "C" not null,
  kept bytea not null,
  primary key (kind, window_days, library, niche, country)
);
alter table trend_state add column stale boolean not null default true;
update trend_state set date_to = null;
insert into trend_pending (ad_id) select id from ads on conflict do nothing;
`))
