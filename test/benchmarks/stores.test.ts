import { describe } from "@effect/vitest"
import { runsToItsEnd, timed } from "../support/Benchmark.js"

describe("benchmarks at the small scale", () => {
  runsToItsEnd("bench/stores.ts", { BENCH_IMAGES: "200", BENCH_SAMPLES: "3" }, [
    timed("visual search, upload + country + platform"),
    timed("store explorer, by revenue"),
    /^source product first: 3 of 3 searches$/m
  ])
})
