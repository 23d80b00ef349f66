import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import sharp from "sharp"
import { maxTextCandidates, SimilarityRepo } from "../src/ads/library/SimilarityRepo.js"
import { Ingest } from "../src/ingest/Ingest.js"
import { encodeSynthetic, ImageFeatures, syntheticCreative, toSigned64 } from "../src/platform/media/ImageFeatures.js"
import { ad as fixtureAd } from "./fixtures/world.js"
import { ingestAll, magicAi, smallWorld, SmallWorldDatabase } from "./support/AdWorld.js"
import { account, balanceOf, call, signIn, testServer } from "./support/TestServer.js"

type DemoAd = { external_id: string; library: string; body: string | null; headline: string; niche: string; format: string; variant_group: string | null }
const demoAds = Array.from(smallWorld.records.ads()) as Array<DemoAd>
const drawings = new Map(Array.from(smallWorld.creatives()).map((c) => [c.external_id, c]))

// The source: a social ad with copy and its own creative (no variants to crowd the top 3).
const source = demoAds.find((a) => a.library === "social" && a.variant_group === null && a.body !== null && drawings.has(a.external_id))!
const elsewhere = demoAds.find((a) => a.library === "social" && a.niche !== source.niche && a.body !== null)!

/** The same copy, reworded: sentences in another order, a few words changed. */
const reworded = (body: string) =>
  body.replace("Meet the", "Say hello to the").replace(/\b(\d)/, "over $1").split(/(?<=[.!?])\s+/).reverse().join(" ")

/** The source's creative as a crawler might find it again: a JPEG at quality 40, resized to 250 px. */
const recompressed = Effect.flatMap(encodeSynthetic(syntheticCreative(drawings.get(source.external_id)!.seed, { noise: 0 }), 400), (png) =>
  Effect.promise(() => sharp(png).jpeg({ quality: 40 }).resize(250, 250).toBuffer()))

/** A real HTTP server handing out that image, as a CDN would. */
const imageServer = Effect.acquireRelease(
  Effect.flatMap(recompressed, (jpeg) =>
    Effect.async<{ url: string; close: () => void }>((resume) => {
      const server = createServer((_, response) => response.writeHead(200, { "content-type": "image/jpeg" }).end(jpeg))
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(Effect.succeed({ url: `http://localhost:${port}`, close: () => server.close() }))
      })
    })),
  ({ close }) => Effect.sync(close)
)

const magic = magicAi
const ids = (json: { data: Array<{ id: string }> }) => json.data.map((ad) => ad.id)

/** Near-duplicates of one ad of the small world planted (and one unrelated ad). */
const plantDuplicates = Effect.gen(function*() {
  const planted = [
    // the copy reworded, another creative
    fixtureAd("dup-text", { headline: source.headline, body: reworded(source.body!), niche: source.niche, ai_tags: null, description: null }),
    // other copy, the creative recompressed and resized
    fixtureAd("dup-image", { headline: elsewhere.headline, body: elsewhere.body, niche: elsewhere.niche, description: null }),
    // unrelated on both counts
    fixtureAd("unrelated", { headline: "Quarterly tax filing for freelancers", body: "File your quarterly estimated taxes in ten minutes. Accountants approved.", niche: "finance", description: null })
  ]
  yield* ingestAll("ads", planted)
  const features = yield* ImageFeatures
  const hashes = yield* features.hash(new Uint8Array(yield* recompressed))
  const repo = yield* SimilarityRepo
  yield* repo.saveHashes([
    { library: "social", externalId: "dup-image", hashes: { phash: toSigned64(hashes.phash), dhash: toSigned64(hashes.dhash) }, mediaUrl: "https://cdn.example.com/dup.jpg" },
    { library: "social", externalId: "unrelated", hashes: { phash: toSigned64(0x0f0f0f0f0f0f0f0fn), dhash: toSigned64(0x3c3c3c3c3c3c3c3cn) }, mediaUrl: null }
  ], new Date(0))
})

