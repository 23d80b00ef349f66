import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"

/**
 * Benchmarks run at every scale; here at `small`, briefly, so none can rot: each runs to its end
 * and prints its figures. (Their figures are measured by `npm run bench*`, never asserted here.)
 */

const bench = (script: string, env: Record<string, string>) =>
  Effect.async<{ readonly code: number; readonly output: string }>((resume) => {
    execFile(
      process.execPath,
      ["--import", "tsx", script],
      { env: { ...process.env, BENCH_SCALE: "small", ...env }, maxBuffer: 16 * 1024 * 1024, timeout: 170_000 },
      (error, stdout, stderr) => resume(Effect.succeed({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }))
    )
  })

describe("benchmarks at the small scale", () => {
  it.live("bench:soak: every interval's figures and the summary, no timeout and no error", () =>
    Effect.gen(function*() {
      const { code, output } = yield* bench("bench/soak.ts", { BENCH_MINUTES: "0.2", BENCH_INTERVAL_SECONDS: "4", BENCH_ACCOUNTS: "20" })
      expect([code, output.slice(-2_000)]).toEqual([0, expect.any(String)])
      const rows = output.split("\n").filter((line) => /^#\d+ /.test(line))
      expect(rows).toHaveLength(3)
      for (const line of rows) expect(line).toMatch(/req\/s .* non-2xx +\d+ +errors +0 +timeouts +0 +RSS +\d+ MB$/)
      expect(output).toMatch(/Last \/ first: req\/s [\d.]+x, p99 [\d.]+x, RSS [\d.]+x; timeouts in all 0, errors 0, non-2xx 0/)
    }), { timeout: 180_000 })
})
