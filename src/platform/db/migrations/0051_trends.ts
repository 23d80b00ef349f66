import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Trends (issue 20, INTERPRETATIONS L2; src/ads/trends/): how many ads first seen on a day use
 * a phrase (kind 0) or open with a hook (kind 1), per library, niche, language and country.
 * `country` '*' counts every ad once; an ad also counts under each country it targets, so a
 * country filter reads its own rows. The ad import keeps these counts in the batch's own
 * transaction (it subtracts what a changed ad counted before and adds what it counts now);
 * `ads.trends_counted` says an ad's copy is in them (ads stored before this migration are not,
 * until the server counts them at start; a partial index finds them). Terms are keyed by a 64-bit hash of their kind and text, so an
 * import writes counts without looking ids up; `trend_terms` keeps the text.
 * The primary key serves a window (kind, country, days), `trend_daily_term` one term's series.
 * `ads` has no check: PostgreSQL checks a proposed row before it finds the conflict that turns
 * the insert into an update, and a change is written as a negative delta.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table trend_terms (
  id bigint primary key,
  kind smallint not null check (kind in (0, 1)),
  term text not null
);
create table trend_daily (
  kind smallint not null,
  country text not null,
  day date not null,
  library text not null,
  niche text not null,
  language text not null,
  term_id bigint not null,
  ads integer not null,
  primary key (kind, country, day, library, niche, language, term_id)
);
create index trend_daily_term on trend_daily (term_id, country, day);
alter table ads add column trends_counted boolean not null default false;
create index ads_trends_uncounted on ads (id) where not trends_counted;
`))
