import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Ingestion at scale (issue 29): how many ads link to each lander moves to a narrow table of its
 * own. In `landers`, the count sat in an index (`landers_most_ads`), so each import batch's
 * count update wrote a new version of ~400 wide lander rows and an entry in each of their eleven
 * indexes (three of them GIN): at a million ads that cost more than the ads' own upsert. Here an
 * update writes a row of three columns and two index entries.
 *
 * Every lander has its row, made by the trigger when the lander is inserted (imports, and any
 * other writer), so the lander library joins it without an outer join and sorts by "most ads"
 * from its index. `external_id` is the lander's, copied (it never changes): the sort's tie-break
 * is in the same index.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table lander_ad_counts (
  lander_id bigint primary key references landers (id) on delete cascade,
  external_id text not null,
  ads_count integer not null default 0 check (ads_count >= 0)
);
insert into lander_ad_counts (lander_id, external_id, ads_count) select id, external_id, ads_count from landers;
create index lander_ad_counts_most on lander_ad_counts (ads_count desc, external_id);
drop index landers_most_ads;
alter table landers drop column ads_count;

create function lander_ad_counts_row() returns trigger language plpgsql as $$
begin
  insert into lander_ad_counts (lander_id, external_id) values (new.id, new.external_id);
  return null;
end $$;
create trigger landers_count_row after insert on landers for each row execute function lander_ad_counts_row();
`))
