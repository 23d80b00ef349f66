import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The brand tracker (issue 19; INTERPRETATIONS W1): the social-library advertisers an account
 * follows, one row per account and advertiser. `seq` orders follows made at the same instant;
 * `followed_at` comes from the service's clock. Deleting an account or an advertiser deletes
 * its follows. `brand_follows_advertiser` serves the digest's "who follows this brand".
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table brand_follows (
  account_id uuid not null references accounts (id) on delete cascade,
  advertiser_id bigint not null references advertisers (id) on delete cascade,
  followed_at timestamptz not null,
  seq bigint generated always as identity,
  primary key (account_id, advertiser_id)
);
create index brand_follows_newest on brand_follows (account_id, followed_at desc, seq desc);
create index brand_follows_advertiser on brand_follows (advertiser_id);
`))
