import { SqlError } from "@effect/sql/SqlError"
import type { SqlClient } from "@effect/sql"
import Pg from "pg"
import { PgClient } from "@effect/sql-pg"
import { Config, Data, Duration, Effect, Layer, Option, Redacted } from "effect"
import { ClusterStartError, ensureDatabase, startCluster } from "./EmbeddedPostgres.js"
import { migrate, MigrationSkipped } from "./migrations/index.js"

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

/** PostgreSQL's SQLSTATE of a failed statement (`55P03`, `23505`, ...), when the failure carries one. */
export const sqlStateOf = (error: unknown): string | undefined => {
  const cause: unknown = error instanceof SqlError ? error.cause : undefined
  return typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : undefined
}

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

/** A `PgClient` on a given URL: a pool of `DATABASE_POOL_SIZE` connections, each with the statement timeout. */
export const clientLayer = (url: Redacted.Redacted) =>
  Layer.unwrapEffect(
    Effect.map(Effect.all([poolSize, statementTimeout]), ([max, timeout]) =>
      PgClient.layerFromPool({
        acquire: Effect.acquireRelease(
          Effect.sync(() =>
            new Pg.Pool({
              connectionString: Redacted.value(url),
              max,
              application_name: "adintel",
              // Set on each connection as it opens: every statement of every pooled connection.
              statement_timeout: Duration.toMillis(timeout)
            }).on("error", () => undefined)),
          (pool) => Effect.promise(() => pool.end())
        ),
        applicationName: "adintel"
      }))
  )

/**
 * The one store: `DATABASE_URL` when set, else the embedded PostgreSQL under `DATA_DIR`.
 * Migrated before anything else sees it.
 */
export const layer: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, EmbeddedDatabaseUnavailable | MigrationSkipped> = Layer.unwrapScoped(
  Effect.gen(function*() {
    const configured = yield* Effect.orDie(databaseUrl)
    const url = Option.isSome(configured) ? configured.value : yield* embeddedUrl("adintel")
    return Layer.orDie(clientLayer(url))
  })
).pipe(Layer.tap((context) => Effect.provide(migrate, context)))

export { migrate, MigrationSkipped }
