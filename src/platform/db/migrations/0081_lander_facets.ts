import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The lander library's filters at scale (issue 29): what explore filters on, in a narrow table of
 * its own. A lander row is ~1.2 KB (its page text and search vector sit inline), so counting the
 * landers a filter matches scanned the whole table: 293 MB at ten million ads, 226 ms for one
 * count (EXPLAIN ANALYZE, warm). The same count over this table reads 46 MB: 48 ms.
 *
 * A trigger keeps it: every insert or update of a lander writes its row, when a filtered value
 * changed (imports, and any other writer). Niche and platform are kept lower-cased, as explore
 * compares them. The ad counts stay in `lander_ad_counts` (migration 0079): ad imports lock only
 * those rows and lander imports only these, so the two never wait on each other's rows.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table lander_facets (
  lander_id bigint primary key references landers (id) on delete cascade,
  page_type text not null,
  niche_key text,
  platform_key text,
  domain text not null,
  countries text[] not null,
  languages text[] not null,
  first_seen timestamptz,
  last_seen timestamptz,
  offer_price numeric,
  currency text
);

create function lander_facets_row() returns trigger language plpgsql as $$
begin
  insert into lander_facets as f
    values (new.id, new.page_type, lower(new.niche), lower(new.platform), new.domain, new.countries, new.languages,
            new.first_seen, new.last_seen, new.offer_price, new.currency)
  on conflict (lander_id) do update set
    page_type = excluded.page_type, niche_key = excluded.niche_key, platform_key = excluded.platform_key,
    domain = excluded.domain, countries = excluded.countries, languages = excluded.languages,
    first_seen = excluded.first_seen, last_seen = excluded.last_seen, offer_price = excluded.offer_price,
    currency = excluded.currency
  where (f.page_type, f.niche_key, f.platform_key, f.domain, f.countries, f.languages, f.first_seen, f.last_seen, f.offer_price, f.currency)
    is distinct from
        (excluded.page_type, excluded.niche_key, excluded.platform_key, excluded.domain, excluded.countries, excluded.languages,
         excluded.first_seen, excluded.last_seen, excluded.offer_price, excluded.currency);
  return null;
end $$;
create trigger landers_facets_row after insert or update on landers for each row execute function lander_facets_row();

insert into lander_facets
  select id, page_type, lower(niche), lower(platform), domain, countries, languages, first_seen, last_seen, offer_price, currency
    from landers;
analyze lander_facets;
`))
