import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Embeddings of ad copy, for the similar-ads engine backed by an embedding model: computed on
 * first need and kept per model, with a hash of the text they were computed from, so a copy
 * that changes is embedded again and an unchanged one never twice.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table ad_embeddings (
  ad_id bigint not null references ads (id) on delete cascade,
  model text not null,
  text_hash bytea not null,
  embedding real[] not null,
  embedded_at timestamptz not null,
  primary key (ad_id, model)
);
`))
