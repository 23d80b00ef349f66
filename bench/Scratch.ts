import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { ensureDatabase, startCluster } from "../src/db/EmbeddedPostgres.js"

/** A fresh embedded PostgreSQL with one database, removed after `use` whatever happens. */
export const withScratchDatabase = async <A>(name: string, use: (url: string, dir: string) => Promise<A>): Promise<A> => {
  const dir = await mkdtemp(path.join(tmpdir(), `adintel-${name}-`))
  const cluster = await startCluster({ dataDir: dir, persistent: false })
  try {
    await ensureDatabase(cluster.adminUrl, name)
    return await use(cluster.urlFor(name), dir)
  } finally {
    await cluster.stop()
    await rm(dir, { recursive: true, force: true })
  }
}

/** Runs a benchmark's main function; a failure prints and exits 1. */
export const runBench = (main: () => Promise<void>) =>
  main().catch((error) => {
    console.error(error)
    process.exit(1)
  })
