import { Duration, Effect, Schedule } from "effect"
import { type Cluster, startCluster } from "../../src/platform/db/EmbeddedPostgres.js"

/** A throwaway embedded cluster in `dir` (a streaming replica of `replicaOf`, when given), without durability, stopped and removed with the scope. */
export const cluster = (dir: string, replicaOf?: Cluster) =>
  Effect.acquireRelease(
    Effect.promise(() => startCluster({ dataDir: dir, persistent: false, durable: false, sharedBuffers: "128MB", ...(replicaOf ? { replicaOf } : {}) })),
    (c) => Effect.promise(() => c.stop())
  )

/**
 * `read` again every 100 ms until `holds` (for at most 30 s): what a replica has replayed, or
 * what its statistics show, arrives in PostgreSQL's own time. No fixed sleep.
 */
export const eventually = <A, E, R>(read: Effect.Effect<A, E, R>, holds: (a: A) => boolean) =>
  read.pipe(
    Effect.filterOrFail(holds, () => "not yet"),
    Effect.retry(Schedule.spaced(Duration.millis(100)).pipe(Schedule.upTo(Duration.seconds(30))))
  )
