import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { bench } from "../support/Benchmark.js"
import { citusInstalled } from "../support/CitusCluster.js"

/** A figure line of bench/citus.ts: the shape, p50, p95, the ratio to the baseline, then CPU ms a call for each of `nodes`. */
const figure = (shape: string, nodes: number) =>
  new RegExp(`^ {2}${shape.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} +[\\d.]+ +[\\d.]+ +[\\d.]+x${" +\\d+\\.\\d\\d".repeat(nodes)}$`, "m")

describe("benchmarks at the small scale", () => {
  // One PostgreSQL, then a Citus coordinator and two workers (issue 45), in one run.
  it.live.skipIf(!citusInstalled())("bench/citus.ts: runs to its end with every figure printed", () =>
    Effect.gen(function*() {
      const { code, output } = yield* bench("bench/citus.ts", { BENCH_SAMPLES: "2" })
      expect(code, output.slice(-3_000)).toBe(0)
      expect(output).toMatch(/^ {2}CPU per ad: PostgreSQL \d+ µs$/m)
      expect(output).toMatch(/^ {2}CPU per ad: coordinator \d+ µs, worker 1 \d+ µs, worker 2 \d+ µs$/m)
      for (const shape of ["baseline: GET /api/v1/credits (the meter)", "keyword + country, newest", "a brand's ads (one shard)", "landers explore, most ads"]) {
        expect(output).toMatch(figure(shape, 1))
        expect(output).toMatch(figure(shape, 3))
      }
    }), { timeout: 180_000 })
})
