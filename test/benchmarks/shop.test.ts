import { describe } from "@effect/vitest"
import { runsToItsEnd, timed } from "../support/Benchmark.js"

describe("benchmarks at the small scale", () => {
  runsToItsEnd("bench/shop.ts", { BENCH_SAMPLES: "3" }, [
    timed("products explore, 30-day GMV, category + price"),
    timed("product 365-day history"),
    timed("suggestions, 3-letter prefix")
  ])
})
