import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Transcripts and similar scripts (issue 6), one row per video or ad, shared by every account:
 * a transcript is a fact about the media, so whoever generated it first saves everyone else a
 * script generation (spec: rule 3b). The id is the one the routes take (`video_id`, `ad_id`),
 * so a transcript may exist for media the catalog does not hold (fetched from `video_url`).
 * The trigram index finds the stored transcripts most like another (`similar_scripts`).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table transcripts (
  subject text not null check (subject in ('video', 'ad')),
  subject_id text not null,
  transcript text,
  segments jsonb not null default '[]',
  media_url text,
  engine text,
  transcribed_at timestamptz,
  script jsonb,
  script_analysis jsonb,
  similar_scripts jsonb not null default '[]',
  scripted_at timestamptz,
  primary key (subject, subject_id)
);
create index transcripts_text_trgm on transcripts using gist (transcript gist_trgm_ops) where transcript is not null;
`))
