import { Effect } from "effect"
import { AppConfig } from "../../platform/AppConfig.js"
import { GatewayRepo } from "./GatewayRepo.js"
import { now } from "../../kernel/UtcDay.js"

/**
 * This process as the other replicas on the database see it (G4): a row whose heartbeat it
 * beats every `REPLICA_HEARTBEAT_EVERY`. Its charges carry its id, and a sweeper refunds them
 * only once the heartbeat is older than `REPLICA_HEARTBEAT_TIMEOUT`: a call that is still running
 * is never refunded. A clean stop marks the replica gone, so anything it still held is swept at
 * once; its finalizer runs after the gateway's, which writes the last completions first.
 */
export class Replica extends Effect.Service<Replica>()("adintel/Replica", {
  scoped: Effect.gen(function*() {
    const repo = yield* GatewayRepo
    const config = yield* AppConfig
    const id = yield* Effect.acquireRelease(
      Effect.flatMap(now, repo.registerReplica),
      (id) => Effect.flatMap(now, (at) => repo.retireReplica(id, at))
    )
    const beat = Effect.flatMap(now, (at) => repo.beat(id, at))
    yield* Effect.sleep(config.replicaHeartbeatEvery).pipe(
      Effect.zipRight(beat),
      Effect.catchAllCause((cause) => Effect.logError("Replica heartbeat failed", cause)),
      Effect.forever,
      Effect.forkScoped
    )
    return { id, beat }
  }),
  dependencies: [GatewayRepo.Default]
}) {}
