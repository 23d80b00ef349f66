import { describe } from "@effect/vitest"
import { runsToItsEnd } from "../support/Benchmark.js"

/** On a Citus coordinator and two workers (issue 45); a file of its own, so that it runs beside the others. */
describe("benchmarks at the small scale, on a Citus cluster", () => {
  // The ads' import with each node's CPU an ad.
  runsToItsEnd("bench/data.ts", { BENCH_DATABASES: "citus", BENCH_ENTITIES: "stores,landers,advertisers,ads" }, [
    /^ads +\d+ records +load +\d+\/s as NDJSON/m,
    /^ +CPU an ad, by node: coordinator \d+ µs, worker 1 \d+ µs, worker 2 \d+ µs$/m,
    /^ {2}in all +\d+ +at most \d+ ads\/s on two cores/m
  ])
})
