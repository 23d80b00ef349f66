/**
 * `npm run bench:shop`: the short-video shop's explore and detail routes at the `bench` scale
 * (200,000 products with 90 days of metrics, 5,000 shops, 20,000 creators, 150,000 videos;
 * BENCH_SCALE=demo for a quick look). Loads the shop entities of the generated world (or uses
 * BENCH_DATABASE_URL, a database that already holds them), starts the server as its own
 * process and times requests one at a time over HTTP, interleaved:
 * - baseline: GET /api/v1/clipapp-shop/credits (the metered path, no search);
 * - products explore sorted by 30-day GMV with a category and a price filter;
 * - a product's 365-day history;
 * - suggestions for a 3-letter prefix (when the route is there).
 * Prints p50/p95 and the ratio to the baseline's p95: the machine is shared and noisy, so only
 * figures from one run compare.
 */
import * as path from "node:path"
import { type ScaleName, scales, world } from "../src/demo/World.js"
import { Figures, pgCpuMeter } from "./Figures.js"
import { createAccounts, loadWorld, runBench, startServer, sumAhead, timedClient, warmUpRounds, withBenchDatabase } from "./Scratch.js"

const scaleName = (process.env["BENCH_SCALE"] ?? "bench") as ScaleName
const samples = Number(process.env["BENCH_SAMPLES"] ?? 100)
const seed = 1

const loadShop = (url: string) =>
  loadWorld(url, {
    scale: scaleName,
    seed,
    only: ["shop-categories", "shop-shops", "shop-creators", "shop-products", "shop-videos", "shop-metrics"]
  })

const measure = async (url: string, dir: string, loaded: boolean) => {
  if (!loaded) {
    console.log(`Short-video shop, scale ${scaleName} (${scales[scaleName].products.toLocaleString("en")} products). Loading…`)
    const started = performance.now()
    await loadShop(url)
    console.log(`  loaded in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  }
  const summed = await sumAhead(url)
  console.log(`  rollups and suggestions summed ahead: ${summed.computed} computed in ${summed.seconds.toFixed(1)} s`)
  const [key] = await createAccounts(url, 1)
  const server = await startServer(url, path.join(dir, "server.log"), { RATE_LIMIT_PER_MINUTE: "100000", DEMO_DATA: "false" })
  const request = timedClient(`http://127.0.0.1:${server.port}`, key!, await pgCpuMeter(url))
  const prefix = "/api/v1/clipapp-shop"
  try {
    const generated = world({ scale: scales[scaleName], seed, today: new Date().toISOString().slice(0, 10) })
    const categories = (Array.from(generated.records["shop-categories"]()) as Array<{ region: string; external_id: string; level: number }>)
      .filter((c) => c.region === "US" && c.level === 2)
    const products: Array<{ external_id: string; title: string }> = []
    let i = 0
    for (const p of generated.records["shop-products"]() as Iterable<{ region: string; external_id: string; title: string }>) {
      if (i++ % 397 === 0 && p.region === "US") products.push(p)
      if (products.length >= 200) break
    }
    const hasSuggestions = await request(`${prefix}/suggestions?prefix=abc`).then(() => true, () => false)
    const shapes: Array<[name: string, next: (n: number) => [string, unknown?]]> = [
      ["GET clipapp-shop/credits (baseline)", () => [`${prefix}/credits`]],
      ["products explore, 30-day GMV, category + price", (n) => [
        `${prefix}/products/explore?category_id=${categories[n % categories.length]!.external_id}&min_price=10&max_price=80&sort=gmv&page_size=20`
      ]],
      ["product 365-day history", (n) => {
        const to = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
        const from = new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10)
        return [`${prefix}/product-detail/history`, { id: products[n % products.length]!.external_id, date_from: from, date_to: to }]
      }],
      ...(hasSuggestions
        ? [["suggestions, 3-letter prefix", (n: number) => [`${prefix}/suggestions?prefix=${encodeURIComponent(products[n % products.length]!.title.slice(0, 3))}`]] as [string, (n: number) => [string, unknown?]]]
        : [])
    ]
    console.log("Warming up…")
    for (let n = 0; n < warmUpRounds(10, samples); n++) for (const [, next] of shapes) await request(...next(n))
    const figures = new Figures()
    for (let n = 0; n < samples; n++) {
      for (const [name, next] of shapes) figures.add(name, await request(...next(n + 100)))
    }
    figures.print("shape", "GET clipapp-shop/credits (baseline)")
    console.log("")
    console.log("goals: explore p95 < 100 ms, history < 20 ms, suggestions < 10 ms")
    if (!hasSuggestions) console.log("(suggestions not measured: the route is not there)")
  } finally {
    await server.stop()
  }
}

runBench(() => withBenchDatabase("bench-shop", measure))
