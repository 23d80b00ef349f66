/**
 * `npm run bench`, second part: the ad searches of issue 4 on the bench dataset (one million
 * ads; BENCH_SCALE=demo for a quick look). Loads the ad entities of the generated world into a
 * fresh embedded PostgreSQL, starts the server as its own process, then times requests one at
 * a time through HTTP, the way an integrator's client would see them:
 * - baseline: GET /api/v1/credits (the metered path with no search behind it);
 * - a keyword search with two filters; a filter-only search sorted by newest;
 * - page 1 and page 200 of scrolls walked by tokens;
 * - magic-ai with a text (an ad's copy, reworded);
 * then the brand insight tabs, the lander library and trends, and the brand tracker and inbox
 * (bench/brandTabs.ts, landers.ts, brands.ts) on the same server.
 * Prints p50/p95 of each, and ratios against the baseline and page 200 against page 1: the
 * machine is shared and noisy, so only figures from one run compare.
 *
 * The trends of the import are counted by the benchmark while the creatives are drawn (on a
 * thread of their own), as `npm start`'s first load counts them (the default: counting's rate
 * and its time against the import's, and the time until every route answers, "live"); or with
 * `BENCH_COUNTING=alongside`, by the server's counting fiber as the import goes, the server
 * started first, as a deployment imports.
 *
 * `BENCH_DATABASES=single,citus` (issue 45) measures one PostgreSQL, then a Citus coordinator and
 * two workers, in one run; on the cluster the CPU figures are every node's together.
 *
 * `BENCH_PARTS` (a comma-separated list; all of them by default) measures only some parts on the
 * loaded world: `searches` (the shapes above and the scroll walks), `brand-tabs`, `landers` (the
 * lander library and the trend routes), `brands` (the tracker and the inbox), `window-move` (the
 * trends' midnight). The test of each mode (counting alongside, a replica) asks only for the parts
 * the mode changes: the default run's test already covers every part.
 */
import * as path from "node:path"
import { type ScaleName, scales, world } from "../src/demo/World.js"
import { measureBrandTabs } from "./brandTabs.js"
import { measureBrands } from "./brands.js"
import { landersAndTrends, windowMove } from "./landers.js"
import { Figures, pgCpuMeter } from "./Figures.js"
import { createAccounts, importWorld, keywordsOf, percentile, runBench, settle, startServer, storagePerAd, type Timed, timedClient, warmUpRounds, eachBenchDatabase } from "./Scratch.js"

const scaleName = (process.env["BENCH_SCALE"] ?? "bench") as ScaleName
/** Requests per measured shape. */
const samples = Number(process.env["BENCH_SAMPLES"] ?? 200)
/** Scrolls walked deep (each is up to `walkPages` requests)... */
const walks = Number(process.env["BENCH_WALKS"] ?? 6)
/** ...to this page, or to their last page when they have fewer (a smaller world). */
const walkPages = Number(process.env["BENCH_WALK_PAGES"] ?? 200)
const seed = 1
/** Who counts the import's trends: the benchmark after it, or the server alongside it. */
const alongside = process.env["BENCH_COUNTING"] === "alongside"
const allParts = ["searches", "brand-tabs", "landers", "brands", "window-move"] as const
const parts = new Set((process.env["BENCH_PARTS"] ?? allParts.join(",")).split(",").map((part) => part.trim()))
for (const part of parts) {
  if (!(allParts as ReadonlyArray<string>).includes(part)) throw new Error(`BENCH_PARTS: ${JSON.stringify(part)} is none of ${allParts.join(", ")}`)
}
/** Whether `part` is measured in this run. */
const measured = (part: typeof allParts[number]) => parts.has(part)

const importAds = (url: string, countBeside: boolean) =>
  importWorld(url, { scale: scaleName, seed, only: ["stores", "landers", "advertisers", "ads"] }, countBeside)



/** A copy reworded, as a user would paste an ad they saw. */
const reworded = (body: string) => body.split(/(?<=[.!?])\s+/).reverse().join(" ").replace("Meet the", "Say hello to the")


