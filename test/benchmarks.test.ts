import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"

/**
 * Benchmarks run at every scale; here at `small`, briefly, so none can rot (issue 29): each
 * `bench:*` script runs to its end and prints its figures. Their figures are measured by
 * `npm run bench*`, never asserted here; what is asserted is that every request answered 200
 * (the scripts stop at the first that does not) and that each figure the script reports is there.
 */

const bench = (script: string, env: Record<string, string>) =>
  Effect.async<{ readonly code: number; readonly output: string }>((resume) => {
    execFile(
      process.execPath,
      ["--import", "tsx", script],
      { env: { ...process.env, BENCH_SCALE: "small", ...env }, maxBuffer: 16 * 1024 * 1024, timeout: 170_000 },
      (error, stdout, stderr) => resume(Effect.succeed({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }))
    )
  })

/**
 * A figure line: the shape's name, then n, p50 and p95 in ms, the ratio to the run's baseline,
 * and PostgreSQL's CPU ms a call (the benchmark's embedded PostgreSQL runs on this machine).
 */
const timed = (shape: string) => new RegExp(`^${shape.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} +\\d+ +[\\d.]+ +[\\d.]+ +[\\d.]+x +\\d+\\.\\d\\d$`, "m")

const ms = "[\\d.]+ ms"

