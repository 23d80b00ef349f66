import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The inbox's item for a saved search's new matches (issue 32; H1, W5). */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table notifications drop constraint notifications_type_check;
alter table notifications add constraint notifications_type_check
  check (type in ('brand_new_ads', 'credits_used', 'api_key_regenerated', 'webhook_disabled', 'saved_search_matches'));
`))
