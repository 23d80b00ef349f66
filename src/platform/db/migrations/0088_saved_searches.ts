import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Saved searches (issue 32; INTERPRETATIONS H1). `filters` is what the account saved (the
 * library search's decoded filters); the typed columns beside it are the same filters as the
 * import's one set-based matching pass joins them (`tsq` the compiled full-text query). A
 * search with a query is reached through `saved_search_anchors`: lexemes at least one of which
 * every ad it can match holds, so a batch joins its ads' lexemes to them instead of testing
 * every search against every ad; a search without a query (`anchored` false) is joined by its
 * library. `saved_search_matches` holds what the pass found, newest first for `/matches`.
 * `brand_ad_stops` remembers the tracked brands' ads already told as stopped (H3), so an
 * import sent twice tells nothing twice. `saved_search_checks` is when the import last looked.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table saved_searches (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  name text not null,
  library text not null check (library in ('social', 'pinboard', 'clipapp', 'search')),
  filters jsonb not null,
  created_at timestamptz not null,
  seq bigint generated always as identity,
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
create index saved_searches_account on saved_searches (account_id, created_at desc, seq desc);
create index saved_searches_unanchored on saved_searches (library, advertiser_id, domain) where not anchored;

create table saved_search_anchors (
  library text not null,
  lexeme text not null,
  saved_search_id uuid not null references saved_searches (id) on delete cascade,
  needed smallint not null,
  primary key (library, lexeme, saved_search_id)
);
create index saved_search_anchors_search on saved_search_anchors (saved_search_id);

create table saved_search_matches (
  saved_search_id uuid not null,
  ad_id bigint not null,
  first_seen timestamptz not null,
  matched_at timestamptz not null,
  primary key (saved_search_id, ad_id)
);
create index saved_search_matches_newest on saved_search_matches (saved_search_id, first_seen desc, ad_id desc);

create table saved_search_checks (
  singleton boolean primary key default true check (singleton),
  checked_at timestamptz not null
);

create table brand_ad_stops (
  ad_id bigint not null references ads (id) on delete cascade,
  last_seen timestamptz not null,
  primary key (ad_id, last_seen)
);
`))
