import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Stream } from "effect"
import { createServer } from "node:http"
import sharp from "sharp"
import { CreativeHasher } from "../src/ads/library/CreativeHasher.js"
import { Ingest } from "../src/ingest/Ingest.js"
import { encodeSynthetic, ImageFeatures, syntheticCreative } from "../src/platform/media/ImageFeatures.js"
import { RemoteMedia } from "../src/platform/media/RemoteMedia.js"
import { ad } from "./fixtures/world.js"
import { fixtureReferences, magicAi } from "./support/AdWorld.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, testServer } from "./support/TestServer.js"

/** A CDN on localhost: two encodings of one creative, another creative, a 404 and a web page. */
class Cdn extends Context.Tag("test/Cdn")<Cdn, { readonly url: string; readonly port: number }>() {}
const CdnLive = Layer.scoped(
  Cdn,
  Effect.gen(function*() {
    const png = yield* encodeSynthetic(syntheticCreative(11), 500)
    const files: Record<string, [string, Uint8Array]> = {
      "/a.jpg": ["image/jpeg", yield* Effect.promise(() => sharp(png).jpeg({ quality: 50 }).toBuffer())],
      "/b.png": ["image/png", yield* Effect.promise(() => sharp(png).resize(300, 300).png().toBuffer())],
      "/other.png": ["image/png", yield* encodeSynthetic(syntheticCreative(99), 400)],
      "/page": ["text/html", new TextEncoder().encode("<html></html>")]
    }
    return yield* Effect.acquireRelease(
      Effect.async<{ url: string; port: number; close: () => void }>((resume) => {
        const server = createServer((request, response) => {
          const file = files[request.url ?? ""]
          if (!file) return response.writeHead(404).end()
          response.writeHead(200, { "content-type": file[0] }).end(file[1])
        })
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          const port = typeof address === "object" && address !== null ? address.port : 0
          resume(Effect.succeed({ url: `http://localhost:${port}`, port, close: () => server.close() }))
        })
      }),
      ({ close }) => Effect.sync(close)
    )
  })
)

const image = (url: string) => ({ media: [{ type: "image", url }] })
const video = (thumbnail: string) => ({ media: [{ type: "video", url: "https://cdn.example.com/v.mp4", thumbnail_url: thumbnail }] })

describe("creative hasher (npm run admin -- creatives hash)", () => {
  layer(
    Layer.mergeAll(
      testServer({ config: { rateLimitPerMinute: 100_000 }, env: { MEDIA_FETCH_ALLOW: "localhost" } }),
      CreativeHasher.Default.pipe(Layer.provide([RemoteMedia.layerWith({ allow: ["localhost"] }), ImageFeatures.Default])),
      Ingest.Default
    ).pipe(Layer.provideMerge(CdnLive), Layer.provideMerge(TestDatabase))
  )((it) => {
    it.effect("hashes each new creative once, records what it cannot fetch, and feeds image similarity", () =>
      Effect.gen(function*() {
        const { port, url } = yield* Cdn
        const ingest = yield* Ingest
        const hasher = yield* CreativeHasher
        const sql = yield* SqlClient.SqlClient
        yield* fixtureReferences
        const ads = [
          ad("img-a", image(`${url}/a.jpg`)),
          ad("img-b", video(`${url}/b.png`)),
          ad("img-other", image(`${url}/other.png`)),
          ad("img-missing", image(`${url}/missing.jpg`)),
          ad("img-page", image(`${url}/page`)),
          // a crawled URL is not trusted either: loopback by address is refused
          ad("img-loopback", image(`http://127.0.0.1:${port}/a.jpg`)),
          ad("no-media", { media: [], format: "text" })
        ]
        expect((yield* ingest.records("ads", Stream.fromIterable(ads))).rejected).toBe(0)

        expect(yield* hasher.hashPending({ limit: 100, concurrency: 4, retryFailed: false })).toEqual({ hashed: 3, failed: 3 })
        const rows = yield* sql<{ external_id: string; hashed: boolean; error: string | null }>`
          select a.external_id, c.phash is not null as hashed, c.error from ad_creatives c join ads a on a.id = c.ad_id order by 1`
        expect(rows.map((r) => [r.external_id, r.hashed])).toEqual([
          ["img-a", true], ["img-b", true], ["img-loopback", false], ["img-missing", false], ["img-other", true], ["img-page", false]
        ])
        const errors = Object.fromEntries(rows.map((r) => [r.external_id, r.error]))
        expect(errors["img-missing"]).toMatch(/404/)
        expect(errors["img-page"]).toMatch(/text\/html/)
        expect(errors["img-loopback"]).toBe("address not allowed: only public internet addresses are fetched")

        // nothing is fetched twice; failures only when asked
        expect(yield* hasher.hashPending({ limit: 100, concurrency: 4, retryFailed: false })).toEqual({ hashed: 0, failed: 0 })
        expect(yield* hasher.hashPending({ limit: 100, concurrency: 4, retryFailed: true })).toEqual({ hashed: 0, failed: 3 })

        // the two encodings of one creative find each other; the other creative does not come close
        const { api_key } = yield* account()
        const answer = yield* magicAi(api_key, { ad_id: "img-a", library: "social" })
        const found = answer.json.data as Array<{ id: string; similarity: number }>
        expect(found[0]!.id).toBe("img-b")
        expect(found[0]!.similarity).toBeGreaterThan(0.8)
      }))

    it.effect("stops at --limit, and hashes again a creative whose URL changed", () =>
      Effect.gen(function*() {
        const { url } = yield* Cdn
        const ingest = yield* Ingest
        const hasher = yield* CreativeHasher
        const sql = yield* SqlClient.SqlClient
        yield* ingest.records("ads", Stream.make(ad("img-c", image(`${url}/a.jpg`)), ad("img-d", image(`${url}/b.png`))))
        expect(yield* hasher.hashPending({ limit: 1, concurrency: 4, retryFailed: false })).toEqual({ hashed: 1, failed: 0 })
        expect(yield* hasher.hashPending({ limit: 1, concurrency: 4, retryFailed: false })).toEqual({ hashed: 1, failed: 0 })
        yield* ingest.records("ads", Stream.make(ad("img-c", image(`${url}/other.png`))))
        expect(yield* hasher.hashPending({ limit: 10, concurrency: 4, retryFailed: false })).toEqual({ hashed: 1, failed: 0 })
        const [row] = yield* sql<{ media_url: string }>`
          select c.media_url from ad_creatives c join ads a on a.id = c.ad_id where a.external_id = 'img-c'`
        expect(row!.media_url).toBe(`${url}/other.png`)
      }))
  })
})
