import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { bench } from "../support/Benchmark.js"

describe("benchmarks at the small scale", () => {
  it.live("bench:soak: every interval's figures and the summary, no timeout and no error", () =>
    Effect.gen(function*() {
      // Three intervals of 1 s: enough for a first and a last that are not the same one (each
      // second of it is both cores' worth of load on the suite's machine).
      const { code, output } = yield* bench("bench/soak.ts", { BENCH_MINUTES: "0.05", BENCH_INTERVAL_SECONDS: "1", BENCH_ACCOUNTS: "20" })
      expect(code, output.slice(-2_000)).toBe(0)
      const rows = output.split("\n").filter((line) => /^#\d+ /.test(line))
      expect(rows).toHaveLength(3)
      for (const line of rows) expect(line).toMatch(/req\/s .* non-2xx +\d+ +errors +0 +timeouts +0 +RSS +\d+ MB$/)
      expect(output).toMatch(/Last \/ first: req\/s [\d.]+x, p99 [\d.]+x, RSS [\d.]+x; timeouts in all 0, errors 0, non-2xx 0/)
    }), { timeout: 180_000 })
})
