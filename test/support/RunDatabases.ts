import { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import pg from "pg"
import * as Database from "../../src/platform/db/Database.js"
import type { ReadSql, ReadYourWrites, ReplicaHealth } from "../../src/platform/db/Replicas.js"

// The run's databases, without vitest's worker state: the global setup uses this module too (it
// cannot import "vitest"); `TestDatabase.ts` gives files their databases from it.

/**
 * The databases a test run makes, by kind: a file's own (`test`), the migrated template
 * (`template`), the small world's template and the one it is loaded into (`world`, `worldload`).
 * A closed form, since a database name cannot be a query parameter.
 */
export type RunDatabase = "test" | "template" | "world" | "worldload"
const runDatabaseName = /^adintel_(test|template|world|worldload)_[0-9a-f]{12}$/

/** `adintel_<kind>_<id>`, `id` 12 hex digits (the run's id, or a file's own). */
export const databaseName = (kind: RunDatabase, id: string) => {
  const name = `adintel_${kind}_${id}`
  if (!runDatabaseName.test(name)) throw new Error(`Not a test database name: ${JSON.stringify(name)}`)
  return name
}

/** A new id for a run or a file's database. */
export const newDatabaseId = () => randomBytes(6).toString("hex")

/** The URL of `database` on the server of `adminUrl`. */
export const databaseUrl = (adminUrl: string, database: string) => {
  const url = new URL(adminUrl)
  url.pathname = `/${database}`
  return Redacted.make(url.toString())
}

/** A client on the run's maintenance database, for `f` only. */
export const withAdmin = <A>(adminUrl: string, f: (client: pg.Client) => Promise<A>) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: adminUrl })
    await client.connect()
    try {
      return await f(client)
    } finally {
      await client.end()
    }
  })

/** `database` made a copy of `template` (which nobody may be connected to meanwhile). */
export const createDatabase = (adminUrl: string, database: string, template: string) =>
  withAdmin(adminUrl, (client) => client.query(`create database ${pg.escapeIdentifier(database)} template ${pg.escapeIdentifier(template)}`))

export const dropDatabase = (adminUrl: string, database: string) =>
  withAdmin(adminUrl, (client) => client.query(`drop database if exists ${pg.escapeIdentifier(database)} with (force)`))

/**
 * A template finished: no one may connect to it any more. A session left on it would make every
 * clone fail ("being accessed by other users"); this way that session's own connect fails instead.
 */
export const sealTemplate = (adminUrl: string, database: string) =>
  withAdmin(adminUrl, (client) => client.query(`alter database ${pg.escapeIdentifier(database)} with allow_connections false`))

/** The URL of a fresh database of the run's PostgreSQL, dropped when the scope closes. */
export class TestDatabaseUrl extends Context.Tag("test/TestDatabaseUrl")<TestDatabaseUrl, Redacted.Redacted>() {}

/**
 * A migrated client on the `TestDatabaseUrl`: what one server process ("replica") holds. It
 * migrates as the server does at start, which on a clone of a migrated template does nothing.
 */
export const clientOn: Layer.Layer<
  PgClient.PgClient | SqlClient.SqlClient | Database.PgListener | Database.DatabasePool | ReadSql | ReplicaHealth | ReadYourWrites,
  never,
  TestDatabaseUrl
> = Layer
  .unwrapEffect(Effect.map(TestDatabaseUrl, Database.clientLayer))
  .pipe(Layer.tap((context) => Effect.provide(Database.migrate, context)), Layer.orDie)

