/**
 * `npm run bench:stores`: visual search of hosted stores over 200,000 product images (issue 20:
 * p95 under 300 ms). Loads the `bench` world's stores, gives them 200,000 products, indexes one
 * image per product (BENCH_IMAGES to change the count), starts the server as its own process
 * and times requests one at a time over HTTP, interleaved:
 * - baseline: GET /api/v1/store-tracker (the metered path and one small query);
 * - visual search, a product photo uploaded (cropped, resized, re-encoded as JPEG);
 * - the same with two of the explorer's filters (country, platform);
 * - the store explorer's search, sorted by revenue (for scale).
 * Most images are synthetic features (drawing 200,000 pictures with sharp would take the whole
 * run; the scan costs the same whatever the values); the photos searched for are real
 * drawings, indexed from their pixels like the demo's.
 * Prints p50/p95 and the ratio to the baseline's p95, and how often the source product came
 * first: only figures from one run compare.
 */
import { ImageDecoding } from "../src/platform/media/ImageDecoding.js"
import { Chunk, Effect, Stream } from "effect"
import * as path from "node:path"
import sharp from "sharp"
import { type ScaleName, scales, world } from "../src/demo/World.js"
import { Ingest } from "../src/ingest/Ingest.js"
import { mulberry32 } from "../src/platform/media/ImageFeatures.js"
import { drawArt } from "../src/stores/media/ProductArt.js"
import { colourBins, featuresOf } from "../src/stores/visual/Features.js"
import { VisualRepo } from "../src/stores/visual/VisualRepo.js"
import { Figures, pgCpuMeter } from "./Figures.js"
import { createAccounts, loadWorld, onDatabase, runBench, startServer, type Timed, timedFetch, warmUpRounds, withBenchDatabase } from "./Scratch.js"

const scaleName = (process.env["BENCH_SCALE"] ?? "bench") as ScaleName
const imageCount = Number(process.env["BENCH_IMAGES"] ?? 200_000)
const samples = Number(process.env["BENCH_SAMPLES"] ?? 100)
const queries = 40
const seed = 1

/**
 * Synthetic features of product `i`, as an unrelated photo's would be: random hash bits (two
 * unrelated images differ in about half) and a histogram of a few dominant colours.
 */
const syntheticFeatures = (i: number) => {
  const random = mulberry32(i * 104_729 + 3)
  const word = () => BigInt(Math.floor(random() * 2 ** 32))
  const colour = new Uint8Array(colourBins)
  let left = 255
  for (let k = 0; k < 5 && left > 0; k++) {
    const weight = k === 4 ? left : Math.min(left, Math.floor(random() * 160))
    colour[Math.floor(random() * colourBins)] += weight
    left -= weight
  }
  return { phash: (word() << 32n) | word(), dhash: (word() << 32n) | word(), colour }
}

const title = (i: number) => `Bench product ${i}`
const imageOf = (i: number) => `/media/stores/${((i * 2_654_435_761) >>> 0).toString(16).padStart(8, "0")}-bench-product-${i}.png`

