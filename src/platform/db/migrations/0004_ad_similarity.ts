import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Ad searches and similar ads (issue 4): the landing-domain filter gets its index, and each
 * ad's creative its perceptual hashes (64-bit pHash and dHash, stored as signed bigint and
 * compared by Hamming distance), computed from the image or a video's thumbnail.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create index ads_landing_domain on ads (landing_domain, first_seen desc, id desc) where landing_domain is not null;

create table ad_creatives (
  ad_id bigint primary key references ads (id) on delete cascade,
  phash bigint not null,
  dhash bigint not null,
  -- the media the hashes were computed from
  media_url text,
  hashed_at timestamptz not null
);
`))
