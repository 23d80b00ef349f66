import { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { ConfigProvider, Context, Effect, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import pg from "pg"
import { inject } from "vitest"
import * as Database from "../../src/platform/db/Database.js"
import type { ReadSql, ReadYourWrites, ReplicaHealth } from "../../src/platform/db/Replicas.js"

const withAdmin = <A>(f: (client: pg.Client) => Promise<A>) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: inject("adminDatabaseUrl") })
    await client.connect()
    try {
      return await f(client)
    } finally {
      await client.end()
    }
  })

/** The URL of a fresh database of the run's PostgreSQL, dropped when the scope closes. */
export class TestDatabaseUrl extends Context.Tag("test/TestDatabaseUrl")<TestDatabaseUrl, Redacted.Redacted>() {}

export const TestDatabaseUrlLive = Layer.scoped(
  TestDatabaseUrl,
  Effect.gen(function*() {
    const name = `adintel_test_${randomBytes(6).toString("hex")}`
    yield* Effect.acquireRelease(
      withAdmin((client) => client.query(`create database ${name}`)),
      () => withAdmin((client) => client.query(`drop database if exists ${name} with (force)`))
    )
    const url = new URL(inject("adminDatabaseUrl"))
    url.pathname = `/${name}`
    return Redacted.make(url.toString())
  })
)

/** A migrated client on the `TestDatabaseUrl`: what one server process ("replica") holds. */
export const clientOn: Layer.Layer<
  PgClient.PgClient | SqlClient.SqlClient | Database.PgListener | Database.DatabasePool | ReadSql | ReplicaHealth | ReadYourWrites,
  never,
  TestDatabaseUrl
> = Layer
  .unwrapEffect(Effect.map(TestDatabaseUrl, Database.clientLayer))
  .pipe(Layer.tap((context) => Effect.provide(Database.migrate, context)), Layer.orDie)

/**
 * A fresh, migrated database, dropped when the layer is released: test files run in parallel
 * and never see each other's rows.
 */
export const TestDatabase = clientOn.pipe(Layer.provideMerge(TestDatabaseUrlLive))

/** The same, with the client's settings read from `env` (e.g. `DATABASE_STATEMENT_TIMEOUT`). */
export const testDatabaseWith = (env: Record<string, string>) =>
  Layer.unwrapEffect(Effect.map(TestDatabaseUrl, Database.clientLayer)).pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))),
    Layer.tap((context) => Effect.provide(Database.migrate, context)),
    Layer.orDie,
    Layer.provideMerge(TestDatabaseUrlLive)
  )
