import { Effect, type Scope } from "effect"
import { existsSync } from "node:fs"
import { readFile } from "node:fs/promises"
import * as path from "node:path"
import { type Cluster, startCluster } from "../../src/platform/db/EmbeddedPostgres.js"
import { withAdmin } from "./RunDatabases.js"

/** Debian's PostgreSQL 15, which Citus's build is installed into (15.20 or later; SPEC-NOTES "Citus in the tests"). */
export const citusPrograms = "/usr/lib/postgresql/15/bin"

/** Whether Citus is installed here (`.ci/run` installs it when missing). */
export const citusInstalled = () => existsSync(path.join(citusPrograms, "postgres")) && existsSync("/usr/lib/postgresql/15/lib/citus.so")

/** A coordinator and its workers: each node's cluster, the coordinator's first. */
export interface CitusCluster {
  readonly coordinator: Cluster
  readonly workers: ReadonlyArray<Cluster>
  /**
   * Starts worker `index` (from 0) again on its data after it stopped (`stopNode`), on a new
   * port, and tells the coordinator where it is now (`citus_update_node`); stopped with the scope.
   */
  readonly restartWorker: (index: number) => Effect.Effect<Cluster, never, Scope.Scope>
}

/** Stops a node as a crash of its server would, its data kept: PostgreSQL's fast shutdown, waited for. */
export const stopNode = (node: Cluster) =>
  Effect.promise(async () => {
    const pid = Number((await readFile(path.join(node.dir, "postmaster.pid"), "utf8")).split("\n")[0])
    process.kill(pid, "SIGINT")
    for (let waited = 0; waited < 30_000; waited += 100) {
      try {
        process.kill(pid, 0)
      } catch {
        return
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    throw new Error(`the node's server (pid ${pid}) did not stop within 30 s`)
  })

/** Host and port of a node, as the other nodes reach it. */
const addressOf = (node: Cluster) => {
  const url = new URL(node.adminUrl)
  return { host: "127.0.0.1", port: Number(url.port) }
}

/**
 * A Citus cluster for tests on this machine (issue 45): `workers` + 1 nodes of Debian's
 * PostgreSQL 15 with Citus preloaded, each an embedded cluster in `dir` without durability, the
 * extension created on each, the coordinator told its own address and the workers added. Stopped
 * and removed with the scope. The nodes connect to each other as `postgres` with the
 * coordinator's password: each node's is set to it, and each node's `pg_dist_authinfo` gives it
 * for every node (Citus's own way to pass a password between nodes).
 */
export const citusCluster = (dir: string, workers = 2) =>
  Effect.gen(function*() {
    const node = (name: string) =>
      Effect.acquireRelease(
        Effect.promise(() => startCluster({
          dataDir: path.join(dir, name),
          persistent: false,
          durable: false,
          sharedBuffers: "128MB",
          programsDir: citusPrograms,
          settings: ["shared_preload_libraries=citus", "max_worker_processes=16"],
          // `CITUS_LOG=1`: each node's server log on stderr, to see the statement Citus refused.
          onLog: (text) => {
            if (process.env["CITUS_LOG"]) process.stderr.write(`[${name}] ${text}`)
          }
        })),
        (c) => Effect.promise(() => c.stop())
      )
    const coordinator = yield* node("coordinator")
    // One after another: two nodes started at once could be given the same free port (seen: one then failed to bind it).
    const nodes = yield* Effect.forEach(Array.from({ length: workers }, (_, i) => `worker-${i + 1}`), node)
    const password = decodeURIComponent(new URL(coordinator.adminUrl).password)
    const withPassword = (url: string) => {
      const next = new URL(url)
      next.password = encodeURIComponent(password)
      return next.toString()
    }
    for (const each of [coordinator, ...nodes]) {
      yield* withAdmin(each.adminUrl, async (client) => {
        await client.query("create extension if not exists citus")
        await client.query(`alter role postgres password ${client.escapeLiteral(password)}`)
        await client.query("insert into pg_dist_authinfo (nodeid, rolename, authinfo) values (0, 'postgres', $1)", [`password=${password}`])
      })
    }
    yield* withAdmin(coordinator.adminUrl, async (client) => {
      const own = addressOf(coordinator)
      await client.query("select citus_set_coordinator_host($1, $2)", [own.host, own.port])
      for (const worker of nodes) {
        const { host, port } = addressOf(worker)
        await client.query("select citus_add_node($1, $2)", [host, port])
      }
    })
    const sharing = (node: Cluster): Cluster => ({ ...node, adminUrl: withPassword(node.adminUrl), urlFor: (database) => withPassword(node.urlFor(database)) })
    const restartWorker = (index: number) =>
      Effect.gen(function*() {
        const before = addressOf(nodes[index]!)
        const again = yield* node(`worker-${index + 1}`)
        const now = addressOf(again)
        yield* withAdmin(coordinator.adminUrl, (client) =>
          client.query("select citus_update_node(nodeid, $1, $2) from pg_dist_node where nodeport = $3", [now.host, now.port, before.port]))
        return sharing(again)
      })
    return { coordinator, workers: nodes.map(sharing), restartWorker } satisfies CitusCluster
  })
