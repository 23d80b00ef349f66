import { randomBytes } from "node:crypto"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import type { TestProject } from "vitest/node"
import { type Cluster, ClusterStartError, startCluster } from "../../src/platform/db/EmbeddedPostgres.js"

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
  // Created by startCluster (mode 0700), so that failing to create it is its sentence too.
  const dir = path.join(tmpdir(), `adintel-test-${randomBytes(6).toString("hex")}`)
  const cluster: Cluster = await startCluster({ dataDir: dir, dataDirSetting: "TMPDIR", persistent: false, durable: false }).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined)
    if (!(error instanceof ClusterStartError)) throw error
    // The sentence alone, as `npm start` prints it: vitest would add its own stack trace.
    process.stderr.write(error.message + "\n")
    process.exit(1)
  })
  project.provide("adminDatabaseUrl", cluster.adminUrl)
  return async () => {
    await cluster.stop()
    await rm(dir, { recursive: true, force: true })
  }
}
