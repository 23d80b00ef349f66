/**
 * The brand insight tabs (issue 19) in `npm run bench:ads`: every tab of the flagship brand
 * (src/demo/FlagshipBrand.ts: about 5,000 ads in the bench world, 1,000 at BENCH_SCALE=demo)
 * over a period holding all of its ads, timed one request at a time through HTTP, interleaved
 * with the baseline (GET /api/v1/credits) measured in the same loop. Prints p50/p95 per tab and
 * p95 as a ratio to the baseline's; the goal is every tab under 100 ms p95.
 */
import { tabNames } from "../src/ads/brandInsights/Tabs.js"
import { flagship } from "../src/demo/FlagshipBrand.js"
import { Figures } from "./Figures.js"
import { type Timed, warmUpRounds } from "./Scratch.js"

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
  for (let n = 0; n < warmUpRounds(5, samples); n++) for (const [, route] of shapes) await request(route)
  const figures = new Figures()
  // Interleaved, so a burst of noise on the machine hits every tab alike.
  for (let n = 0; n < samples; n++) {
    for (const [name, route] of shapes) figures.add(name, await request(route))
  }
  figures.print("shape", shapes[0]![0])
  const [slowest, worst] = figures.slowest(shapes[0]![0])[0]!
  console.log(`brand tabs p95: slowest ${slowest} ${worst.toFixed(1)} ms   (goal < 100 ms)`)
}
