import { Duration, Effect, Schedule } from "effect"
import pg from "pg"
import { type Cluster, startCluster } from "../../src/platform/db/EmbeddedPostgres.js"

/** A throwaway embedded cluster in `dir` (a streaming replica of `replicaOf`, when given), without durability, stopped and removed with the scope. */
export const cluster = (dir: string, replicaOf?: Cluster) =>
  Effect.acquireRelease(
    Effect.promise(() => startCluster({ dataDir: dir, persistent: false, durable: false, sharedBuffers: "128MB", ...(replicaOf ? { replicaOf } : {}) })),
    (c) => Effect.promise(() => c.stop())
  )

/**
 * `read` again every 100 ms until `holds` (for at most 30 s): what a replica has replayed, or
 * what its statistics show, arrives in PostgreSQL's own time. No fixed sleep. Given up, it fails
 * with what `holds` asked and what was read last, so a failure says which wait it was.
 */
export const eventually = <A, E, R>(read: Effect.Effect<A, E, R>, holds: (a: A) => boolean) =>
  read.pipe(
    Effect.filterOrFail(holds, (last) => new Error(`not yet after 30 s: ${holds.toString()} still false of ${JSON.stringify(last)?.slice(0, 500)}`)),
    Effect.retry(Schedule.spaced(Duration.millis(100)).pipe(Schedule.upTo(Duration.seconds(30))))
  )

/** A client on `url`, ended with the scope. */
export const connected = (url: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      return client
    }),
    (client) => Effect.promise(() => client.end())
  )

/** The rows `text` answers. */
export const rows = <A extends pg.QueryResultRow>(client: pg.Client, text: string, values: ReadonlyArray<unknown> = []) =>
  Effect.promise(() => client.query<A>(text, [...values]).then((r) => r.rows))

/** How `text` fails (its SQLSTATE and message), or undefined when it does not. */
export const failure = (client: pg.Client, text: string) =>
  Effect.promise(() => client.query(text).then(() => undefined, (error: { code?: string; message: string }) => ({ code: error.code, message: error.message })))