const measure = async (url: string, dir: string, loaded: boolean) => {
    const serve = () => startServer(url, path.join(dir, "server.log"), { RATE_LIMIT_PER_MINUTE: "100000", DEMO_DATA: "false" })
    // Alongside: the server, started first, counts what the import's batches tell it of.
    const early = alongside && !loaded ? await serve() : undefined
    let imported = 0
    let countedBeside: number | undefined
    if (!loaded) {
      console.log(`Ad searches, scale ${scaleName} (${scales[scaleName].ads.toLocaleString("en")} ads). Loading…`)
      const started = performance.now()
      countedBeside = await importAds(url, !early)
      imported = (performance.now() - started) / 1000
      console.log(`  imported in ${imported.toFixed(1)} s` + (early ? " (the server counting alongside)" : ` (the trends counted beside the creatives in ${countedBeside?.toFixed(1)} s)`))
    }
    // What the import left to count (after it: all of it; alongside: what the server has not
    // counted yet; a world loaded before the trends' counting existed: all of it) is counted
    // now, not while measured.
    const settling = performance.now()
    await settle(url)
    const counting = (performance.now() - settling) / 1000
    const [key] = await createAccounts(url, 1)
    const stored = await storagePerAd(url)
    if (loaded) console.log(`  trends counted and ranked in ${counting.toFixed(1)} s`)
    else if (early) console.log(`  trends counted alongside, and the rest counted and ranked ${counting.toFixed(1)} s after the import; live ${(imported + counting).toFixed(0)} s after the start (goal <= 300 s at 1M)`)
    else {
      // Counted beside the creatives: the count's own time, against the whole import's.
      const count = (countedBeside ?? 0) + counting
      console.log(`  trends counted and ranked in ${count.toFixed(1)} s: ${(stored / count).toFixed(0)} ads/s, ${(count / imported).toFixed(2)} of the import's time (goal <= 0.5); ` +
        `import ${(stored / imported).toFixed(0)} ads/s; live ${(imported + counting).toFixed(0)} s after the start (goal <= 300 s at 1M)`)
    }
    // What the queries ask: drawn from the generated ads, so they match like real ones.
    const generated = world({ scale: scales[scaleName], seed, today: new Date().toISOString().slice(0, 10) })
    const picked: Array<{ headline: string; body: string }> = []
    // Spread over the whole world, whatever its size (997 ads apart in a million).
    const every = Math.max(1, Math.min(997, Math.floor(scales[scaleName].ads / samples)))
    let i = 0
    for (const ad of generated.records.ads() as Iterable<{ library: string; headline: string; body: string | null }>) {
      if (ad.library !== "social" || ad.body === null) continue
      if (i++ % every === 0) picked.push({ headline: ad.headline, body: ad.body })
      if (picked.length >= samples) break
    }
    if (picked.length === 0) throw new Error(`no social ad with a body in the ${scaleName} world`)
    const server = early ?? await serve()
    const base = `http://127.0.0.1:${server.port}`
    const request = timedClient(base, key!, await pgCpuMeter(url))
    try {
      if (measured("searches")) await searches(request, picked)
      if (measured("brand-tabs")) await measureBrandTabs(request, samples)
      if (measured("landers")) await landersAndTrends(request, samples)
      // The brand tracker and the inbox (bench/brands.ts) on the same server: another start would
      // only cost the run its time.
      if (measured("brands")) await measureBrands(url, dir, server)
    } finally {
      await server.stop()
    }
    if (measured("window-move")) await windowMove(url)
}

/** The ad searches: the shapes interleaved with the baseline, then scrolls walked deep. */
const searches = async (request: (route: string, body?: unknown) => Promise<Timed>, picked: ReadonlyArray<{ headline: string; body: string }>) => {
  const countries = ["US", "GB", "CA", "AU", "DE"]
  const shapes: Array<[name: string, next: (n: number) => [string, unknown?]]> = [
    ["GET /api/v1/credits (baseline)", () => ["/api/v1/credits"]],
    ["keyword + 2 filters", (n) => [`/api/v1/adlibrary?q=${encodeURIComponent(keywordsOf(picked[n % picked.length]!.headline))}&country=${countries[n % 5]}&status=active`]],
    ["filters only, newest", (n) => [`/api/v1/adlibrary?country=${countries[n % 5]}&format=video,image&sort=newest`]],
    ["magic-ai text", (n) => ["/api/v1/magic-ai", { text: reworded(picked[n % picked.length]!.body), library: ["social"] }]]
  ]
  console.log("Warming up…")
  for (let n = 0; n < warmUpRounds(20, samples); n++) for (const [, next] of shapes) await request(...next(n))
  const figures = new Figures()
  // Interleaved, so a burst of noise on the machine hits every shape alike.
  for (let n = 0; n < samples; n++) {
    for (const [name, next] of shapes) figures.add(name, await request(...next(n + 1000)))
  }
  console.log(`Walking ${walks} scrolls to page ${walkPages} (or their last)…`)
  const first: Array<Timed> = []
  const deep: Array<Timed> = []
  let deepest = walkPages
  for (let w = 0; w < walks; w++) {
    const search = `/api/v1/adlibrary?country=${countries[w % 5]}&sort=${w % 2 === 0 ? "newest" : "longest_running"}&limit=20`
    let page = await request(search)
    let depth = 1
    while (depth < walkPages && page.json.has_more) {
      page = await request(`/api/v1/adlibrary?scroll_token=${page.json.scroll_token}`)
      depth++
    }
    deep.push(page)
    deepest = Math.min(deepest, depth)
    // page 1 of the same search, timed next to the deep page for a fair pair
    first.push(await request(search))
  }
  for (const timed of first) figures.add("scroll page 1", timed)
  for (const timed of deep) figures.add(`scroll page ${deepest} (deepest walked)`, timed)
  figures.print("shape", "GET /api/v1/credits (baseline)")
  const ratio = percentile(deep.map((t) => t.ms), 50) / percentile(first.map((t) => t.ms), 50)
  console.log("")
  console.log(`page ${deepest} / page 1 (p50): ${ratio.toFixed(2)}   (goal ≤ 1.5)`)
  console.log(`searches p95: keyword ${percentile(figures.ms("keyword + 2 filters"), 95).toFixed(1)} ms, filters ${percentile(figures.ms("filters only, newest"), 95).toFixed(1)} ms   (goal < 50 ms)`)
  console.log(`magic-ai text p95: ${percentile(figures.ms("magic-ai text"), 95).toFixed(1)} ms   (goal < 150 ms)`)
}

runBench(() => eachBenchDatabase("bench-ads", measure))
