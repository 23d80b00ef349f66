import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "@effect/sql"
import { execFile } from "node:child_process"
import { writeFile } from "node:fs/promises"
import * as path from "node:path"
import { flagshipAdCount } from "../src/demo/FlagshipBrand.js"
import { scales } from "../src/demo/World.js"
import * as World from "./fixtures/world.js"
import { clientOn, TestDatabaseUrl, TestDatabaseUrlLive } from "./support/TestDatabase.js"
import { tempDir } from "./support/TempDir.js"
import { call, keyHeader, signIn, testServer } from "./support/TestServer.js"

/** Runs `npm run admin -- <args>` as an operator would, against the test database. */
const admin = (...args: Array<string>) =>
  Effect.flatMap(TestDatabaseUrl, (url) =>
    Effect.promise(() =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          ["--import", "tsx", "src/cli.ts", ...args],
          {
            env: { ...process.env, DATABASE_URL: Redacted.value(url), KEY_ENCRYPTION_SECRET: "test-key-encryption-secret-0123456789", NO_COLOR: "1" },
            timeout: 60_000
          },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr })
        )
      })
    ))

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

        const shown = yield* admin("accounts", "show", "ops@example.com")
        expect(JSON.parse(shown.stdout).credits).toEqual({
          used: 1,
          limit: 5000,
          remaining: 4999,
          addon_remaining: 0,
          total_remaining: 4999
        })
        const key = yield* admin("accounts", "show-key", account.id)
        expect(JSON.parse(key.stdout)).toEqual({ api_key: account.api_key })

        const refused = yield* admin("accounts", "add-credits", "ops@example.com", "--amount", "0")
        expect([refused.code, refused.stderr.trim()]).toEqual([1, "error: amount: must be an integer from 1 to 10000000"])
        const missing = yield* admin("accounts", "show", "nobody@example.com")
        expect([missing.code, missing.stderr.trim()]).toEqual([1, "error: Account not found"])

        // A password for the key page: sign-in works with it; a new one ends open sessions.
        const short = yield* admin("accounts", "set-password", "ops@example.com", "--password", "short")
        expect([short.code, short.stderr.trim()]).toEqual([1, "error: password: must be 8 to 200 characters"])
        expect((yield* admin("accounts", "set-password", "ops@example.com", "--password", "first password")).code).toBe(0)
        const session = yield* signIn("ops@example.com", "first password")
        expect((yield* call("/api/usage", { headers: session })).status).toBe(200)
        expect((yield* admin("accounts", "set-password", account.id, "--password", "second password")).code).toBe(0)
        expect((yield* call("/api/usage", { headers: session })).status).toBe(401)
        expect((yield* call("/api/usage", { headers: yield* signIn("ops@example.com", "second password") })).status).toBe(200)
      }), 120_000)

    it.scoped("imports an NDJSON file and loads a demo world, with a report", () =>
      Effect.gen(function*() {
        const file = path.join(yield* tempDir("cli"), "stores.ndjson")
        yield* Effect.promise(() => writeFile(file, World.ndjson(World.stores) + `{"external_id":"x"}\n`))
        const imported = yield* admin("import", "stores", file)
        expect(imported.code).toBe(1)
        expect(JSON.parse(imported.stdout)).toEqual({ accepted: 1, rejected: 1, errors: [{ line: 2, error: "domain is missing" }] })
        expect(imported.stderr).toContain("error: 1 line(s) refused (listed above); the others are stored")
        // Where it was read to, how fast and how long is left: in a log, the last state at the end (issue 29).
        expect(imported.stderr).toMatch(/^import stores 100% [\d,]+ \/ [\d,]+ bytes, [\d,]+\/s, ETA 0:00 \(2 records, [\d,]+\/s: 1 accepted, 1 rejected\)$/m)

        const demo = yield* admin("demo", "--scale", "small", "--seed", "5")
        expect(demo.code).toBe(0)
        const ads = scales.small.ads + flagshipAdCount(scales.small)
        expect(demo.stdout).toMatch(new RegExp(`^ads\\s+${ads} records$`, "m"))
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ n: number }>`select count(*)::int as n from ads`
        expect(row!.n).toBe(ads)
        // The demo's creatives come hashed: nothing for the hasher to fetch.
        const hashed = yield* admin("creatives", "hash")
        expect([hashed.code, hashed.stdout.trim()]).toEqual([0, `{"hashed":0,"failed":0}`])
        const bad = yield* admin("creatives", "hash", "--limit", "0")
        expect([bad.code, bad.stderr.trim()]).toEqual([1, "error: --limit must be at least 1"])
      }), 120_000)

    it.effect("prints help", () =>
      Effect.gen(function*() {
        const help = yield* admin("accounts", "create", "--help")
        expect(help.code).toBe(0)
        expect(help.stdout).toContain("--email")
        expect(help.stdout).toContain("--plan")
      }), 60_000)
  })
})
