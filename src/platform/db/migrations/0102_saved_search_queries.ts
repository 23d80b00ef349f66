import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Saved searches that ask the same thing share one query (issue 32; H1; SPEC-NOTES "Saved
 * searches that ask the same thing share one query"). `saved_search_queries` holds the typed
 * filters the matching pass joins (moved from `saved_searches`), once per distinct `key` (the
 * library and every typed filter, hashed), with how many saved searches ask it; a saved search
 * points at its query. The pass matches and stores per query: `saved_search_query_anchors`
 * replaces the per-search anchors, `saved_search_query_matches` holds one row per query and
 * batch with the batch's pass number (`saved_search_passes`; a saved search sees the rows of the
 * passes numbered after its `after_pass`, the last one handed out when it was saved), and
 * `import_pending_query_matches` what a batch found for its import's end, which tells each saved
 * search of the query. A popular query saved by many accounts is matched and stored once.
 *
 * The per-search match rows of before stay in `saved_search_matches` and are still read by
 * `/matches`; no new row goes there. A trigger keeps `searches` (deletes through an account's
 * cascade included) and drops a query, its anchors and its matches with its last search.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table saved_search_queries (
  id bigint generated always as identity primary key,
  key text not null unique,
  searches integer not null default 0 check (searches >= 0),
  library text not null check (library in ('social', 'pinboard', 'clipapp', 'search')),
  anchored boolean not null,
  tsq tsquery,
  advertiser_id text,
  domain text,
  status text,
  formats text[],
  countries text[],
  languages text[],
  platforms text[],
  niches text[],
  ctas text[],
  first_seen_from timestamptz,
  first_seen_before timestamptz,
  last_seen_from timestamptz,
  last_seen_before timestamptz,
  min_days_running integer,
  max_days_running integer,
  min_likes bigint, max_likes bigint,
  min_comments bigint, max_comments bigint,
  min_shares bigint, max_shares bigint,
  min_views bigint, max_views bigint
);
create index saved_search_queries_unanchored on saved_search_queries (library, advertiser_id, domain) where not anchored;

alter table saved_searches add column query_key text;
update saved_searches s set query_key = md5(jsonb_build_array(
  s.library, s.tsq::text, s.advertiser_id, s.domain, s.status, s.formats, s.countries, s.languages, s.platforms, s.niches, s.ctas,
  extract(epoch from s.first_seen_from), extract(epoch from s.first_seen_before), extract(epoch from s.last_seen_from), extract(epoch from s.last_seen_before),
  s.min_days_running, s.max_days_running, s.min_likes, s.max_likes, s.min_comments, s.max_comments, s.min_shares, s.max_shares, s.min_views, s.max_views)::text);
insert into saved_search_queries (key, searches, library, anchored, tsq, advertiser_id, domain, status, formats, countries, languages, platforms,
  niches, ctas, first_seen_from, first_seen_before, last_seen_from, last_seen_before, min_days_running, max_days_running,
  min_likes, max_likes, min_comments, max_comments, min_shares, max_shares, min_views, max_views)
select distinct on (s.query_key) s.query_key, count(*) over (partition by s.query_key), s.library, s.anchored, s.tsq, s.advertiser_id, s.domain, s.status,
       s.formats, s.countries, s.languages, s.platforms, s.niches, s.ctas, s.first_seen_from, s.first_seen_before, s.last_seen_from,
       s.last_seen_before, s.min_days_running, s.max_days_running, s.min_likes, s.max_likes, s.min_comments, s.max_comments,
       s.min_shares, s.max_shares, s.min_views, s.max_views
  from saved_searches s order by s.query_key, s.created_at, s.id;
alter table saved_searches add column query_id bigint references saved_search_queries (id);
update saved_searches s set query_id = q.id from saved_search_queries q where q.key = s.query_key;
alter table saved_searches alter column query_id set not null;

create table saved_search_query_anchors (
  library text not null,
  lexeme text not null,
  query_id bigint not null references saved_search_queries (id) on delete cascade,
  alone boolean not null,
  primary key (library, lexeme, query_id)
);
create index saved_search_query_anchors_query on saved_search_query_anchors (query_id);
-- A query's anchors: those of its first search (every search of a query has the same query text).
insert into saved_search_query_anchors (library, lexeme, query_id, alone)
select a.library, a.lexeme, s.query_id, a.alone
  from saved_search_anchors a join saved_searches s on s.id = a.saved_search_id
 where s.id = (select f.id from saved_searches f where f.query_id = s.query_id order by f.created_at, f.id limit 1);
drop table saved_search_anchors;

drop index saved_searches_unanchored;
alter table saved_searches drop column query_key, drop column anchored, drop column tsq, drop column advertiser_id, drop column domain,
  drop column status, drop column formats, drop column countries, drop column languages, drop column platforms, drop column niches,
  drop column ctas, drop column first_seen_from, drop column first_seen_before, drop column last_seen_from, drop column last_seen_before,
  drop column min_days_running, drop column max_days_running, drop column min_likes, drop column max_likes, drop column min_comments,
  drop column max_comments, drop column min_shares, drop column max_shares, drop column min_views, drop column max_views;
create index saved_searches_query on saved_searches (query_id);

-- The matching passes in the order they start: a search sees the rows of the passes numbered
-- after the last one handed out when it was saved (those of before the upgrade: every new one).
create sequence saved_search_passes;
alter table saved_searches add column after_pass bigint not null default 0;
alter table saved_searches alter column after_pass drop default;

create table saved_search_query_matches (
  query_id bigint not null,
  pass bigint not null,
  newest timestamptz not null,
  oldest timestamptz not null,
  first_seens timestamptz[] not null,
  ad_ids bigint[] not null
);
create index saved_search_query_matches_newest on saved_search_query_matches (query_id, newest desc);

create table import_pending_query_matches (
  import_id uuid not null,
  query_id bigint not null,
  pass bigint not null,
  count int not null,
  sort_keys timestamptz[] not null,
  ad_rows bigint[] not null,
  ad_ids text[] not null,
  written_at timestamptz not null
);

create function saved_search_queries_count() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    update saved_search_queries set searches = searches + 1 where id = new.query_id;
    return new;
  end if;
  update saved_search_queries set searches = searches - 1 where id = old.query_id;
  with gone as (delete from saved_search_queries where id = old.query_id and searches = 0 returning id),
       matches as (delete from saved_search_query_matches where query_id in (select id from gone))
  delete from import_pending_query_matches where query_id in (select id from gone);
  return old;
end $$;
create trigger saved_search_queries_count after insert or delete on saved_searches
  for each row execute function saved_search_queries_count();
`))
