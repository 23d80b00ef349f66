import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Store media (issue 28): `/media/stores/<name>` draws only photos the catalog names. The route
 * needs no key, so the check that a name is a product's photo reads an index, never the table.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create index store_products_images on store_products using gin (images jsonb_path_ops);
`))
