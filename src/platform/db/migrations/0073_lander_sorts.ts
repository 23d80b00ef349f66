import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Landers (issue 20, L1): "longest running" read every lander its filters match and sorted
 * them (90 ms p50 at the bench scale, at the edge of the 100 ms goal); its order is an index
 * now, and a page reads its first rows off it (3.5 ms for page 3 of the shopify landers there).
 * The page's count still reads the table (about 45 ms there).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create index landers_longest_running on landers ((last_seen - first_seen) desc nulls last, external_id);
`))