const measure = async (url: string, dir: string, loaded: boolean) => {
  const generated = world({ scale: scales[scaleName], seed, today: new Date().toISOString().slice(0, 10) })
  const stores = Array.from(generated.records.stores()) as Array<{ external_id: string; country: string; platform: string; currency: string }>
  const storeOf = (i: number) => stores[i % stores.length]!
  const queried = Array.from({ length: queries }, (_, q) => Math.floor(((q + 0.5) * imageCount) / queries))
  if (!loaded) {
    console.log(`Visual search: ${stores.length.toLocaleString("en")} stores, ${imageCount.toLocaleString("en")} product images. Loading…`)
    const started = performance.now()
    await loadWorld(url, { scale: scaleName, seed, only: ["stores"] })
    const products = Stream.range(0, imageCount - 1).pipe(Stream.map((i) => ({
      store_external_id: storeOf(i).external_id,
      external_id: `bench-${i}`,
      title: title(i),
      price: 10 + (i % 90),
      currency: storeOf(i).currency,
      images: [imageOf(i)],
      fetched_at: "2026-11-21T21:00:00Z",
      source: "bench",
      method: "generated"
    })))
    await onDatabase(url, Effect.flatMap(Ingest, (ingest) => ingest.records("store-products", products)).pipe(Effect.provide(Ingest.Default)))
    console.log(`  products imported in ${((performance.now() - started) / 1000).toFixed(0)} s`)
    const drawnOf = async (i: number) =>
      Effect.runPromise(featuresOf((await drawArt(imageOf(i).slice("/media/stores/".length)))!).pipe(Effect.provide(ImageDecoding.Default)))
    const drawnFeatures = new Map<number, Awaited<ReturnType<typeof drawnOf>>>()
    for (const i of queried) drawnFeatures.set(i, await drawnOf(i))
    const features = Stream.range(0, imageCount - 1).pipe(
      Stream.map((i) => ({
        store_external_id: storeOf(i).external_id,
        external_id: `bench-${i}`,
        image_url: imageOf(i),
        ...(drawnFeatures.get(i) ?? syntheticFeatures(i))
      })),
      Stream.grouped(5_000)
    )
    await onDatabase(url, Effect.flatMap(VisualRepo, (repo) => Stream.runForEach(features, (batch) => repo.record(Chunk.toReadonlyArray(batch))))
      .pipe(Effect.provide(VisualRepo.Default)))
    console.log(`  loaded and indexed in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  }
  const photos = await Promise.all(queried.map(async (i) => {
    const png = (await drawArt(imageOf(i).slice("/media/stores/".length)))!
    const jpeg = await sharp(png).extract({ left: 16, top: 20, width: 368, height: 360 }).resize(300).jpeg({ quality: 70 }).toBuffer()
    return { i, bytes: new Uint8Array(jpeg) }
  }))
  const [key] = await createAccounts(url, 1)
  const server = await startServer(url, path.join(dir, "server.log"), {
    RATE_LIMIT_PER_MINUTE: "100000",
    DEMO_DATA: "false",
    STORE_MEDIA_DIR: path.join(dir, "media")
  })
  const base = `http://127.0.0.1:${server.port}`
  const timed = timedFetch(base, key!, await pgCpuMeter(url))
  const upload = (n: number, fields: Record<string, string> = {}) => {
    const form = new FormData()
    form.append("image", new Blob([photos[n % photos.length]!.bytes], { type: "image/jpeg" }), "photo.jpg")
    for (const [name, value] of Object.entries(fields)) form.append(name, value)
    return timed("/api/v1/store-explorer/visual-search", { method: "POST", body: form })
  }
  const json = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  try {
    const shapes: Array<[name: string, run: (n: number) => Promise<Timed>]> = [
      ["GET store-tracker (baseline)", () => timed("/api/v1/store-tracker", {})],
      ["visual search, upload", (n) => upload(n)],
      ["visual search, upload + country + platform", (n) => {
        const store = storeOf(photos[n % photos.length]!.i)
        return upload(n, { country: store.country, platform: store.platform })
      }],
      ["store explorer, by revenue", () => timed("/api/v1/store-explorer", json({ page_size: 20 }))]
    ]
    console.log("Warming up (the first visual search loads the index)…")
    const warm = performance.now()
    await upload(0)
    console.log(`  index loaded and first search answered in ${((performance.now() - warm) / 1000).toFixed(1)} s`)
    for (let n = 0; n < warmUpRounds(5, samples); n++) for (const [, run] of shapes) await run(n)
    const figures = new Figures()
    let first = 0
    for (let n = 0; n < samples; n++) {
      for (const [name, run] of shapes) {
        const sample = await run(n)
        const answer = sample.json
        figures.add(name, sample)
        if (name === "visual search, upload") {
          const wanted = `bench-${photos[n % photos.length]!.i}`
          if (answer.data[0]?.products[0]?.id === wanted) first++
          else if (process.env["BENCH_VERBOSE"]) console.log(`  missed ${wanted}: ${JSON.stringify(answer.data[0]?.products[0])}`)
        }
      }
    }
    figures.print("shape", "GET store-tracker (baseline)")
    console.log("")
    console.log(`source product first: ${first} of ${samples} searches`)
    console.log("goal: visual search p95 < 300 ms over 200,000 product images")
  } finally {
    await server.stop()
  }
}

runBench(() => withBenchDatabase("bench-stores", measure))

