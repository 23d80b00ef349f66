import { describe } from "@effect/vitest"
import { runsToItsEnd, timed } from "../support/Benchmark.js"

describe("benchmarks at the small scale", () => {
  // A streaming replica serving the research reads (issue 31, R1): the searches and the landers
  // (BENCH_PARTS), the reads it serves; the other parts read what the default run's test reads.
  runsToItsEnd("bench/ads.ts", { BENCH_REPLICA: "1", BENCH_PARTS: "searches,landers", BENCH_SAMPLES: "3", BENCH_WALKS: "1", BENCH_WALK_PAGES: "3" }, [
    /^ {2}a streaming replica serves the research reads \(BENCH_REPLICA=1, DATABASE_REPLICA_URLS\)$/m,
    timed("keyword + 2 filters"),
    timed("landers: filters, most ads")
  ])
})
