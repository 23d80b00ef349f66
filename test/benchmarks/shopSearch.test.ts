import { describe } from "@effect/vitest"
import { runsToItsEnd } from "../support/Benchmark.js"

describe("benchmarks at the small scale", () => {
  runsToItsEnd("bench/shopSearch.ts", { BENCH_RUNS: "1" }, [/^ {2}prefix "serum" +median +[\d.]+ ms +worst +[\d.]+ ms +\d+ statement\(s\)/m])
})
