import { describe } from "@effect/vitest"
import { ms, runsToItsEnd, timed } from "../support/Benchmark.js"

/** On a Citus coordinator and two workers (issue 45); a file of its own, so that it runs beside the others. */
describe("benchmarks at the small scale, on a Citus cluster", () => {
  // The searches and the lander library, their CPU every node's together.
  runsToItsEnd("bench/ads.ts", { BENCH_DATABASES: "citus", BENCH_PARTS: "searches,landers", BENCH_SAMPLES: "3", BENCH_WALKS: "1", BENCH_WALK_PAGES: "3" }, [
    /^== Citus: a coordinator and two workers on this machine/m,
    timed("keyword + 2 filters"),
    timed("scroll page 3 (deepest walked)"),
    timed("landers: filters, most ads"),
    new RegExp(`^searches p95: keyword ${ms}, filters ${ms}`, "m")
  ])
})