const cases: ReadonlyArray<{ readonly script: string; readonly env: Record<string, string>; readonly prints: ReadonlyArray<RegExp> }> = [
  {
    script: "bench/gateway.ts",
    // Enough accounts that no one of them meets its rate limit in a one-second round.
    env: { BENCH_ACCOUNTS: "200", BENCH_SECONDS: "1", BENCH_ROUNDS: "1" },
    prints: [
      /^GET \/health \(unmetered\) +\d+ req\/s +p50 +\d+ ms +p99 +\d+ ms +non-2xx 0$/m,
      /^GET \/api\/v1\/credits +\d+ req\/s +p50 +\d+ ms +p99 +\d+ ms +non-2xx 0$/m,
      /^ratio metered\/unmetered \(req\/s\): [\d.]+ /m
    ]
  },
  {
    script: "bench/ads.ts",
    env: { BENCH_SAMPLES: "3", BENCH_WALKS: "1", BENCH_WALK_PAGES: "3" },
    prints: [
      timed("keyword + 2 filters"),
      timed("filters only, newest"),
      timed("magic-ai text"),
      timed("scroll page 3 (deepest walked)"),
      timed("brand tab transcripts"),
      timed("trends: topics, scoped"),
      timed("GET .../unread-count"),
      /^ {2}imported in [\d.]+ s \(the trends counted beside the creatives in [\d.]+ s\)$/m,
      /^ {2}trends counted and ranked in [\d.]+ s: \d+ ads\/s, [\d.]+ of the import's time \(goal <= 0\.5\); import \d+ ads\/s; live \d+ s after the start/m,
      new RegExp(`^searches p95: keyword ${ms}, filters ${ms}`, "m"),
      new RegExp(`^brand tabs p95: slowest brand tab [a-z-]+ ${ms}`, "m"),
      /^trends: the windows moved on a day in [\d.]+ s/m
    ]
  },
  {
    // The server counting the import's trends as it goes, as a deployment imports.
    script: "bench/ads.ts",
    env: { BENCH_COUNTING: "alongside", BENCH_SAMPLES: "3", BENCH_WALKS: "1", BENCH_WALK_PAGES: "3" },
    prints: [
      /^ {2}imported in [\d.]+ s \(the server counting alongside\)$/m,
      /^ {2}trends counted alongside, and the rest counted and ranked [\d.]+ s after the import; live \d+ s after the start/m,
      timed("keyword + 2 filters")
    ]
  },
  {
    // A streaming replica serving the research reads (issue 31, R1).
    script: "bench/ads.ts",
    env: { BENCH_REPLICA: "1", BENCH_SAMPLES: "3", BENCH_WALKS: "1", BENCH_WALK_PAGES: "3" },
    prints: [
      /^ {2}a streaming replica serves the research reads \(BENCH_REPLICA=1, DATABASE_REPLICA_URLS\)$/m,
      timed("keyword + 2 filters"),
      timed("landers: filters, most ads")
    ]
  },
  {
    script: "bench/brands.ts",
    env: { BENCH_SAMPLES: "3" },
    prints: [timed("GET /api/v1/brands/ads page 2"), timed("GET /api/v1/notifications"), timed("GET .../unread-count")]
  },
  {
    script: "bench/shop.ts",
    env: { BENCH_SAMPLES: "3" },
    prints: [timed("products explore, 30-day GMV, category + price"), timed("product 365-day history"), timed("suggestions, 3-letter prefix")]
  },
  {
    script: "bench/stores.ts",
    env: { BENCH_IMAGES: "200", BENCH_SAMPLES: "3" },
    prints: [timed("visual search, upload + country + platform"), timed("store explorer, by revenue"), /^source product first: 3 of 3 searches$/m]
  },
  {
    script: "bench/data.ts",
    env: {},
    prints: [
      /^ads +\d+ records +load +\d+\/s as NDJSON +\(generate and serialise alone \d+\/s, \d+ bytes a line\) +[\d.]+ s +rejected 0$/m,
      /database alone \d+\/s \(writes of pre-validated batches\): load is [\d.]+ of it/,
      /^ {2}Node +\d+ +parse and line checks [\d.]+ alone, schema validation [\d.]+ alone, the rest -?[\d.]+ \(/m,
      /^ {2}PostgreSQL +\d+ +the write plan \d+ alone: the full-text vector -?[\d.]+ alone, the \d+ secondary indexes -?\d+ \(the plan without them\), the rest -?\d+; the import's other work -?\d+$/m,
      /^ {2}in all +\d+ +at most \d+ ads\/s on two cores \(the import ran at \d+; 10,000 needs <= 200\)$/m,
      /^\d+ query shape\(s\) do not use their index\.$|^All query shapes use their index\.$/m
    ]
  },
  {
    script: "bench/fanout.ts",
    env: { BENCH_SAMPLES: "20" },
    prints: [
      /^ {2}copied into 16 hash partitions in [\d.]+ s$/m,
      /^ +1 +\d+ +[\d.]+ +[\d.]+ +1\.00x +[\d,]+$/m,
      /^ +16 +\d+ +[\d.]+ +[\d.]+ +[\d.]+x +[\d,]+$/m
    ]
  },
  {
    script: "bench/savedSearches.ts",
    env: {},
    prints: [
      /^ {2}imported \d+ ads in [\d.]+ s \(\d+ ads\/s\), \d+ batch transactions$/m,
      /^ {2}matching pass: [\d.]+ s over the batches, [\d.]+ s telling at the import's end, \d+ matches of the saved searches, \d+ of their \d+ distinct queries \(\d+ stored\), [1-9]\d* events$/m,
      /^ {2}digests: matches [0-9a-f]{32}, events' counts [0-9a-f]{32}$/m,
      /^ {2}saved-search tables: [\d.]+ MB, [\d.]+ bytes a match of the saved searches$/m,
      /^ {2}saved-search matching: [\d.]+ of the import's own time \(goal <= 0\.25\); with the brand diffs [\d.]+$/m
    ]
  },
  {
    script: "bench/shopSearch.ts",
    env: { BENCH_RUNS: "1" },
    prints: [/^ {2}prefix "serum" +median +[\d.]+ ms +worst +[\d.]+ ms +\d+ statement\(s\)/m]
  }
]

describe("benchmarks at the small scale", () => {
  for (const { env, prints, script } of cases) {
    const mode = Object.entries(env).filter(([name]) => name === "BENCH_COUNTING" || name === "BENCH_REPLICA").map(([name, value]) => ` (${name}=${value})`).join("")
    it.live(`${script}${mode}: runs to its end with every figure printed`, () =>
      Effect.gen(function*() {
        const { code, output } = yield* bench(script, env)
        expect(code, output.slice(-3_000)).toBe(0)
        for (const line of prints) expect(output).toMatch(line)
      }), { timeout: 180_000 })
  }

  it.live("bench:soak: every interval's figures and the summary, no timeout and no error", () =>
    Effect.gen(function*() {
      const { code, output } = yield* bench("bench/soak.ts", { BENCH_MINUTES: "0.2", BENCH_INTERVAL_SECONDS: "4", BENCH_ACCOUNTS: "20" })
      expect(code, output.slice(-2_000)).toBe(0)
      const rows = output.split("\n").filter((line) => /^#\d+ /.test(line))
      expect(rows).toHaveLength(3)
      for (const line of rows) expect(line).toMatch(/req\/s .* non-2xx +\d+ +errors +0 +timeouts +0 +RSS +\d+ MB$/)
      expect(output).toMatch(/Last \/ first: req\/s [\d.]+x, p99 [\d.]+x, RSS [\d.]+x; timeouts in all 0, errors 0, non-2xx 0/)
    }), { timeout: 180_000 })
})
