/**
 * Part of `npm run bench:ads` (issue 20): the lander library and the trend routes, timed one
 * request at a time through HTTP on the server `bench/ads.ts` started over its loaded world,
 * interleaved with the metered baseline (GET /api/v1/credits) so that the ratios compare
 * figures of one run on a shared, noisy machine. Goal: p95 under 100 ms at the `bench` scale.
 */
import { Duration, Effect, Layer, Option } from "effect"
import { TrendsRepo } from "../src/ads/trends/TrendsRepo.js"
import { TrendCounts } from "../src/ads/trends/TrendCounts.js"
import { addDays } from "../src/kernel/UtcDay.js"
import { Figures } from "./Figures.js"
import { onDatabase, type Timed, warmUpRounds } from "./Scratch.js"

type Request = (route: string, body?: unknown) => Promise<Timed>

const words = ["serum", "leggings", "quiz", "pillow", "blender", "hair oil", "sunscreen", "protein", "review", "mascara"]
const types = ["product", "listicle", "advertorial", "quiz", "vsl", "presell", "collection", "home"]
const niches = ["beauty", "fitness", "home", "pets", "fashion", "gadgets"]
const countries = ["US", "GB", "CA", "AU", "DE"]
const libraries = ["social", "pinboard", "clipapp", "search"]
const windows = [7, 30, 90]

export const landersAndTrends = async (request: Request, samples: number) => {
  const pick = <A>(values: ReadonlyArray<A>, n: number) => values[n % values.length]!
  // Topics to ask the history of: what the 90-day ranking lists.
  const listed = (await request("/api/v1/trends/topics", { window_days: 90, limit: 100, min_count: 1 })).json.data as Array<{ topic: string }>
  const topics = listed.length > 0 ? listed.map((t) => t.topic) : words
  const shapes: Array<[name: string, next: (n: number) => [string, unknown?]]> = [
    ["GET /api/v1/credits (baseline)", () => ["/api/v1/credits"]],
    ["landers: newest, page 1", (n) => ["/api/v1/landers/explore", { page: 1 + (n % 3) }]],
    ["landers: text + type", (n) => ["/api/v1/landers/explore", { q: pick(words, n), type: [pick(types, n)] }]],
    ["landers: filters, most ads", (n) => ["/api/v1/landers/explore", {
      niche: [pick(niches, n)], country: [pick(countries, n)], min_ads: 2, min_price: 10, sort: "most_ads"
    }]],
    ["landers: longest running", (n) => ["/api/v1/landers/explore", { platform: ["shopify"], sort: "longest_running", page: 1 + (n % 5) }]],
    ["trends: topics, all ads", (n) => ["/api/v1/trends/topics", { window_days: pick(windows, n) }]],
    ["trends: topics, one filter", (n) => ["/api/v1/trends/topics", { window_days: pick(windows, n), niche: pick(niches, n), min_count: 1 + (n % 20) }]],
    ["trends: topics, scoped", (n) => ["/api/v1/trends/topics", {
      window_days: pick(windows, n), library: pick(libraries, n), niche: pick(niches, n + 1), country: pick(countries, n)
    }]],
    ["trends: hooks", (n) => ["/api/v1/trends/hooks", { window_days: pick(windows, n), country: n % 2 === 0 ? undefined : pick(countries, n) }]],
    ["trends: history", (n) => ["/api/v1/trends/history", { topic: pick(topics, n) }]],
    ["trends: products", (n) => ["/api/v1/trends/products", { window_days: pick(windows, n) }]]
  ]
  console.log("Landers and trends: warming up…")
  for (let n = 0; n < warmUpRounds(10, samples); n++) for (const [, next] of shapes) await request(...next(n))
  const figures = new Figures()
  for (let n = 0; n < samples; n++) {
    for (const [name, next] of shapes) figures.add(name, await request(...next(n + 100)))
  }
  figures.print("shape", "GET /api/v1/credits (baseline)")
  const worst = figures.slowest("GET /api/v1/credits (baseline)")[0]!
  console.log(`landers and trends p95: worst ${worst[0]} ${worst[1].toFixed(1)} ms   (goal < 100 ms)`)
}

/**
 * What the trends' midnight costs: the rankings built for the windows ending a day later (every
 * filter cell's kept terms, from the packed daily counts) and back again, each in its
 * transaction, timed. Run with no server on the database.
 */
export const windowMove = (url: string) =>
  onDatabase(url, Effect.gen(function*() {
    const repo = yield* TrendsRepo
    const counts = yield* TrendCounts
    const from = Option.getOrThrow((yield* repo.state).dateTo)
    const [forward] = yield* Effect.timed(counts.rebuild(addDays(from, 1)))
    const [back] = yield* Effect.timed(counts.rebuild(from))
    return { forward: Duration.toSeconds(forward), back: Duration.toSeconds(back) }
  }).pipe(Effect.provide(Layer.merge(TrendsRepo.Default, TrendCounts.Default)))).then(({ back, forward }) =>
    console.log(`trends: the windows moved on a day in ${forward.toFixed(1)} s (and back in ${back.toFixed(1)} s)`))
