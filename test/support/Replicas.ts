import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"

/**
 * What a replica that died leaves behind: its row, last beaten `silentFor` ms before now, holding
 * `charges` (calls it had taken and will never answer). Other replicas take it for dead once
 * `silentFor` passes `REPLICA_HEARTBEAT_TIMEOUT`.
 */
export const replicaHolding = (charges: ReadonlyArray<string>, silentFor = 86_400_000) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const lastBeat = new Date((yield* Clock.currentTimeMillis) - silentFor)
    const [replica] = yield* sql<{ id: string }>`
      insert into gateway_replicas (id, started_at, beat_at)
      values (gen_random_uuid(), ${new Date(lastBeat.getTime() - 86_400_000)}, ${lastBeat}) returning id::text`
    yield* sql`update request_ledger set replica_id = ${replica!.id}::uuid where id = any(${charges}::bigint[])`
    return replica!.id
  }).pipe(Effect.orDie)
