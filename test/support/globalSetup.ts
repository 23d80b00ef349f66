import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import type { TestProject } from "vitest/node"
import { type Cluster, startCluster } from "../../src/db/EmbeddedPostgres.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** A connection URL with the right to create databases: one database per test file. */
    readonly adminDatabaseUrl: string
  }
}

/** One PostgreSQL server per test run: `DATABASE_URL` when set, else an embedded one. */
export default async function setup(project: TestProject) {
  const external = process.env["DATABASE_URL"]
  if (external) {
    project.provide("adminDatabaseUrl", external)
    return
  }
  const dir = await mkdtemp(path.join(tmpdir(), "adintel-test-"))
  const cluster: Cluster = await startCluster({ dataDir: dir, persistent: false })
  project.provide("adminDatabaseUrl", cluster.adminUrl)
  return async () => {
    await cluster.stop()
    await rm(dir, { recursive: true, force: true })
  }
}
