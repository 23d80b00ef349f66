import { SqlError } from "@effect/sql/SqlError"
import type { SqlClient } from "@effect/sql"
import Pg from "pg"
import { PgClient } from "@effect/sql-pg"
import type { ConfigError } from "effect/ConfigError"
import { Config, Context, Data, Duration, Effect, Layer, Option, Redacted, Stream } from "effect"
import { ClusterStartError, ensureDatabase, startCluster } from "./EmbeddedPostgres.js"
import { databaseMode, describeMode } from "./mode/DatabaseMode.js"
import { migrate, MigrationSkipped } from "./migrations/index.js"
import { ReadSql, readLayer, ReadYourWrites, ReplicaHealth } from "./Replicas.js"

/** `DATA_DIR`: where the embedded database and generated secrets live. */
export const dataDir = Config.string("DATA_DIR").pipe(Config.withDefault("./.data"))

/** `DATABASE_URL`, when set and not empty; none means the embedded PostgreSQL. */
export const databaseUrl = Config.option(Config.redacted("DATABASE_URL")).pipe(
  Config.map(Option.filter((url) => Redacted.value(url).length > 0))
)

const poolSize = Config.integer("DATABASE_POOL_SIZE").pipe(Config.withDefault(10))

/**
 * The longest one statement may run (issue 28): a research read past it is cancelled by
 * PostgreSQL, the call answers the 500 envelope with its credit back (G4) and the connection goes
 * back to the pool. Background work that scans whole tables (migrations, trend totals, rollups)
 * lifts it for its own transaction (`unboundedStatements`). Zero: no limit.
 */
export const statementTimeout = Config.duration("DATABASE_STATEMENT_TIMEOUT").pipe(Config.withDefault(Duration.seconds(15)))

/**
 * Lifts the statement timeout for the rest of the caller's transaction: for background work that
 * scans whole tables, never for a request's reads.
 */
export const unboundedStatements = (sql: SqlClient.SqlClient) => sql`set local statement_timeout = 0`.pipe(Effect.asVoid)

/** Planner settings a statement may change for itself (`forOneStatement`): a closed set. */
export type PlannerSetting = "enable_nestloop" | "enable_mergejoin" | "work_mem"

/**
 * Runs `statement` with planner `setting` at `value`, then puts back what the caller's
 * transaction had: the statements after it plan as before (a planner's misjudged join mended
 * for one statement, not for the work that shares its transaction).
 */
export const forOneStatement = (sql: SqlClient.SqlClient, setting: PlannerSetting, value: string) =>
<A, E, R>(statement: Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    sql<{ was: string }>`select current_setting(${setting}) as was, set_config(${setting}, ${value}, true)`,
    ([row]) => Effect.zipLeft(statement, sql`select set_config(${setting}, ${row!.was}, true)`)
  )

export { sqlStateOf } from "./SqlState.js"

/**
 * The embedded PostgreSQL cannot start where it is configured to: `message` is one sentence
 * naming the path, the reason and the fix, for the operator as it is.
 */
export class EmbeddedDatabaseUnavailable extends Data.TaggedError("EmbeddedDatabaseUnavailable")<{ readonly message: string }> {}

/**
 * The embedded PostgreSQL as a scoped resource: started (or joined, when another of our
 * processes runs it) on acquire, stopped cleanly on release.
 */
export const embeddedUrl = (database: string) =>
  Effect.gen(function*() {
    const dir = yield* Effect.orDie(dataDir)
    const sharedBuffers = yield* Config.option(Config.string("EMBEDDED_PG_SHARED_BUFFERS")).pipe(
      Config.map(Option.filter((value) => value.trim() !== "")),
      Config.validate({
        message: "EMBEDDED_PG_SHARED_BUFFERS must be a size such as 512MB or 2GB",
        validation: Option.match({ onNone: () => true, onSome: (value) => /^\d+(kB|MB|GB)$/.test(value) })
      })
    ).pipe(Effect.orDie)
    const cluster = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => startCluster({ dataDir: dir, persistent: true, sharedBuffers: Option.getOrUndefined(sharedBuffers) }),
        catch: (error) => error
      }).pipe(
        Effect.catchAll((error) =>
          error instanceof ClusterStartError ? new EmbeddedDatabaseUnavailable({ message: error.message }) : Effect.die(error)
        )
      ),
      (cluster) => Effect.promise(() => cluster.stop())
    )
    yield* Effect.promise(() => ensureDatabase(cluster.adminUrl, database))
    yield* Effect.logInfo(`Embedded PostgreSQL ready: ${cluster.where}`)
    return Redacted.make(cluster.urlFor(database))
  })

/** A listening connection was lost, or could not be made. */
export class ListenLost extends Data.TaggedError("ListenLost")<{ readonly cause: unknown }> {}

/** What a listening connection tells: it listens now (after connecting), or a notification's payload. */
export type Heard = { readonly _tag: "Listening" } | { readonly _tag: "Notified"; readonly payload: string }

/**
 * PostgreSQL's LISTEN on a connection of its own per stream. Unlike `PgClient.listen` (whose
 * stream stays open and silent when its connection drops), the stream fails with `ListenLost`
 * when the connection ends: a listener knows that notifications may have been lost, and to
 * listen again.
 */
