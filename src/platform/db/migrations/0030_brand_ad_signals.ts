import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * What the brand insight tabs derive from an ad's copy, landing URL and media (issue 19,
 * src/ads/brandInsights/CopySignals.ts), stored once per version of the ad: regular expressions
 * over a brand's 5,000 copies cost far more than the tabs' counting. A row holds for the ad's
 * `content_hash` (an import that changes the ad changes it) under the rules named by `rules`
 * (a digest of the rule tables); the tabs derive inline whatever has no holding row, so a stale
 * or missing row costs time, never a wrong answer.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table brand_ad_signals (
  ad_id bigint primary key references ads (id) on delete cascade,
  content_hash text not null,
  rules text not null,
  hook text,
  angle text,
  persona text,
  offers text[] not null,
  percents integer[] not null,
  codes text[] not null,
  emoji text[] not null,
  product text,
  video_seconds double precision
);
`))
