import { describe } from "@effect/vitest"
import { runsToItsEnd, timed } from "../support/Benchmark.js"

describe("benchmarks at the small scale", () => {
  // The server counting the import's trends as it goes, as a deployment imports; the searches
  // only (BENCH_PARTS): the other parts read what the default run's test reads.
  runsToItsEnd("bench/ads.ts", { BENCH_COUNTING: "alongside", BENCH_PARTS: "searches", BENCH_SAMPLES: "3", BENCH_WALKS: "1", BENCH_WALK_PAGES: "3" }, [
    /^ {2}imported in [\d.]+ s \(the server counting alongside\)$/m,
    /^ {2}trends counted alongside, and the rest counted and ranked [\d.]+ s after the import; live \d+ s after the start/m,
    timed("keyword + 2 filters")
  ])
})
