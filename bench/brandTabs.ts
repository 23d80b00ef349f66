/**
 * The brand insight tabs (issue 19) in `npm run bench:ads`: every tab of the flagship brand
 * (src/demo/FlagshipBrand.ts: about 5,000 ads in the bench world, 1,000 at BENCH_SCALE=demo)
 * over a period holding all of its ads, timed one request at a time through HTTP, interleaved
 * with the baseline (GET /api/v1/credits) measured in the same loop. Prints p50/p95 per tab and
 * p95 as a ratio to the baseline's; the goal is every tab under 100 ms p95.
 */
import { tabNames } from "../src/ads/brandInsights/Tabs.js"
import { flagship } from "../src/demo/FlagshipBrand.js"
import { percentile, type Timed } from "./Scratch.js"

const DAY = 86_400_000

export const measureBrandTabs = async (request: (route: string) => Promise<Timed>, samples: number) => {
  // The brand's ads were first seen within 180 days: this period holds every one of them.
  const from = new Date(Date.now() - 200 * DAY).toISOString().slice(0, 10)
  const shapes: Array<[name: string, route: string]> = [
    ["GET /api/v1/credits (baseline)", "/api/v1/credits"],
    ...tabNames.map((tab): [string, string] => [`brand tab ${tab}`, `/api/v1/brands/${tab}?id=${flagship.id}&date_from=${from}`])
  ]
  const total = (await request(`/api/v1/brands/overview-cards?id=${flagship.id}&date_from=${from}`)).json.data.total as number
  console.log(`\nBrand tabs: ${flagship.id}, ${total.toLocaleString("en")} ads in the period. Warming up…`)
  for (let n = 0; n < 5; n++) for (const [, route] of shapes) await request(route)
  const figures = new Map<string, Array<number>>()
  // Interleaved, so a burst of noise on the machine hits every tab alike.
  for (let n = 0; n < samples; n++) {
    for (const [name, route] of shapes) figures.set(name, [...(figures.get(name) ?? []), (await request(route)).ms])
  }
  const baseline = percentile(figures.get(shapes[0]![0])!, 95)
  console.log(`${"shape".padEnd(32)} ${"n".padStart(5)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)}  p95 / baseline p95`)
  for (const [name, values] of figures) {
    const p95 = percentile(values, 95)
    console.log(`${name.padEnd(32)} ${String(values.length).padStart(5)} ${percentile(values, 50).toFixed(1).padStart(8)} ${p95.toFixed(1).padStart(8)}  ${(p95 / baseline).toFixed(1)}x`)
  }
  const [slowest, worst] = [...figures].filter(([name]) => name !== shapes[0]![0])
    .map(([name, values]) => [name, percentile(values, 95)] as const)
    .sort((a, b) => b[1] - a[1])[0]!
  console.log(`brand tabs p95: slowest ${slowest} ${worst.toFixed(1)} ms   (goal < 100 ms)`)
}