describe("similar-ads AI (POST /api/v1/magic-ai)", () => {
  const server = Layer.mergeAll(
    // Only `localhost` may be fetched although private: 127.0.0.1 itself stays refused.
    testServer({ config: { rateLimitPerMinute: 100_000 }, env: { MEDIA_FETCH_ALLOW: "localhost" } }),
    SimilarityRepo.Default,
    ImageFeatures.Default
  ).pipe(Layer.provideMerge(Ingest.Default), Layer.provideMerge(SmallWorldDatabase))
  layer(Layer.effectDiscard(plantDuplicates).pipe(Layer.provideMerge(server)), { timeout: 60_000 })((it) => {
    it.effect("holds every demo creative's hashes and the two planted ones", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        expect((yield* sql<{ n: number }>`select count(*)::int as n from ad_creatives`)[0]!.n).toBe(drawings.size + 2)
      }))


    it.effect("like an ad: its reworded copy and its recompressed creative rank in the top 3; unrelated ads do not", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const answer = yield* magic(api_key, { ad_id: source.external_id, library: "social" })
        expect(answer.status).toBe(200)
        const top = ids(answer.json).slice(0, 3)
        expect(top).toContain("dup-text")
        expect(top).toContain("dup-image")
        expect(ids(answer.json)).not.toContain("unrelated")
        expect(ids(answer.json)).not.toContain(source.external_id)
        const scores: Array<number> = answer.json.data.map((ad: { similarity: number }) => ad.similarity)
        expect(scores).toEqual([...scores].sort((a, b) => b - a))
        expect(scores.every((s) => s > 0 && s <= 1)).toBe(true)
        expect((yield* balanceOf(id)).used).toBe(1)
      }))

    it.effect("like a copy: the reworded text finds its source in the top 3", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const answer = yield* magic(api_key, { text: reworded(source.body!) })
        expect(answer.status).toBe(200)
        expect(ids(answer.json).slice(0, 3)).toContain(source.external_id)
        expect(ids(answer.json).slice(0, 3)).not.toContain("unrelated")
        const unrelated = yield* magic(api_key, { text: "File your quarterly estimated taxes in ten minutes" })
        expect(ids(unrelated.json)[0]).toBe("unrelated")
      }))

    it.effect("like an image: the recompressed, resized creative fetched from a URL finds its source first", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const { url } = yield* imageServer
        const answer = yield* magic(api_key, { image_url: `${url}/creative.jpg`, limit: 5 })
        expect(answer.status).toBe(200)
        expect(ids(answer.json).slice(0, 3)).toContain(source.external_id)
        expect(ids(answer.json).slice(0, 3)).toContain("dup-image")
        expect(ids(answer.json)).not.toContain("unrelated")
      }).pipe(Effect.scoped))

    it.effect("an image URL must be public: loopback, private and metadata addresses are refused (400, credit kept)", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const { url } = yield* imageServer
        const port = new URL(url).port
        for (const target of [`http://127.0.0.1:${port}/creative.jpg`, "http://10.0.0.1/x.jpg", "http://169.254.169.254/latest/meta-data", "http://[::1]/x.png"]) {
          const answer = yield* magic(api_key, { image_url: target })
          expect([target, answer.status]).toEqual([target, 400])
          expect(answer.json.error).toBe("image_url: address not allowed: only public internet addresses are fetched")
        }
        const ftp = yield* magic(api_key, { image_url: "ftp://example.com/x.png" })
        expect(ftp.json.error).toMatch(/^image_url: /)
        expect((yield* balanceOf(id)).used).toBe(5)
      }).pipe(Effect.scoped))

    it.effect("the legacy dashboard path /api/magic-ai answers the same under a browser session, charging no credit (S4)", () =>
      Effect.gen(function*() {
        const email = `magic-${Date.now()}@example.com`
        const created = yield* account({ email, password: "correct horse battery", plan: "basic" })
        const session = yield* signIn(email, "correct horse battery")
        const body = JSON.stringify({ ad_id: source.external_id, library: "social", limit: 5 })
        const legacy = yield* call("/api/magic-ai", { method: "POST", headers: { ...session, "content-type": "application/json" }, body })
        expect(legacy.status).toBe(200)
        const keyed = yield* magic(created.api_key, JSON.parse(body))
        expect(JSON.parse(legacy.body).data).toEqual(keyed.json.data)
        expect((yield* balanceOf(created.id)).used).toBe(1)
        const anonymous = yield* call("/api/magic-ai", { method: "POST", headers: { "content-type": "application/json" }, body })
        expect([anonymous.status, anonymous.body]).toEqual([401, `{"success":false,"error":"Unauthorized"}`])
      }))

    it.effect("a text search lists at most the 300 ads that share most of its words (maxTextCandidates)", () =>
      Effect.gen(function*() {
        const copy = (n: number) => `Zephyrquartz lantern ${n} glows amber over the marshland`
        yield* ingestAll("ads", Array.from({ length: maxTextCandidates + 5 }, (_, n) => fixtureAd(`lantern-${n}`, { headline: "Zephyrquartz lantern", body: copy(n), description: null, ai_tags: null })))
        const { api_key } = yield* account()
        const found: Array<string> = []
        let answer = yield* magic(api_key, { text: copy(1), limit: 50 })
        while (true) {
          found.push(...ids(answer.json))
          if (!answer.json.has_more) break
          answer = yield* magic(api_key, { scroll_token: answer.json.scroll_token })
        }
        expect(found.filter((id) => id.startsWith("lantern-"))).toHaveLength(maxTextCandidates)
        expect(found[0]).toBe("lantern-1")
      }), { timeout: 30_000 })

    it.effect("pages by token like the searches, and validates what it is asked", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        // A family of ads sharing unusual words: more than 50 alike whichever words the text
        // probe anchors on (the rarest by the planner's statistics, which autovacuum may or may
        // not have gathered yet).
        const copy = (n: number) => `Quasarmint kettle ${n} hums softly by the harbour`
        yield* ingestAll("ads", Array.from({ length: 120 }, (_, n) => fixtureAd(`kettle-${n}`, { headline: "Quasarmint kettle", body: copy(n), description: null, ai_tags: null })))
        const walk = (limit: number) =>
          Effect.gen(function*() {
            const walked: Array<string> = []
            let answer = yield* magic(api_key, { ad_id: "kettle-0", library: "social", limit })
            while (true) {
              walked.push(...ids(answer.json))
              if (!answer.json.has_more) return walked
              answer = yield* magic(api_key, { scroll_token: answer.json.scroll_token })
            }
          })
        const [small, large] = [yield* walk(3), yield* walk(50)]
        // a copy at the longest (5,000 characters) still pages: its token carries it
        const longest = `${source.body} `.repeat(100).slice(0, 5_000)
        const first = yield* magic(api_key, { text: longest, limit: 1 })
        expect([first.status, first.json.has_more]).toEqual([200, true])
        const next = yield* magic(api_key, { scroll_token: first.json.scroll_token })
        expect(next.status).toBe(200)
        expect(next.json.data[0].id).not.toBe(first.json.data[0].id)
        expect((yield* magic(api_key, { text: longest + "x" })).json.error).toBe("text: must be a non-empty text of at most 5000 characters")
        expect(small.length).toBeGreaterThan(50)
        expect(new Set(small).size).toBe(small.length)
        expect(small).toEqual(large)
        const cases: Array<[unknown, number, string]> = [
          [{}, 400, "Send exactly one of ad_id, text or image_url (or the scroll_token of an earlier answer)"],
          [{ text: "a", ad_id: "b" }, 400, "Send exactly one of ad_id, text or image_url (or the scroll_token of an earlier answer)"],
          [{ text: "serum", limit: 51 }, 400, "limit: must be an integer from 1 to 50"],
          [{ text: "serum", colour: "red" }, 400, "colour: unknown parameter"],
          [{ text: "serum", library: ["tv"] }, 400, "library.0: must be one of social, pinboard, clipapp, search"],
          [{ text: "serum", sort: "newest" }, 400, "sort: similar ads are ordered by similarity (relevance)"],
          [{ ad_id: "no-such-ad" }, 404, "Ad not found"],
          [{ ad_id: "bad id!" }, 400, "ad_id: must be 1 to 200 letters, digits or . _ : @ / -"],
          [{ image_url: "file:///etc/passwd" }, 400, "image_url: must be an http(s) URL of at most 2048 characters"],
          [{ text: "   " }, 400, "text: must be a non-empty text of at most 5000 characters"]
        ]
        for (const [body, status, error] of cases) {
          const bad = yield* magic(api_key, body)
          expect([body, bad.status, bad.body]).toEqual([body, status, JSON.stringify({ success: false, error })])
        }
      }))
  })
})
