import { describe } from "@effect/vitest"
import { fanoutLine, runsToItsEnd } from "../support/Benchmark.js"

/** On a Citus coordinator and two workers (issue 45); a file of its own, so that it runs beside the others. */
describe("benchmarks at the small scale, on a Citus cluster", () => {
  // Distributed tables of 1, 4 and 16 shards beside the service's own 32.
  runsToItsEnd("bench/fanout.ts", { BENCH_SAMPLES: "10", BENCH_DATABASES: "citus" }, [
    /^ {2}copied into a distributed table of 16 shards in [\d.]+ s$/m,
    /^ +shards +n +p50 ms/m,
    fanoutLine(1, "1\\.00"),
    fanoutLine(32)
  ])
})
