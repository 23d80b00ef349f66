import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as path from "node:path"
import { inject } from "vitest"
import { citusInstalled } from "./CitusCluster.js"
import { databaseName } from "./RunDatabases.js"

/**
 * Benchmarks run at every scale; the tests in `test/benchmarks/` run each at `small`, briefly, so
 * none can rot (issue 29): each `bench:*` script runs to its end and prints its figures, from
 * the run's compiled tree and on the run's cluster. Their
 * figures are measured by `npm run bench*`, never asserted here; what is asserted is that every
 * request answered 200 (the scripts stop at the first that does not) and that each figure the
 * script reports is there. One file per script, so that they run side by side.
 */

/** `bench/<script>` run to its end at BENCH_SCALE=small, as `npm run bench*` runs it: its exit code and output. */
export const bench = (script: string, env: Record<string, string>) =>
  Effect.async<{ readonly code: number; readonly output: string }>((resume) => {
    execFile(
      process.execPath,
      // The script as JavaScript (CompiledTree.ts): it starts its server from the same tree.
      [path.join(inject("compiledTree"), script.replace(/\.ts$/, ".js"))],
      {
        // The run's cluster holds the scratch database, cloned from its migrated template (bench/Scratch.ts).
        env: { ...process.env, BENCH_SCALE: "small", BENCH_ADMIN_URL: inject("adminDatabaseUrl"), BENCH_TEMPLATE: databaseName("template", inject("testRunId")), ...env },
        maxBuffer: 16 * 1024 * 1024, timeout: 170_000 },
      (error, stdout, stderr) => resume(Effect.succeed({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }))
    )
  })

/**
 * A figure line: the shape's name, then n, p50 and p95 in ms, the ratio to the run's baseline,
 * and PostgreSQL's CPU ms a call (the benchmark's embedded PostgreSQL runs on this machine).
 */
export const timed = (shape: string) =>
  new RegExp(`^${shape.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} +\\d+ +[\\d.]+ +[\\d.]+ +[\\d.]+x +\\d+\\.\\d\\d$`, "m")

export const ms = "[\\d.]+ ms"

/** A figure line of bench/fanout.ts: N, n, p50, p95, the ratio to N = 1's p95, rows read, and the CPU ms a search. */
export const fanoutLine = (n: number, ratio = "[\\d.]+") => new RegExp(`^ +${n} +\\d+ +[\\d.]+ +[\\d.]+ +${ratio}x +[\\d,]+ +\\d+\\.\\d\\d$`, "m")

/** The test of one script: it runs to its end (exit 0) and prints every line of `prints`. */
export const runsToItsEnd = (script: string, env: Record<string, string>, prints: ReadonlyArray<RegExp>) => {
  const mode = Object.entries(env).filter(([name]) => ["BENCH_COUNTING", "BENCH_REPLICA", "BENCH_DATABASES"].includes(name))
    .map(([name, value]) => ` (${name}=${value})`).join("")
  // On a Citus cluster (issue 45) where Citus is installed (`.ci/run` installs it).
  it.live.skipIf(env["BENCH_DATABASES"]?.includes("citus") === true && !citusInstalled())(`${script}${mode}: runs to its end with every figure printed`, () =>
    Effect.gen(function*() {
      const { code, output } = yield* bench(script, env)
      expect(code, output.slice(-3_000)).toBe(0)
      for (const line of prints) expect(output).toMatch(line)
    }), { timeout: 180_000 })
}
