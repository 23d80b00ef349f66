import { ConfigProvider, Effect, Layer } from "effect"
import { inject } from "vitest"
import * as Database from "../../src/platform/db/Database.js"
import { clientOn, createDatabase, databaseName, databaseUrl, dropDatabase, newDatabaseId, TestDatabaseUrl } from "./RunDatabases.js"

export { clientOn, TestDatabaseUrl } from "./RunDatabases.js"

/**
 * A fresh database cloned from the template `template` names (in the cloning file's worker),
 * dropped with the scope: a clone is a file copy, where migrating anew took a second or more.
 */
export const cloneOf = (template: Effect.Effect<string>) =>
  Layer.scoped(
    TestDatabaseUrl,
    Effect.gen(function*() {
      const adminUrl = inject("adminDatabaseUrl")
      const source = yield* template
      const name = databaseName("test", newDatabaseId())
      yield* Effect.acquireRelease(createDatabase(adminUrl, name, source), () => dropDatabase(adminUrl, name))
      return databaseUrl(adminUrl, name)
    })
  )

/** A fresh database of the run, already migrated: a clone of the template the global setup migrated. */
export const TestDatabaseUrlLive = cloneOf(Effect.sync(() => databaseName("template", inject("testRunId"))))

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
