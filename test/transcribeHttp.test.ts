import { describe, expect, layer } from "@effect/vitest"
import { readFile } from "node:fs/promises"
import { Effect, Layer } from "effect"
import { AudioExtractor } from "../src/transcripts/engines/audio/AudioExtractor.js"
import { TranscriberLive } from "../src/transcripts/Engines.js"
import { MediaFetcher } from "../src/transcripts/engines/media/MediaFetcher.js"
import * as OfflineScript from "../src/transcripts/engines/script/OfflineScript.js"
import { ScriptWriter } from "../src/transcripts/engines/script/ScriptWriter.js"
import { smallWorldServer } from "./support/AdWorld.js"
import { fixture, speech, wer } from "./support/SpeechEngines.js"
import { get, MediaOrigin, mediaOrigin, post, scriptsUsed, signedInAccount, uniqueId } from "./support/Transcripts.js"

/**
 * The transcript pipeline's real engines through HTTP (issue 6): a video URL fetched from a local
 * origin, ffmpeg and pocketsphinx on committed media, the offline script writer. (The engines
 * alone: test/transcribePipeline.test.ts; a file of its own, since each real transcription costs
 * seconds of CPU.)
 */

describe("the real pipeline through HTTP", () => {
  const pipeline = Layer.mergeAll(MediaFetcher.remote, AudioExtractor.layerConfig, TranscriberLive, ScriptWriter.offline)
  layer(
    Layer.mergeAll(
      smallWorldServer({ pipeline, env: { MEDIA_FETCH_ALLOW: "127.0.0.2", PATH: process.env.PATH ?? "" } }),
      Layer.unwrapEffect(Effect.map(
        Effect.promise(() => Promise.all([readFile(fixture("ad-speech.mp4")), readFile(fixture("silent.mp4"))])),
        ([ad, silent]) => mediaOrigin({ "/ad.mp4": ad, "/silent.mp4": silent })
      ))
    ),
    { timeout: 120_000 }
  )((it) => {
    it.effect.skipIf(!speech)("a video URL becomes its transcript, and the transcript a similar script", () =>
      Effect.gen(function*() {
        const { base } = yield* MediaOrigin
        const reference = yield* Effect.promise(() => readFile(fixture("ad-speech.txt"), "utf8"))
        const user = yield* signedInAccount({ script_generation_limit: 5 })
        const video_id = uniqueId("video")
        const answer = yield* post("/api/v1/clipapp-shop/video/transcript/generate", user.both, { video_id, video_url: `${base}/ad.mp4` })
        expect(answer.status).toBe(200)
        expect(answer.json).toMatchObject({ success: true, source: "generated", script_generations_remaining: 4 })
        expect(wer(reference, answer.json.transcript)).toBeLessThan(0.35)
        expect(answer.json.segments.length).toBeGreaterThan(1)

        const script = yield* post("/api/v1/clipapp-shop/video/script/similar", user.both, {
          video_id,
          transcript: answer.json.transcript,
          product_name: "Night Balm",
          production_level: "Low"
        })
        expect(script.status).toBe(200)
        expect(script.json.script).toEqual(OfflineScript.write({ transcript: answer.json.transcript, product_name: "Night Balm", production_level: "Low" }).script)
        expect(script.json.script_generations_remaining).toBe(3)
      }), { timeout: 120_000 })

    it.effect.skipIf(!speech)("a silent video answers Transcription failed, takes no generation and stores nothing", () =>
      Effect.gen(function*() {
        const { base } = yield* MediaOrigin
        const user = yield* signedInAccount({ script_generation_limit: 5 })
        const video_id = uniqueId("video")
        const answer = yield* post("/api/v1/clipapp-shop/video/transcript/generate", user.both, { video_id, video_url: `${base}/silent.mp4` })
        expect([answer.status, answer.body]).toEqual([200, JSON.stringify({ success: false, message: "Transcription failed" })])
        expect(yield* scriptsUsed(user.id)).toBe(0)
        const read = yield* get(`/api/v1/clipapp-shop/video/transcript?video_id=${video_id}`, user.key)
        expect(read.json.transcript).toBe(null)
      }), { timeout: 120_000 })
  })
})