export class PgListener extends Context.Tag("adintel/PgListener")<PgListener, {
  readonly listen: (channel: string) => Stream.Stream<Heard, ListenLost>
}>() {}

const listenerOn = (url: Redacted.Redacted): PgListener["Type"] => ({
  listen: (channel) =>
    Stream.asyncScoped<Heard, ListenLost>((emit) =>
      Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const client = new Pg.Client({ connectionString: Redacted.value(url), application_name: "adintel-listen" })
            const lost = (cause: unknown) => void emit.fail(new ListenLost({ cause }))
            client.on("error", lost)
            client.on("end", () => lost("the connection ended"))
            client.on("notification", (message) => {
              if (message.channel === channel && message.payload !== undefined) void emit.single({ _tag: "Notified", payload: message.payload })
            })
            try {
              await client.connect()
              await client.query(`LISTEN ${Pg.escapeIdentifier(channel)}`)
            } catch (error) {
              // Not released by the scope (it was never acquired): closed here.
              client.removeAllListeners()
              client.on("error", () => undefined)
              await client.end().catch(() => undefined)
              throw error
            }
            void emit.single({ _tag: "Listening" })
            return client
          },
          catch: (cause) => new ListenLost({ cause })
        }),
        (client) =>
          Effect.promise(() => {
            client.removeAllListeners()
            client.on("error", () => undefined)
            return client.end().catch(() => undefined)
          })
      ))
})

/**
 * A connection given back to the pool inside a transaction is rolled back before anyone else
 * uses it: its ROLLBACK is queued ahead of the next borrower's statements. `@effect/sql` always
 * ends its transactions, but an interrupted statement's cancel (`pg_cancel_backend`, sent from
 * another connection, best-effort and late when the pool is busy) can land on that ROLLBACK
 * itself; the connection then came back in a failed transaction, and every later statement on
 * it answered `25P02` (seen once in CI: an import's lanes interrupted by another lane's failure).
 */
const rollBackLeftOpen = (error: Error | undefined, client: Pg.PoolClient) => {
  const status = client.getTransactionStatus()
  if (error === undefined && (status === "T" || status === "E")) client.query("rollback").catch(() => undefined)
}

/**
 * The pool's connections as `/metrics` samples them: in use, idle, and clients waiting for one
 * (issue 30). Read from the pool at the moment it is asked, nothing kept.
 */
export class DatabasePool extends Context.Tag("adintel/DatabasePool")<DatabasePool, {
  readonly connections: Effect.Effect<{ readonly inUse: number; readonly idle: number; readonly waiting: number }>
}>() {}

/**
 * A `PgClient` on a given URL: a pool of `DATABASE_POOL_SIZE` connections, each with the
 * statement timeout; a `PgListener` on it; and `ReadSql`, the research reads' read-only client
 * over the streaming replicas of `DATABASE_REPLICA_URLS`, or this URL when none is configured or
 * healthy (`Replicas.ts`, issue 31).
 */
export const clientLayer = (
  url: Redacted.Redacted
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | PgListener | DatabasePool | ReadSql | ReplicaHealth | ReadYourWrites, ConfigError | SqlError> =>
  Layer.unwrapEffect(Effect.map(Effect.all([poolSize, statementTimeout]), ([max, timeout]) =>
    readLayer(url, { max, statementTimeoutMs: Duration.toMillis(timeout) }))).pipe(
      Layer.provideMerge(Layer.merge(Layer.succeed(PgListener, listenerOn(url)), poolLayer(url)))
    )

const poolLayer = (url: Redacted.Redacted) =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      const [max, timeout] = yield* Effect.all([poolSize, statementTimeout])
      const pool = yield* Effect.acquireRelease(
        Effect.sync(() =>
          new Pg.Pool({
            connectionString: Redacted.value(url),
            max,
            application_name: "adintel",
            // Set on each connection as it opens: every statement of every pooled connection.
            statement_timeout: Duration.toMillis(timeout)
          }).on("error", () => undefined).on("release", rollBackLeftOpen)),
        (pool) => Effect.promise(() => pool.end())
      )
      const connections = Effect.sync(() => ({ inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount }))
      return Layer.merge(
        PgClient.layerFromPool({ acquire: Effect.succeed(pool), applicationName: "adintel" }),
        Layer.succeed(DatabasePool, { connections })
      )
    })
  )

/**
 * The one store: `DATABASE_URL` when set, else the embedded PostgreSQL under `DATA_DIR`.
 * Migrated before anything else sees it.
 */
export const layer: Layer.Layer<
  PgClient.PgClient | SqlClient.SqlClient | PgListener | DatabasePool | ReadSql | ReplicaHealth | ReadYourWrites,
  EmbeddedDatabaseUnavailable | MigrationSkipped
> = Layer.unwrapScoped(
  Effect.gen(function*() {
    const configured = yield* Effect.orDie(databaseUrl)
    const url = Option.isSome(configured) ? configured.value : yield* embeddedUrl("adintel")
    return Layer.orDie(clientLayer(url))
  })
).pipe(Layer.tap((context) =>
  Effect.provide(Effect.zipRight(migrate, Effect.flatMap(databaseMode, (mode) => Effect.logInfo(describeMode(mode)))), context)
))

export { migrate, MigrationSkipped }
