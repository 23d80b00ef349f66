import { describe } from "@effect/vitest"
import { ms, runsToItsEnd, timed } from "../support/Benchmark.js"

describe("benchmarks at the small scale", () => {
  // Every part but the brand tracker and inbox (BENCH_PARTS), which is bench/brands.ts's own
  // measure: its test runs it (brands.test.ts).
  runsToItsEnd("bench/ads.ts", { BENCH_PARTS: "searches,brand-tabs,landers,window-move", BENCH_SAMPLES: "3", BENCH_WALKS: "1", BENCH_WALK_PAGES: "3" }, [
    timed("keyword + 2 filters"),
    timed("filters only, newest"),
    timed("magic-ai text"),
    timed("scroll page 3 (deepest walked)"),
    timed("brand tab transcripts"),
    timed("trends: topics, scoped"),
    /^ {2}imported in [\d.]+ s \(the trends counted beside the creatives in [\d.]+ s\)$/m,
    /^ {2}trends counted and ranked in [\d.]+ s: \d+ ads\/s, [\d.]+ of the import's time \(goal <= 0\.5\); import \d+ ads\/s; live \d+ s after the start/m,
    new RegExp(`^searches p95: keyword ${ms}, filters ${ms}`, "m"),
    new RegExp(`^brand tabs p95: slowest brand tab [a-z-]+ ${ms}`, "m"),
    /^trends: the windows moved on a day in [\d.]+ s/m
  ])
})
