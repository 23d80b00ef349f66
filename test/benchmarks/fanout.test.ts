import { describe } from "@effect/vitest"
import { fanoutLine, runsToItsEnd } from "../support/Benchmark.js"

describe("benchmarks at the small scale", () => {
  runsToItsEnd("bench/fanout.ts", { BENCH_SAMPLES: "20" }, [
    /^ {2}copied into 16 hash partitions in [\d.]+ s$/m,
    fanoutLine(1, "1\\.00"),
    fanoutLine(16)
  ])
})
