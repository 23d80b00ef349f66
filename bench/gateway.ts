/**
 * `npm run bench`: what the metered gateway costs. Starts the server on an embedded
 * PostgreSQL with 1,000 accounts, then runs autocannon (10 connections, 10 s each) against an
 * unmetered route of the same server and against `GET /api/v1/credits` spread over the
 * accounts. Prints req/s, p50 and p99 for both and the ratio metered/unmetered: the machine
 * is shared and noisy, so only figures from one run compare, and the routes alternate over
 * several rounds (BENCH_ROUNDS, default 3) whose medians are reported.
 */
import autocannon from "autocannon"
import * as path from "node:path"
import { createAccounts, type LoadFigures, runBench, setting, startServer, withScratchDatabase } from "./Scratch.js"

const accountsCount = setting("BENCH_ACCOUNTS", 1000)
const seconds = setting("BENCH_SECONDS", 10)
/** Rounds alternate the two routes; medians are reported, the machine being shared and noisy. */
const rounds = setting("BENCH_ROUNDS", 3)
const connections = 10

type Figures = LoadFigures

/** The run with the median throughput (its own latencies go with it). */
const median = (runs: Array<Figures>): Figures | undefined =>
  [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)]

const load = (url: string, keys?: ReadonlyArray<string>, duration = seconds) =>
  new Promise<Figures>((resolve, reject) => {
    let next = 0
    autocannon(
      {
        url,
        connections,
        duration,
        requests: [
          {
            setupRequest: (request) =>
              keys ? { ...request, headers: { ...request.headers, "x-api-key": keys[next++ % keys.length]! } } : request
          }
        ]
      },
      (error, result) =>
        error ? reject(error) : resolve({
          rps: result.requests.average,
          p50: result.latency.p50,
          p99: result.latency.p99,
          non2xx: result.non2xx
        })
    )
  })

const main = () =>
  withScratchDatabase("bench", async (url, dir) => {
    // Each round (and the warm-up) spreads its calls over its own 1,000 accounts: at ~35 calls
    // per account per round, reusing them within a minute would hit the rate limit and measure
    // 429s instead of charges.
    console.log(`Creating ${accountsCount} accounts per round…`)
    const allKeys = await createAccounts(url, accountsCount * (rounds + 1))
    const keysOf = (set: number) => allKeys.slice(set * accountsCount, (set + 1) * accountsCount)
    const server = await startServer(url, path.join(dir, "server.log"))
    const port = server.port
    try {
      const base = `http://127.0.0.1:${port}`
      // BENCH_ONLY=metered (or unmetered) loads one route, to profile it alone.
      const only = process.env["BENCH_ONLY"]
      const none: Figures = { rps: Number.NaN, p50: Number.NaN, p99: Number.NaN, non2xx: 0 }
      console.log("Warming up…")
      // 3 s each, or a measured run's length when shorter (a quick run warms up no longer than it measures).
      const warmUp = Math.min(3, seconds)
      if (only !== "metered") await load(`${base}/health`, undefined, warmUp)
      if (only !== "unmetered") await load(`${base}/api/v1/credits`, keysOf(rounds), warmUp)
      console.log(`Measuring: ${connections} connections, ${seconds} s per route, ${rounds} round(s)`)
      const unmeteredRuns: Array<Figures> = []
      const meteredRuns: Array<Figures> = []
      for (let round = 1; round <= rounds; round++) {
        if (only !== "metered") unmeteredRuns.push(await load(`${base}/health`))
        if (only !== "unmetered") meteredRuns.push(await load(`${base}/api/v1/credits`, keysOf(round - 1)))
        const last = (runs: Array<Figures>) => runs.at(-1)?.rps.toFixed(0) ?? "-"
        console.log(`  round ${round}: unmetered ${last(unmeteredRuns)} req/s, metered ${last(meteredRuns)} req/s`)
      }
      const unmetered = median(unmeteredRuns) ?? none
      const metered = median(meteredRuns) ?? none
      const row = (name: string, f: Figures) =>
        `${name.padEnd(26)} ${f.rps.toFixed(0).padStart(8)} req/s   p50 ${String(f.p50).padStart(3)} ms   p99 ${String(f.p99).padStart(3)} ms   non-2xx ${f.non2xx}`
      console.log("")
      console.log(row("GET /health (unmetered)", unmetered))
      console.log(row("GET /api/v1/credits", metered))
      console.log("")
      console.log(`ratio metered/unmetered (req/s): ${(metered.rps / unmetered.rps).toFixed(2)}   (goal ≥ 0.6)`)
      console.log(`metered p99: ${metered.p99} ms   (goal < 15 ms)`)
      const refused = [...unmeteredRuns, ...meteredRuns].reduce((n, run) => n + run.non2xx, 0)
      if (refused > 0) console.log(`WARNING: ${refused} answers were not 2xx: the figures are not of charged calls`)
    } finally {
      await server.stop()
    }
  })

runBench(main)
