import { Effect, Option } from "effect"
import { AdSimilarity } from "../ads/library/AdSimilarity.js"
import { SystemContract } from "./Api.js"
import { NotReady } from "./Api.js"
import { Readiness } from "./Readiness.js"
import { Transcripts } from "../transcripts/Transcripts.js"
import { Trends } from "../ads/trends/Trends.js"
import { serveGroup } from "../access/gateway/Http.js"
import { ReplicaHealth } from "../platform/db/Replicas.js"

export const SystemLive = serveGroup(SystemContract, "system", (handlers) =>
  Effect.gen(function*() {
    const readiness = yield* Readiness
    const similarity = yield* AdSimilarity
    const { engines } = yield* Transcripts
    const trends = yield* Trends
    const health = yield* ReplicaHealth
    return handlers
      .handle("health", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () =>
        Effect.gen(function*() {
          const loading = yield* readiness.current
          if (Option.isSome(loading)) {
            const { percent, task } = loading.value
            return yield* Effect.fail(new NotReady({ error: `${task} (${percent}%)`, progress: percent }))
          }
          if (!(yield* readiness.database)) return yield* Effect.fail(new NotReady({ error: "Database unreachable" }))
          // Every research route answers at its usual speed: trends included (issue 28).
          if (!(yield* trends.counted)) return yield* Effect.fail(new NotReady({ error: "Counting trends" }))
          return { status: "ready" as const, engines: { similarity: similarity.engine, ...engines }, replicas: yield* replicasOf(health) }
        }))
  }))

/** The replicas as `/ready` and the admin API show them. */
const replicasOf = (health: ReplicaHealth["Type"]) =>
  Effect.map(health.states, (states) =>
    states.map((r) => ({ name: r.name, healthy: r.healthy, lag_ms: r.lagMs, reason: r.reason, checked_at: r.checkedAt })))

export const SystemAdminLive = serveGroup(SystemContract, "systemAdmin", (handlers) =>
  Effect.map(ReplicaHealth, (health) =>
    handlers.handle("replicas", () => Effect.map(replicasOf(health), (replicas) => ({ replicas })))))
