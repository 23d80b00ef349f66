import { describe } from "@effect/vitest"
import { runsToItsEnd } from "../support/Benchmark.js"

describe("benchmarks at the small scale", () => {
  runsToItsEnd("bench/savedSearches.ts", {}, [
    /^ {2}imported \d+ ads in [\d.]+ s \(\d+ ads\/s\), \d+ batch transactions$/m,
    /^ {2}matching pass: [\d.]+ s over the batches, [\d.]+ s telling at the import's end, \d+ matches of the saved searches, \d+ of their \d+ distinct queries \(\d+ stored\), [1-9]\d* events$/m,
    /^ {2}digests: matches [0-9a-f]{32}, events' counts [0-9a-f]{32}$/m,
    /^ {2}saved-search tables: [\d.]+ MB, [\d.]+ bytes a match of the saved searches$/m,
    /^ {2}saved-search matching: [\d.]+ of the import's own time \(goal <= 0\.25\); with the brand diffs [\d.]+$/m
  ])
})
