/**
 * `npm run bench:citus` (issue 45; docs/SCALING.md "Measured on a Citus cluster"): the same world
 * loaded into one PostgreSQL and into a Citus cluster (a coordinator and two workers, on this
 * machine) in one run, through the service's own import, then the same searches sent to a
 * server on each. Needs Debian's PostgreSQL 15 with Citus (`.ci/run` installs it).
 *
 * Prints, for each database:
 * - the import: ads per second (the stores, landers, advertisers and ads, and the ads' trends
 *   counted; per ad) and the CPU each node spent per ad;
 * - each search shape: p50 and p95, the p95 against the baseline's (`GET /api/v1/credits`, the
 *   meter alone) in the same database's run, and the CPU milliseconds each node spent per call.
 *
 * The nodes share this machine's two cores, so the cluster cannot be faster here: what this
 * measures is what a call costs each node, which sizes a cluster whose nodes each have their own.
 * BENCH_SCALE (default demo), BENCH_SAMPLES (calls per shape, default 100), BENCH_DATABASES (which
 * of `single` and `citus` to measure, default both).
 */
import * as path from "node:path"
import { flagship } from "../src/demo/FlagshipBrand.js"
import { type ScaleName, scales, world } from "../src/demo/World.js"
import { cpuSince, type NodeCpu, nodeCpuMeters } from "./Figures.js"
import { createAccounts, eachBenchDatabase, importWorld, keywordsOf, percentile, runBench, settle, startServer, timedClient } from "./Scratch.js"

const scaleName = (process.env["BENCH_SCALE"] ?? "demo") as ScaleName
const samples = Number(process.env["BENCH_SAMPLES"] ?? 100)
const seed = 1

/** CPU milliseconds each node spent while `work` ran. */
const spent = async <A>(nodes: ReadonlyArray<NodeCpu>, work: () => Promise<A>) => {
  const since = cpuSince(nodes)
  const result = await work()
  return { result, cpu: since() }
}

/** What the searches ask: words of the world's social headlines, and its flagship brand. */
const queries = () => {
  const generated = world({ scale: scales[scaleName], seed, today: new Date().toISOString().slice(0, 10) })
  const words: Array<string> = []
  const every = Math.max(1, Math.floor(scales[scaleName].ads / Math.max(1, samples)))
  let i = 0
  for (const ad of generated.records.ads() as Iterable<{ library: string; headline: string }>) {
    if (ad.library !== "social") continue
    if (i++ % every !== 0) continue
    const q = keywordsOf(ad.headline)
    if (q !== "") words.push(q)
    if (words.length >= samples) break
  }
  return words
}

/** The shapes, each a route for the n-th call. */
const shapes = (words: ReadonlyArray<string>): ReadonlyArray<readonly [string, (n: number) => readonly [string, unknown?]]> => [
  ["baseline: GET /api/v1/credits (the meter)", () => ["/api/v1/credits"]],
  ["keyword + country, newest", (n) => [`/api/v1/adlibrary?q=${encodeURIComponent(words[n % words.length]!)}&country=US&limit=20`]],
  ["filters only, newest", (n) => [`/api/v1/adlibrary?country=${["US", "GB", "DE"][n % 3]}&format=video&limit=20`]],
  ["a brand's ads (one shard)", () => [`/api/v1/brands/ads?id=${flagship.id}`]],
  ["brand tab ad-copies (one shard)", () => [`/api/v1/brands/ad-copies?id=${flagship.id}`]],
  ["landers explore, most ads", () => ["/api/v1/landers/explore", { sort: "most_ads", page_size: 20 }]]
]

/** Loads the world into the database at `url`, then measures the shapes against a server on it. */
const measure = async (url: string, dir: string) => {
  const nodes = await nodeCpuMeters(url)
  if (nodes === undefined) throw new Error("a server of the database is not a process of this machine: its CPU cannot be read from /proc")
  console.log(`Scale ${scaleName} (${scales[scaleName].ads.toLocaleString("en")} ads). Loading…`)
  const started = performance.now()
  // What the shapes read: the ads and what they link to (the short-video shop stays on the coordinator either way).
  const load = await spent(nodes, () => importWorld(url, { scale: scaleName, seed, only: ["stores", "landers", "advertisers", "ads"] }).then(() => settle(url)))
  const seconds = (performance.now() - started) / 1000
  const ads = scales[scaleName].ads
  console.log(`  imported in ${seconds.toFixed(1)} s: ${(ads / seconds).toFixed(0)} ads/s (stores, landers, advertisers and ads, their trends counted)`)
  console.log(`  CPU per ad: ${nodes.map((node, i) => `${node.name} ${((load.cpu[i]! * 1000) / ads).toFixed(0)} µs`).join(", ")}`)
  const [key] = await createAccounts(url, 1)
  const server = await startServer(url, path.join(dir, "server.log"), { RATE_LIMIT_PER_MINUTE: "100000", DEMO_DATA: "false" })
  try {
    const request = timedClient(`http://127.0.0.1:${server.port}`, key!)
    const words = queries()
    console.log(`  ${"shape".padEnd(44)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)}  p95/baseline  ${nodes.map((node) => `${node.name} CPU ms/call`.padStart(22)).join("")}`)
    let baseline: number | undefined
    for (const [shape, route] of shapes(words)) {
      // Warm-up: a few calls unmeasured.
      for (let n = 0; n < Math.min(5, samples); n++) await request(...route(n))
      const times: Array<number> = []
      const { cpu } = await spent(nodes, async () => {
        for (let n = 0; n < samples; n++) times.push((await request(...route(n))).ms)
      })
      const p95 = percentile(times, 95)
      baseline ??= p95
      console.log(
        `  ${shape.padEnd(44)} ${percentile(times, 50).toFixed(1).padStart(8)} ${p95.toFixed(1).padStart(8)}  ${(p95 / baseline).toFixed(2).padStart(11)}x  ` +
          cpu.map((ms) => (ms / samples).toFixed(2).padStart(22)).join("")
      )
    }
  } finally {
    await server.stop()
  }
}

runBench(() => eachBenchDatabase("citus-bench", measure, "single,citus"))
