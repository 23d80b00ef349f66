import { Effect, Layer } from "effect"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import pg from "pg"
import type { TestProject } from "vitest/node"
import { type Cluster, ClusterStartError, startCluster } from "../../src/platform/db/EmbeddedPostgres.js"
import { compiledTreeDir, compileTree } from "./CompiledTree.js"
import { clientOn, databaseName, databaseUrl, dropDatabase, newDatabaseId, type RunDatabase, sealTemplate, TestDatabaseUrl, withAdmin } from "./RunDatabases.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** A connection URL with the right to create databases: one database per test file. */
    readonly adminDatabaseUrl: string
    /** Names this run's template databases (`TestDatabase.databaseName`), unique on a shared server. */
    readonly testRunId: string
    /** The sources as JavaScript (`CompiledTree.ts`): what the benchmarks and restarted servers run. */
    readonly compiledTree: string
  }
}

/** Every database the run may leave on the server besides the files' own (which they drop). */
const runDatabases: ReadonlyArray<RunDatabase> = ["template", "world", "worldload"]

/**
 * The migrations run once, into a template each file's database is cloned from: nobody stays
 * connected to it (a clone fails while someone is), so it is sealed once migrated.
 */
const migratedTemplate = (adminUrl: string, runId: string) =>
  Effect.gen(function*() {
    const template = databaseName("template", runId)
    yield* withAdmin(adminUrl, (client) => client.query(`create database ${pg.escapeIdentifier(template)}`))
    yield* Effect.scoped(Layer.build(clientOn.pipe(Layer.provide(Layer.succeed(TestDatabaseUrl, databaseUrl(adminUrl, template))))))
    yield* sealTemplate(adminUrl, template)
  })

const dropRunDatabases = (adminUrl: string, runId: string) =>
  Effect.forEach(runDatabases, (kind) => dropDatabase(adminUrl, databaseName(kind, runId)), { discard: true })

/** One PostgreSQL server per test run: `DATABASE_URL` when set, else an embedded one without durability. */
export default async function setup(project: TestProject) {
  const runId = newDatabaseId()
  const tree = compiledTreeDir(process.cwd(), runId)
  const removeTree = await compileTree(process.cwd(), tree)
  project.provide("compiledTree", tree)
  const external = process.env["DATABASE_URL"]
  if (external) {
    await Effect.runPromise(migratedTemplate(external, runId))
    project.provide("adminDatabaseUrl", external)
    project.provide("testRunId", runId)
    // Another run may share the server: this run's templates go, nothing else.
    return async () => {
      await Effect.runPromise(dropRunDatabases(external, runId))
      await removeTree()
    }
  }
  // Created by startCluster (mode 0700), so that failing to create it is its sentence too.
  const dir = path.join(tmpdir(), `adintel-test-${runId}`)
  const cluster: Cluster = await startCluster({ dataDir: dir, dataDirSetting: "TMPDIR", persistent: false, durable: false, maxConnections: 400 }).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined)
    await removeTree()
    if (!(error instanceof ClusterStartError)) throw error
    // The sentence alone, as `npm start` prints it: vitest would add its own stack trace.
    process.stderr.write(error.message + "\n")
    process.exit(1)
  })
  const stop = async () => {
    await cluster.stop()
    await rm(dir, { recursive: true, force: true })
    await removeTree()
  }
  await Effect.runPromise(migratedTemplate(cluster.adminUrl, runId)).catch(async (error: unknown) => {
    await stop()
    throw error
  })
  project.provide("adminDatabaseUrl", cluster.adminUrl)
  project.provide("testRunId", runId)
  return stop
}
