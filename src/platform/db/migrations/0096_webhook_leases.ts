import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Webhook concurrency caps across replicas (issue 32; H3). `leased_until` marks a delivery in
 * flight: set by the claim with its lease, cleared when the attempt's outcome is written. A
 * delivery counts as in flight while its lease has not run out (a dead replica's claims stop
 * counting when their lease does), and a claim, under one transaction-scoped advisory lock,
 * takes only as many as keep the in-flight count within the caps, overall and per endpoint.
 * The partial index holds only the rows leased (in flight, or left by a dead replica until
 * claimed again): the count reads it alone. The per-endpoint index serves the claim's probe of
 * each endpoint's oldest due deliveries.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table webhook_deliveries add column leased_until timestamptz;
create index webhook_deliveries_leased on webhook_deliveries (endpoint_id, leased_until) where leased_until is not null;
create index webhook_deliveries_endpoint_due on webhook_deliveries (endpoint_id, next_attempt_at) where status = 'pending';
`))
