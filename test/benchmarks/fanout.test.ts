import { describe } from "@effect/vitest"
import { runsToItsEnd } from "../support/Benchmark.js"

describe("benchmarks at the small scale", () => {
  runsToItsEnd("bench/fanout.ts", { BENCH_SAMPLES: "20" }, [
    /^ {2}copied into 16 hash partitions in [\d.]+ s$/m,
    /^ +1 +\d+ +[\d.]+ +[\d.]+ +1\.00x +[\d,]+$/m,
    /^ +16 +\d+ +[\d.]+ +[\d.]+ +[\d.]+x +[\d,]+$/m
  ])
})
