import type { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { ensureDatabase, startCluster } from "./EmbeddedPostgres.js"
import { migrate } from "./migrations/index.js"

/** `DATA_DIR`: where the embedded database and generated secrets live. */
export const dataDir = Config.string("DATA_DIR").pipe(Config.withDefault("./.data"))

/** `DATABASE_URL`, when set and not empty; none means the embedded PostgreSQL. */
export const databaseUrl = Config.option(Config.redacted("DATABASE_URL")).pipe(
  Config.map(Option.filter((url) => Redacted.value(url).length > 0))
)

const poolSize = Config.integer("DATABASE_POOL_SIZE").pipe(Config.withDefault(10))

/**
 * The embedded PostgreSQL as a scoped resource: started (or joined, when another of our
 * processes runs it) on acquire, stopped cleanly on release.
 */
export const embeddedUrl = (database: string) =>
  Effect.gen(function*() {
    const dir = yield* dataDir
    const sharedBuffers = yield* Config.option(Config.string("EMBEDDED_PG_SHARED_BUFFERS")).pipe(
      Config.map(Option.filter((value) => value.trim() !== "")),
      Config.validate({
        message: "EMBEDDED_PG_SHARED_BUFFERS must be a size such as 512MB or 2GB",
        validation: Option.match({ onNone: () => true, onSome: (value) => /^\d+(kB|MB|GB)$/.test(value) })
      })
    )
    const cluster = yield* Effect.acquireRelease(
      Effect.tryPromise(() => startCluster({ dataDir: dir, persistent: true, sharedBuffers: Option.getOrUndefined(sharedBuffers) })),
      (cluster) => Effect.promise(() => cluster.stop())
    )
    yield* Effect.tryPromise(() => ensureDatabase(cluster.adminUrl, database))
    yield* Effect.logInfo(`Embedded PostgreSQL ready (data in ${dir})`)
    return Redacted.make(cluster.urlFor(database))
  }).pipe(Effect.orDie)

/** A `PgClient` on a given URL. */
export const clientLayer = (url: Redacted.Redacted) =>
  Layer.unwrapEffect(
    Effect.map(poolSize, (maxConnections) => PgClient.layer({ url, maxConnections, applicationName: "adintel" }))
  )

/**
 * The one store: `DATABASE_URL` when set, else the embedded PostgreSQL under `DATA_DIR`.
 * Migrated before anything else sees it.
 */
export const layer: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient> = Layer.unwrapScoped(
  Effect.gen(function*() {
    const configured = yield* databaseUrl
    const url = Option.isSome(configured) ? configured.value : yield* embeddedUrl("adintel")
    return clientLayer(url)
  }).pipe(Effect.orDie)
).pipe(Layer.tap((context) => Effect.provide(migrate, context)), Layer.orDie)

export { migrate }
