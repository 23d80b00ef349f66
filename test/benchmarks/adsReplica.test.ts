import { describe } from "@effect/vitest"
import { runsToItsEnd, timed } from "../support/Benchmark.js"

describe("benchmarks at the small scale", () => {
  // A streaming replica serving the research reads (issue 31, R1).
  runsToItsEnd("bench/ads.ts", { BENCH_REPLICA: "1", BENCH_SAMPLES: "3", BENCH_WALKS: "1", BENCH_WALK_PAGES: "3" }, [
    /^ {2}a streaming replica serves the research reads \(BENCH_REPLICA=1, DATABASE_REPLICA_URLS\)$/m,
    timed("keyword + 2 filters"),
    timed("landers: filters, most ads")
  ])
})
