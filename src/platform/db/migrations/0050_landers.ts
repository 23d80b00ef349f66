import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The lander library (issue 20, INTERPRETATIONS L1; src/ads/landers/). Landers gain what their
 * search filters on: the page's headline and text (full text, with the title), its niche,
 * countries and languages, and the page types lander libraries name (VSL, presell, collection).
 * `ads_count` is how many ads link to the lander, kept by the ad import in the batch's own
 * transaction (counted once here for the ads already stored). An ad index by lander, newest
 * first, replaces the plain one: it lists a lander's latest ads and serves the foreign key.
 * `lander_favorites`: an account's favorite landers, deleted with the account or the lander.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table landers drop constraint landers_page_type_check;
alter table landers add constraint landers_page_type_check
  check (page_type in ('product', 'listicle', 'advertorial', 'quiz', 'vsl', 'presell', 'collection', 'home'));
alter table landers
  add column headline text,
  add column page_text text,
  add column niche text,
  add column countries text[] not null default '{}',
  add column languages text[] not null default '{}',
  add column search_vector tsvector,
  add column ads_count integer not null default 0 check (ads_count >= 0);
update landers set
  search_vector = setweight(to_tsvector('english', coalesce(title, '')), 'A')
    || setweight(to_tsvector('english', coalesce(headline, '')), 'B')
    || setweight(to_tsvector('english', coalesce(page_text, '')), 'C'),
  ads_count = (select count(*) from ads where ads.lander_id = landers.id);
alter table landers alter column search_vector set not null;
create index landers_search on landers using gin (search_vector);
create index landers_newest on landers (first_seen desc nulls last, external_id);
create index landers_most_ads on landers (ads_count desc, external_id);
create index landers_domain on landers (domain);

create index ads_lander_newest on ads (lander_id, first_seen desc, id desc) where lander_id is not null;
drop index ads_lander;

create table lander_favorites (
  account_id uuid not null references accounts (id) on delete cascade,
  lander_id bigint not null references landers (id) on delete cascade,
  seq bigint generated always as identity,
  created_at timestamptz not null,
  primary key (account_id, lander_id)
);
create index lander_favorites_newest on lander_favorites (account_id, created_at desc, seq desc);
create index lander_favorites_lander on lander_favorites (lander_id);
`))
