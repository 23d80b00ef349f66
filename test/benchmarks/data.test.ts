import { describe } from "@effect/vitest"
import { runsToItsEnd } from "../support/Benchmark.js"

describe("benchmarks at the small scale", () => {
  runsToItsEnd("bench/data.ts", {}, [
    /^ads +\d+ records +load +\d+\/s as NDJSON +\(generate and serialise alone \d+\/s, \d+ bytes a line\) +[\d.]+ s +rejected 0$/m,
    /database alone \d+\/s \(writes of pre-validated batches\): load is [\d.]+ of it/,
    /^ {2}Node +\d+ +parse and line checks [\d.]+ alone, schema validation [\d.]+ alone, the rest -?[\d.]+ \(/m,
    /^ {2}PostgreSQL +\d+ +the write plan \d+ alone: the full-text vector -?[\d.]+ alone, the \d+ secondary indexes -?\d+ \(the plan without them\), the rest -?\d+; the import's other work -?\d+$/m,
    /^ {2}in all +\d+ +at most \d+ ads\/s on two cores \(the import ran at \d+; 10,000 needs <= 200\)$/m,
    /^\d+ query shape\(s\) do not use their index\.$|^All query shapes use their index\.$/m
  ])
})
