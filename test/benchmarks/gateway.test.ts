import { describe } from "@effect/vitest"
import { runsToItsEnd } from "../support/Benchmark.js"

describe("benchmarks at the small scale", () => {
  runsToItsEnd(
    "bench/gateway.ts",
    // Enough accounts that no one of them meets its rate limit in a one-second round.
    { BENCH_ACCOUNTS: "200", BENCH_SECONDS: "1", BENCH_ROUNDS: "1" },
    [
      /^GET \/health \(unmetered\) +\d+ req\/s +p50 +\d+ ms +p99 +\d+ ms +non-2xx 0$/m,
      /^GET \/api\/v1\/credits +\d+ req\/s +p50 +\d+ ms +p99 +\d+ ms +non-2xx 0$/m,
      /^ratio metered\/unmetered \(req\/s\): [\d.]+ /m
    ]
  )
})
