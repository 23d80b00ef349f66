import { describe } from "@effect/vitest"
import { runsToItsEnd, timed } from "../support/Benchmark.js"

describe("benchmarks at the small scale", () => {
  runsToItsEnd("bench/brands.ts", { BENCH_SAMPLES: "3" }, [
    timed("GET /api/v1/brands/ads page 2"),
    timed("GET /api/v1/notifications"),
    timed("GET .../unread-count")
  ])
})
