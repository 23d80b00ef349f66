import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { readFile } from "node:fs/promises"
import { Deferred, Effect, Fiber, Layer, Queue, Stream, TestClock } from "effect"
import { AudioExtractor } from "../src/transcripts/engines/audio/AudioExtractor.js"
import { MediaFetcher } from "../src/transcripts/engines/media/MediaFetcher.js"
import { AudioUnavailable, type ScriptBrief, type WrittenScript } from "../src/transcripts/engines/Pipeline.js"
import { ScriptWriter } from "../src/transcripts/engines/script/ScriptWriter.js"
import { Transcriber } from "../src/transcripts/engines/speech/Transcriber.js"
import { Transcripts } from "../src/transcripts/Transcripts.js"
import { loadedSmallWorldServer, recordsOf } from "./support/AdWorld.js"
import { balanceOf, call } from "./support/TestServer.js"
import { get, MediaOrigin, mediaOrigin, parsed, post, scriptsUsed, signedInAccount, uniqueId } from "./support/Transcripts.js"

/**
 * Transcript and similar-script routes (issue 6) through real HTTP, PostgreSQL and the real
 * SSRF-safe media fetcher; the audio, speech and script engines are deterministic fakes (the
 * real ones have their own tests): a "media file" here is text, and its "speech" is that text.
 */

/** What the fakes saw: the pipeline must run once per generation, and not at all when refused. */
const seen = { transcribed: 0, written: [] as Array<ScriptBrief> }

const spoken = "Tired of dry skin every winter? Meet Glow Serum. It hydrates in seconds. Get twenty percent off today."
const files: Record<string, string> = {
  "/ad.mp4": spoken,
  "/other.mp4": "Struggling to sleep at night? Dream Tea calms you down. Order now and save.",
  "/stored.mp4": "This came from the stored address.",
  "/slow.mp4": `slow ${spoken}`,
  "/silent.mp4": "",
  "/unreadable.mp4": "unreadable"
}

const FakeAudio = Layer.succeed(AudioExtractor, AudioExtractor.of({
  engine: "fake audio",
  toWav: (mediaPath) =>
    Effect.flatMap(Effect.promise(() => readFile(mediaPath, "utf8")), (text) =>
      text === "unreadable"
        ? Effect.fail(new AudioUnavailable({ reason: "ffmpeg could not read the media" }))
        : Effect.succeed({ path: mediaPath, seconds: 12 }))
}))

/** Transcriptions of "slow" media that have started, each held until the test releases it. */
const slow = Effect.runSync(Queue.unbounded<Deferred.Deferred<void>>())

/** Each sentence a segment of 2 s; "slow" media is held until the test lets it finish. */
const FakeSpeech = Layer.succeed(Transcriber, Transcriber.of({
  engine: "fake speech",
  transcribe: (wavPath) =>
    Effect.gen(function*() {
      seen.transcribed++
      let text = yield* Effect.promise(() => readFile(wavPath, "utf8"))
      if (text.startsWith("slow ")) {
        text = text.slice(5)
        const release = yield* Deferred.make<void>()
        yield* Queue.offer(slow, release)
        yield* Deferred.await(release)
      }
      const sentences = text.match(/[^.?!]+[.?!]/g) ?? []
      return { text, segments: sentences.map((s, i) => ({ start: i * 2, end: i * 2 + 2, text: s.trim() })) }
    })
}))

const writtenFor = (brief: ScriptBrief): WrittenScript => ({
  script: {
    framework_used: "Problem-Agitate-Solution",
    rows: [{ beat: "hook", seconds: "0-3", visual: `${brief.production_level} shot`, voiceover: `Meet ${brief.product_name ?? "it"}`, on_screen_text: "" }]
  },
  script_analysis: {
    framework: { name: "Problem-Agitate-Solution", stages: [{ name: "problem", purpose: "name the pain", evidence: brief.transcript.slice(0, 20) }] },
    ad_pattern: { hook_type: "question", structure: "hook > offer", pacing: "fast", call_to_action: "" },
    creative_strategies: [{ name: "discount", description: "a price cut today" }]
  }
})

const FakeWriter = Layer.succeed(ScriptWriter, ScriptWriter.of({
  engine: "fake scripts",
  write: (brief) => Effect.sync(() => (seen.written.push(brief), writtenFor(brief)))
}))

const pipeline = Layer.mergeAll(MediaFetcher.remote, FakeAudio, FakeSpeech, FakeWriter)

