import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The creative hasher (`npm run admin -- creatives hash`) records a creative it could not
 * fetch or read, with the reason, so the next run does not fetch the same URL again unless
 * asked; such a row has no hashes and never matches an image search.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table ad_creatives
  alter column phash drop not null,
  alter column dhash drop not null,
  add column error text,
  add constraint ad_creatives_hashed_or_failed check ((error is null) = (phash is not null and dhash is not null));
`))
