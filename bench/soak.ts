/**
 * `npm run bench:soak` (issue 28): a mixed metered load for BENCH_MINUTES minutes (default 10)
 * against the server as its own process, on a world of BENCH_SCALE (default `demo`; `small` for
 * a quick run, `bench` for the million ads). Once `/ready` answers, autocannon (BENCH_CONNECTIONS,
 * default 10) cycles through the research routes (credits, the ad library, magic-ai, trends,
 * landers, the short-video shop, hosted stores, a brand tab) spread over BENCH_ACCOUNTS premium
 * accounts, and prints for each BENCH_INTERVAL_SECONDS (default 60): req/s, p50, p99, non-2xx,
 * errors, timeouts and the server's resident memory. The summary compares the last interval with
 * the first: the machine is shared and noisy, so only figures of one run compare.
 */
import autocannon from "autocannon"
import { readFile } from "node:fs/promises"
import * as path from "node:path"
import { type ScaleName, scales } from "../src/demo/World.js"
import { createAccounts, type LoadFigures, loadWorld, runBench, setting, startServer, withBenchDatabase } from "./Scratch.js"

const scale = (process.env["BENCH_SCALE"] ?? "demo") as ScaleName
if (!(scale in scales)) throw new Error(`BENCH_SCALE must be one of ${Object.keys(scales).join(", ")}`)
const minutes = setting("BENCH_MINUTES", 10)
const interval = setting("BENCH_INTERVAL_SECONDS", 60)
const connections = setting("BENCH_CONNECTIONS", 10)
const accountsCount = setting("BENCH_ACCOUNTS", 50)
/** A request that takes longer than this counts as a timeout (as a client's would). */
const timeoutSeconds = 30

interface Interval extends LoadFigures {
  readonly errors: number
  readonly timeouts: number
  readonly rssMb: number
}

const json = (method: "POST", route: string, body: unknown) => ({
  method,
  path: route,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body)
})

/** The mix, cycled by every connection: the research routes a client of each product calls. */
const mix = [
  { method: "GET" as const, path: "/api/v1/credits" },
  { method: "GET" as const, path: "/api/v1/adlibrary?q=serum&limit=10" },
  { method: "GET" as const, path: "/api/v1/clipapp-ads?sort=newest&limit=10" },
  json("POST", "/api/v1/magic-ai", { text: "Tired of dull skin? This serum brightens in 7 days.", limit: 10 }),
  json("POST", "/api/v1/trends/topics", { window_days: 30 }),
  json("POST", "/api/v1/landers/explore", { q: "serum" }),
  { method: "GET" as const, path: "/api/v1/clipapp-shop/products/explore?sort=gmv" },
  json("POST", "/api/v1/store-explorer", {}),
  { method: "GET" as const, path: "/api/v1/brands/tabs" }
]

/** The server's resident memory, from /proc (Linux); NaN elsewhere. */
const rssOf = (pid: number) =>
  readFile(`/proc/${pid}/status`, "utf8").then(
    (status) => Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024,
    () => Number.NaN
  )

const run = (base: string, keys: ReadonlyArray<string>, seconds: number, pid: number) =>
  new Promise<Interval>((resolve, reject) => {
    let next = 0
    autocannon(
      {
        url: base,
        connections,
        duration: seconds,
        timeout: timeoutSeconds,
        requests: mix.map((request) => ({
          ...request,
          setupRequest: (prepared: any) => ({ ...prepared, headers: { ...prepared.headers, "x-api-key": keys[next++ % keys.length]! } })
        }))
      },
      (error, result) =>
        error
          ? reject(error)
          : void rssOf(pid).then((rssMb) =>
            resolve({
              rps: result.requests.average,
              p50: result.latency.p50,
              p99: result.latency.p99,
              non2xx: result.non2xx,
              errors: result.errors,
              timeouts: result.timeouts,
              rssMb
            })
          )
    )
  })

const waitReady = async (base: string) => {
  for (let i = 0; i < 3_600; i++) {
    const ready = await fetch(`${base}/ready`).then((r) => r.status === 200, () => false)
    if (ready) return
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  throw new Error("/ready did not answer 200 within 30 minutes")
}

const row = (label: string, f: Interval) =>
  `${label.padEnd(8)} ${f.rps.toFixed(0).padStart(7)} req/s  p50 ${String(f.p50).padStart(4)} ms  p99 ${String(f.p99).padStart(5)} ms  ` +
  `non-2xx ${String(f.non2xx).padStart(5)}  errors ${String(f.errors).padStart(3)}  timeouts ${String(f.timeouts).padStart(3)}  RSS ${f.rssMb.toFixed(0).padStart(5)} MB`

const main = () =>
  withBenchDatabase("soak", async (url, dir, loaded) => {
    if (!loaded) {
      console.log(`Loading the ${scale} world…`)
      await loadWorld(url, { scale, seed: 1 })
    }
    const keys = await createAccounts(url, accountsCount)
    const server = await startServer(url, path.join(dir, "server.log"), { RATE_LIMIT_PER_MINUTE: "100000", DEMO_DATA: "false" })
    const port = server.port
    try {
      const base = `http://127.0.0.1:${port}`
      await waitReady(base)
      const intervals = Math.max(1, Math.round((minutes * 60) / interval))
      console.log(`Soak: ${intervals} x ${interval} s, ${connections} connections, ${mix.length} routes over ${keys.length} accounts (${scale} world)`)
      const figures: Array<Interval> = []
      for (let i = 1; i <= intervals; i++) {
        figures.push(await run(base, keys, interval, server.pid))
        console.log(row(`#${i}`, figures.at(-1)!))
      }
      const first = figures[0]!
      const last = figures.at(-1)!
      console.log(row("first", first))
      console.log(row("last", last))
      console.log(
        `Last / first: req/s ${(last.rps / first.rps).toFixed(2)}x, p99 ${(last.p99 / first.p99).toFixed(2)}x, RSS ${(last.rssMb / first.rssMb).toFixed(2)}x; ` +
          `timeouts in all ${figures.reduce((n, f) => n + f.timeouts, 0)}, errors ${figures.reduce((n, f) => n + f.errors, 0)}, ` +
          `non-2xx ${figures.reduce((n, f) => n + f.non2xx, 0)}`
      )
    } finally {
      await server.stop()
    }
  })

runBench(main)