const v1 = "/api/v1/clipapp-shop/video"
const legacy = "/api/clipapp-shop/video"

const refused = (message: string) => JSON.stringify({ success: false, message })
const empty = JSON.stringify({ success: true, transcript: null, segments: [], script_analysis: null, similar_scripts: [] })
const segmentsOf = (text: string) =>
  (text.match(/[^.?!]+[.?!]/g) ?? []).map((s, i) => ({ start: i * 2, end: i * 2 + 2, text: s.trim() }))

describe("transcripts and similar scripts", () => {
  layer(Layer.mergeAll(loadedSmallWorldServer({ pipeline, env: { MEDIA_FETCH_ALLOW: "127.0.0.2" } }), mediaOrigin(files)), { timeout: 60_000 })((it) => {

    it.effect("the transcript read answers the empty four-field record, 1 credit, no script generation", () =>
      Effect.gen(function*() {
        const user = yield* signedInAccount()
        const answer = yield* get(`${v1}/transcript?video_id=${uniqueId("video")}`, user.key)
        expect([answer.status, answer.body]).toEqual([200, empty])
        expect((yield* balanceOf(user.id)).used).toBe(1)
        expect(yield* scriptsUsed(user.id)).toBe(0)
        const ad = yield* get(`/api/v1/ad-transcript?ad_id=${uniqueId("ad")}`, user.key)
        expect([ad.status, ad.body]).toEqual([200, empty])
        const bad = yield* get(`${v1}/transcript`, user.key)
        expect(bad.status).toBe(400)
        expect(bad.json.error).toMatch(/^video_id/)
      }))

    it.effect("a key alone is not logged in (S6): metered, 200, nothing generated", () =>
      Effect.gen(function*() {
        const { base } = yield* MediaOrigin
        const user = yield* signedInAccount()
        const before = seen.transcribed
        const answer = yield* post(`${v1}/transcript/generate`, user.key, { video_id: uniqueId("video"), video_url: `${base}/ad.mp4` })
        expect([answer.status, answer.body]).toEqual([200, refused("Not logged in")])
        const script = yield* post(`${v1}/script/similar`, user.key, { video_id: uniqueId("video"), transcript: spoken })
        expect([script.status, script.body]).toEqual([200, refused("Not logged in")])
        expect((yield* balanceOf(user.id)).used).toBe(2)
        expect(seen.transcribed).toBe(before)
        expect(yield* scriptsUsed(user.id)).toBe(0)
        // Another account's session does not make this key logged in.
        const other = yield* signedInAccount()
        const foreign = yield* post(`${v1}/transcript/generate`, { ...user.key, cookie: other.browser.cookie }, { video_id: uniqueId("video") })
        expect(foreign.body).toBe(refused("Not logged in"))
      }))

    it.effect("generates with a session, stores it, then answers it cached for free; the read returns it", () =>
      Effect.gen(function*() {
        const { base, hits } = yield* MediaOrigin
        const user = yield* signedInAccount({ script_generation_limit: 5 })
        const video_id = uniqueId("video")
        const first = yield* post(`${v1}/transcript/generate`, user.both, { video_id, video_url: `${base}/ad.mp4` })
        expect([first.status, first.body]).toEqual([200, JSON.stringify({
          success: true,
          transcript: spoken,
          segments: segmentsOf(spoken),
          source: "generated",
          script_generations_remaining: 4
        })])
        expect(hits.at(-1)).toBe("/ad.mp4")
        const transcribed = seen.transcribed
        const again = yield* post(`${v1}/transcript/generate`, user.both, { video_id, video_url: `${base}/other.mp4` })
        expect(again.body).toBe(JSON.stringify({ success: true, transcript: spoken, segments: segmentsOf(spoken), source: "cached" }))
        expect(seen.transcribed).toBe(transcribed)
        expect(yield* scriptsUsed(user.id)).toBe(1)
        const read = yield* get(`${v1}/transcript?video_id=${video_id}`, user.key)
        expect(read.body).toBe(JSON.stringify({
          success: true,
          transcript: spoken,
          segments: segmentsOf(spoken),
          script_analysis: null,
          similar_scripts: []
        }))
        // A cached answer needs no plan and no quota: a free account on its dashboard gets it too.
        const free = yield* signedInAccount({ plan: "free" })
        const cached = yield* post(`${legacy}/transcript/generate`, free.browser, { video_id })
        expect(cached.body).toBe(again.body)
        expect((yield* balanceOf(user.id)).used).toBe(3)
      }))

    it.effect("the legacy session path generates with no credit; a form-encoded body works", () =>
      Effect.gen(function*() {
        const { base } = yield* MediaOrigin
        const user = yield* signedInAccount({ script_generation_limit: 2 })
        const answer = yield* Effect.map(
          call(`${legacy}/transcript/generate`, {
            method: "POST",
            headers: { ...user.browser, "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ video_id: uniqueId("video"), video_url: `${base}/ad.mp4` }).toString()
          }),
          parsed
        )
        expect(answer.json).toMatchObject({ success: true, source: "generated", script_generations_remaining: 1 })
        expect((yield* balanceOf(user.id)).used).toBe(0)
        expect(yield* scriptsUsed(user.id)).toBe(1)
        // Without a session the legacy path is 401 (S4).
        const anonymous = yield* post(`${legacy}/transcript/generate`, { origin: user.browser.origin }, { video_id: uniqueId("video") })
        expect([anonymous.status, anonymous.body]).toEqual([401, JSON.stringify({ success: false, error: "Unauthorized" })])
      }))

    it.effect("gates in the spec's order: plan below Basic, then the month's generations; refusals take nothing", () =>
      Effect.gen(function*() {
        const { base } = yield* MediaOrigin
        const before = seen.transcribed
        const free = yield* signedInAccount({ plan: "free" })
        const upgrade = yield* post(`${legacy}/transcript/generate`, free.browser, { video_id: uniqueId("video"), video_url: `${base}/ad.mp4` })
        expect([upgrade.status, upgrade.body]).toEqual([200, refused("Upgrade your plan to generate video scripts")])
        const freeScript = yield* post(`${legacy}/script/similar`, free.browser, { video_id: uniqueId("video"), transcript: spoken })
        expect(freeScript.body).toBe(refused("Upgrade your plan to generate video scripts"))

        const none = yield* signedInAccount({ script_generation_limit: 0 })
        const exhausted = yield* post(`${v1}/transcript/generate`, none.both, { video_id: uniqueId("video"), video_url: `${base}/ad.mp4` })
        expect([exhausted.status, exhausted.body]).toEqual([200, refused("No script generations left this month. Limit resets in 30 days.")])
        const ad = yield* post("/api/v1/ad-similar-script-generate", none.key, { ad_id: uniqueId("ad"), transcript: spoken })
        expect(ad.body).toBe(refused("No script generations left this month. Limit resets in 30 days."))
        expect(seen.transcribed).toBe(before)
        // The refusals were deliberate answers: their credits are kept (G4).
        expect((yield* balanceOf(none.id)).used).toBe(2)
      }))

    it.effect("pipeline failures: no URL, the SSRF guard, unreadable audio, silence; none takes a generation or stores", () =>
      Effect.gen(function*() {
        const { base, hits } = yield* MediaOrigin
        const user = yield* signedInAccount({ script_generation_limit: 10 })
        const generate = (body: Record<string, string>) => post(`${v1}/transcript/generate`, user.both, { video_id: uniqueId("video"), ...body })
        const earlier = hits.length
        expect((yield* generate({})).body).toBe(refused("Video not found or no playable URL available"))
        const origin = base.replace("127.0.0.2", "127.0.0.1")
        const cases: Array<[Record<string, string>, string]> = [
          [{ video_url: `${origin}/ad.mp4` }, "Could not prepare audio (download failed: address not allowed: only public internet addresses are fetched)"],
          [{ video_url: "http://10.1.2.3/ad.mp4" }, "Could not prepare audio (download failed: address not allowed: only public internet addresses are fetched)"],
          [{ video_cdn_url: "http://169.254.169.254/latest/meta-data" }, "Could not prepare audio (download failed: address not allowed: only public internet addresses are fetched)"],
          [{ video_url: `${base}/to-metadata` }, "Could not prepare audio (download failed: address not allowed: only public internet addresses are fetched)"],
          [{ video_url: "ftp://127.0.0.2/ad.mp4" }, "__400__"],
          [{ video_url: `${base}/missing.mp4` }, "Could not prepare audio (download failed: server answered 404)"],
          [{ video_url: `${base}/unreadable.mp4` }, "Could not prepare audio (ffmpeg could not read the media)"],
          [{ video_url: `${base}/silent.mp4` }, "Transcription failed"]
        ]
        for (const [body, message] of cases) {
          const answer = yield* generate(body)
          if (message === "__400__") expect([answer.status, answer.json.error]).toEqual([400, "video_url: must be an http(s) URL of at most 2048 characters"])
          else expect([body, answer.status, answer.body]).toEqual([body, 200, refused(message)])
        }
        // Refused before any connection: the origin saw only the allowed fetches.
        expect(hits.slice(earlier)).toEqual(["/to-metadata", "/missing.mp4", "/unreadable.mp4", "/silent.mp4"])
        expect(yield* scriptsUsed(user.id)).toBe(0)
        const sql = yield* SqlClient.SqlClient
        expect((yield* sql<{ n: number }>`select count(*)::int as n from transcripts where transcript is null and script is null`)[0]!.n).toBe(0)
      }))

    it.effect("the stored URL comes first, then video_cdn_url, then video_url (rule 1)", () =>
      Effect.gen(function*() {
        const { base, hits } = yield* MediaOrigin
        const sql = yield* SqlClient.SqlClient
        const user = yield* signedInAccount({ script_generation_limit: 10 })
        const [stored, bare] = recordsOf("shop-videos").slice(0, 2)
        yield* sql`update shop_videos set cdn_url = ${`${base}/stored.mp4`} where external_id = ${stored!.external_id}`
        yield* sql`update shop_videos set cdn_url = null, playback_url = null where external_id = ${bare!.external_id}`
        const fromStore = yield* post(`${v1}/transcript/generate`, user.both, {
          video_id: stored!.external_id,
          video_cdn_url: `${base}/other.mp4`,
          video_url: `${base}/ad.mp4`
        })
        expect([fromStore.json.transcript, hits.at(-1)]).toEqual(["This came from the stored address.", "/stored.mp4"])
        const cdn = yield* post(`${v1}/transcript/generate`, user.both, {
          video_id: bare!.external_id,
          video_cdn_url: `${base}/other.mp4`,
          video_url: `${base}/ad.mp4`
        })
        expect(hits.at(-1)).toBe("/other.mp4")
        expect(cdn.json.source).toBe("generated")
      }))

    it.effect("two concurrent generations of one video run the pipeline once and take one generation", () =>
      Effect.gen(function*() {
        const { base, hits } = yield* MediaOrigin
        const user = yield* signedInAccount({ script_generation_limit: 10 })
        const video_id = uniqueId("video")
        const before = { transcribed: seen.transcribed, fetched: hits.filter((h) => h === "/slow.mp4").length }
        const calls = yield* Effect.fork(Effect.all(
          Array.from({ length: 3 }, () => post(`${v1}/transcript/generate`, user.both, { video_id, video_url: `${base}/slow.mp4` })),
          { concurrency: "unbounded" }
        ))
        // One transcribes (held); the two others wait, for a turn or for the record.
        const release = yield* Queue.take(slow)
        const transcripts = yield* Transcripts
        yield* Stream.runDrain(Stream.take(Stream.filter(transcripts.waiting, (n) => n === 2), 1))
        yield* Deferred.succeed(release, undefined)
        const answers = yield* Fiber.join(calls)
        expect(answers.map((a) => a.json.source).sort()).toEqual(["cached", "cached", "generated"])
        expect(answers.map((a) => a.json.transcript)).toEqual([spoken, spoken, spoken])
        expect(seen.transcribed - before.transcribed).toBe(1)
        expect(hits.filter((h) => h === "/slow.mp4").length - before.fetched).toBe(1)
        expect(yield* scriptsUsed(user.id)).toBe(1)
      }))

    it.effect("the month's generations: exact arithmetic, and a new 30-day period after the last one ends", () =>
      Effect.gen(function*() {
        const { base } = yield* MediaOrigin
        const user = yield* signedInAccount({ script_generation_limit: 2 })
        const generate = () => post("/api/v1/ad-transcript-generate", user.key, { ad_id: uniqueId("ad"), video_url: `${base}/ad.mp4` })
        expect((yield* generate()).json.script_generations_remaining).toBe(1)
        yield* TestClock.adjust("10 days")
        expect((yield* generate()).json.script_generations_remaining).toBe(0)
        expect((yield* generate()).body).toBe(refused("No script generations left this month. Limit resets in 30 days."))
        // The period started with the first generation: 19 days later it still holds...
        yield* TestClock.adjust("19 days")
        expect((yield* generate()).body).toBe(refused("No script generations left this month. Limit resets in 30 days."))
        // ...and a day later a new one begins.
        yield* TestClock.adjust("1 day")
        expect((yield* generate()).json.script_generations_remaining).toBe(1)
      }))

    it.effect("ad routes take ad_id and a key alone (not session-only)", () =>
      Effect.gen(function*() {
        const { base } = yield* MediaOrigin
        const user = yield* signedInAccount({ script_generation_limit: 5 })
        const ad_id = uniqueId("ad")
        const generated = yield* post("/api/v1/ad-transcript-generate", user.key, { ad_id, video_url: `${base}/other.mp4` })
        expect(generated.json).toMatchObject({ success: true, source: "generated", script_generations_remaining: 4 })
        const read = yield* get(`/api/v1/ad-transcript?ad_id=${ad_id}`, user.key)
        expect(read.json.transcript).toBe(files["/other.mp4"])
        const wrongField = yield* post("/api/v1/ad-transcript-generate", user.key, { video_id: ad_id })
        expect([wrongField.status, wrongField.json.error]).toEqual([400, "video_id: unknown parameter"])
        const noId = yield* post("/api/v1/ad-transcript-generate", user.key, { video_url: `${base}/other.mp4` })
        expect([noId.status, noId.json.error]).toEqual([400, "ad_id is missing"])
      }))

    it.effect("similar script: validates production_level, writes, lists similar stored transcripts, stores, takes one generation", () =>
      Effect.gen(function*() {
        const { base } = yield* MediaOrigin
        const user = yield* signedInAccount({ script_generation_limit: 20 })
        // Two stored transcripts: one close to the brief's, one not.
        const near = uniqueId("ad")
        const far = uniqueId("ad")
        yield* post("/api/v1/ad-transcript-generate", user.key, { ad_id: near, video_url: `${base}/ad.mp4` })
        yield* post("/api/v1/ad-transcript-generate", user.key, { ad_id: far, video_url: `${base}/other.mp4` })
        const used = yield* scriptsUsed(user.id)

        const bad = yield* post(`${v1}/script/similar`, user.both, { video_id: uniqueId("video"), transcript: spoken, production_level: "Ultra" })
        expect([bad.status, bad.body]).toEqual([400, JSON.stringify({ success: false, error: "production_level: must be one of Low, Medium, High" })])
        const missing = yield* post(`${v1}/script/similar`, user.both, { video_id: uniqueId("video") })
        expect([missing.status, missing.json.error]).toEqual([400, "transcript is missing"])
        expect(yield* scriptsUsed(user.id)).toBe(used)

        const video_id = uniqueId("video")
        const brief = { video_id, transcript: `${spoken} Limited stock.`, product_name: "Glow Serum", brand_name: "Glow" }
        const answer = yield* post(`${v1}/script/similar`, user.both, brief)
        const written = writtenFor({ ...brief, production_level: "Medium" })
        expect(answer.status).toBe(200)
        expect(Object.keys(answer.json)).toEqual(["success", "script", "script_analysis", "similar_scripts", "script_generations_remaining"])
        expect(answer.json).toMatchObject({ success: true, ...written, script_generations_remaining: 20 - used - 1 })
        expect(seen.written.at(-1)).toMatchObject({ production_level: "Medium", product_name: "Glow Serum", brand_name: "Glow" })
        const similar = answer.json.similar_scripts as Array<{ type: string; id: string; similarity: number; transcript: string }>
        const ids = similar.map((s) => s.id)
        expect(ids).toContain(near)
        expect(ids.indexOf(near)).toBeLessThan(ids.includes(far) ? ids.indexOf(far) : Infinity)
        const nearest = similar.find((s) => s.id === near)!
        expect(nearest).toMatchObject({ type: "ad", transcript: spoken, framework_used: null })
        expect(nearest.similarity).toBeGreaterThan(0.5)
        expect(nearest.similarity).toBeLessThanOrEqual(1)
        for (let i = 1; i < similar.length; i++) expect(similar[i - 1]!.similarity).toBeGreaterThanOrEqual(similar[i]!.similarity)
        expect(similar.length).toBeLessThanOrEqual(5)

        // Attached to the video: the read shows its analysis and the similar scripts.
        const read = yield* get(`${v1}/transcript?video_id=${video_id}`, user.key)
        expect(read.json).toEqual({ success: true, transcript: null, segments: [], script_analysis: written.script_analysis, similar_scripts: similar })
        expect(yield* scriptsUsed(user.id)).toBe(used + 1)

        const low = yield* post(`${v1}/script/similar`, user.both, { ...brief, production_level: "Low" })
        expect(low.json.script.rows[0].visual).toBe("Low shot")
      }))
  })
})
