import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * OAuth dynamic registration (issue 28): the client address a client was registered from, so
 * each address registers a bounded number a day and nobody can use up the whole server's.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table oauth_clients add column registered_from text;
create index oauth_clients_registered_from on oauth_clients (registered_from, registered_at);
`))
