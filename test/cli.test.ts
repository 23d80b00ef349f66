import { describe, expect, layer } from "@effect/vitest"
import { NodeContext } from "@effect/platform-node"
import { Console, Effect, Exit, Layer, Redacted } from "effect"
import { SqlClient } from "@effect/sql"
import { execFile } from "node:child_process"
import { writeFile } from "node:fs/promises"
import * as path from "node:path"
import { inject } from "vitest"
import { AdminServices, runAdmin } from "../src/app/Admin.js"
import { flagshipAdCount } from "../src/demo/FlagshipBrand.js"
import { AppConfig } from "../src/platform/AppConfig.js"
import { scales } from "../src/demo/World.js"
import * as World from "./fixtures/world.js"
import { clientOn, TestDatabaseUrl, TestDatabaseUrlLive } from "./support/TestDatabase.js"
import { tempDir } from "./support/TempDir.js"
import { call, keyHeader, signIn, testEnvironment, testServer } from "./support/TestServer.js"

/**
 * Runs the CLI as a process, as `npm run admin -- <args>` does, against the test database: from
 * the run's compiled tree (test/support/CompiledTree.ts), built as `npm run admin` builds it
 * (scripts/programs.mjs; test/run.test.ts runs that), once for the whole run.
 */
const admin = (...args: Array<string>) =>
  Effect.flatMap(TestDatabaseUrl, (url) =>
    Effect.promise(() =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          [path.join(inject("compiledTree"), "src", "cli.js"), ...args],
          {
            env: { ...process.env, DATABASE_URL: Redacted.value(url), KEY_ENCRYPTION_SECRET: "test-key-encryption-secret-0123456789", NO_COLOR: "1" },
            timeout: 60_000
          },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr })
        )
      })
    ))

/**
 * The same commands run here rather than in a process of their own (`src/app/Admin.ts`, what
 * `src/cli.ts` runs): their own services on the test database, their output captured, a failure
 * exit code 1. A cold start of the CLI costs seconds; the account's creation, the import and the
 * demo still run as the operator runs them (`admin` above), so the CLI as a process is proven too.
 */
const adminHere = (...args: Array<string>) =>
  Effect.gen(function*() {
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    const line = (to: Array<string>) => (...parts: ReadonlyArray<unknown>) => Effect.sync(() => void to.push(`${parts.join(" ")}\n`))
    const console: Console.Console = { ...(yield* Effect.console), log: line(stdout), error: line(stderr) }
    const services = Layer.mergeAll(AdminServices, NodeContext.layer).pipe(Layer.provide(AppConfig.layer), Layer.provide(testEnvironment()))
    const exit = yield* Effect.exit(runAdmin(["node", "src/cli.ts", ...args], services).pipe(Effect.withConsole(console)))
    return { code: Exit.isSuccess(exit) ? 0 : 1, stdout: stdout.join(""), stderr: stderr.join("") }
  })

const server = testServer().pipe(Layer.provideMerge(clientOn), Layer.provideMerge(TestDatabaseUrlLive))

describe("admin CLI (npm run admin)", () => {
  layer(server, { timeout: 120_000 })((it) => {
    it.effect("creates an account whose key the server accepts, shows it, refuses bad input", () =>
      Effect.gen(function*() {
        const created = yield* admin("accounts", "create", "--email", "ops@example.com", "--plan", "pro")
        expect(created.code).toBe(0)
        const account = JSON.parse(created.stdout)
        expect(account).toMatchObject({ email: "ops@example.com", plan: "pro" })
        expect((yield* call("/api/v1/credits", keyHeader(account.api_key))).status).toBe(200)

        const shown = yield* adminHere("accounts", "show", "ops@example.com")
        expect(JSON.parse(shown.stdout).credits).toEqual({
          used: 1,
          limit: 5000,
          remaining: 4999,
          addon_remaining: 0,
          total_remaining: 4999
        })
        const key = yield* adminHere("accounts", "show-key", account.id)
        expect(JSON.parse(key.stdout)).toEqual({ api_key: account.api_key })

        const refused = yield* adminHere("accounts", "add-credits", "ops@example.com", "--amount", "0")
        expect([refused.code, refused.stderr.trim()]).toEqual([1, "error: amount: must be an integer from 1 to 10000000"])
        const missing = yield* adminHere("accounts", "show", "nobody@example.com")
        expect([missing.code, missing.stderr.trim()]).toEqual([1, "error: Account not found"])

        // A password for the key page: sign-in works with it; a new one ends open sessions.
        const short = yield* adminHere("accounts", "set-password", "ops@example.com", "--password", "short")
        expect([short.code, short.stderr.trim()]).toEqual([1, "error: password: must be 8 to 200 characters"])
        expect((yield* adminHere("accounts", "set-password", "ops@example.com", "--password", "first password")).code).toBe(0)
        const session = yield* signIn("ops@example.com", "first password")
        expect((yield* call("/api/usage", { headers: session })).status).toBe(200)
        expect((yield* adminHere("accounts", "set-password", account.id, "--password", "second password")).code).toBe(0)
        expect((yield* call("/api/usage", { headers: session })).status).toBe(401)
        expect((yield* call("/api/usage", { headers: yield* signIn("ops@example.com", "second password") })).status).toBe(200)
      }), 120_000)

    it.scoped("imports an NDJSON file and loads a demo world, with a report", () =>
      Effect.gen(function*() {
        const file = path.join(yield* tempDir("cli"), "stores.ndjson")
        yield* Effect.promise(() => writeFile(file, World.ndjson(World.stores) + `{"external_id":"x"}\n`))
        // The file's store is none of the demo's: the two commands run at once, as two operators' would.
        const [imported, demo] = yield* Effect.all([admin("import", "stores", file), admin("demo", "--scale", "small", "--seed", "5")], { concurrency: 2 })
        expect(imported.code).toBe(1)
        expect(JSON.parse(imported.stdout)).toEqual({ accepted: 1, rejected: 1, errors: [{ line: 2, error: "domain is missing" }] })
        expect(imported.stderr).toContain("error: 1 line(s) refused (listed above); the others are stored")
        // Where it was read to, how fast and how long is left: in a log, the last state at the end (issue 29).
        expect(imported.stderr).toMatch(/^import stores 100% [\d,]+ \/ [\d,]+ bytes, [\d,]+\/s, ETA 0:00 \(2 records, [\d,]+\/s: 1 accepted, 1 rejected\)$/m)

        expect(demo.code).toBe(0)
        const ads = scales.small.ads + flagshipAdCount(scales.small)
        expect(demo.stdout).toMatch(new RegExp(`^ads\\s+${ads} records$`, "m"))
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ n: number }>`select count(*)::int as n from ads`
        expect(row!.n).toBe(ads)
        // The demo's creatives come hashed: nothing for the hasher to fetch.
        const hashed = yield* adminHere("creatives", "hash")
        expect([hashed.code, hashed.stdout.trim()]).toEqual([0, `{"hashed":0,"failed":0}`])
        const bad = yield* adminHere("creatives", "hash", "--limit", "0")
        expect([bad.code, bad.stderr.trim()]).toEqual([1, "error: --limit must be at least 1"])
      }), 120_000)

    it.effect("prints help", () =>
      Effect.gen(function*() {
        const help = yield* adminHere("accounts", "create", "--help")
        expect(help.code).toBe(0)
        expect(help.stdout).toContain("--email")
        expect(help.stdout).toContain("--plan")
      }), 60_000)
  })
})
