import { describe, expect, it, layer } from "@effect/vitest"
import { existsSync } from "node:fs"
import { readdir, readFile, writeFile } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { ConfigProvider, Context, Duration, Effect, Exit, Layer, Option, Scope } from "effect"
import { AudioExtractor, wavPeak } from "../src/transcripts/engines/audio/AudioExtractor.js"
import { runChild } from "../src/platform/ChildProcess.js"
import { ScriptWriterLive, TranscriberLive } from "../src/transcripts/Engines.js"
import * as OfflineScript from "../src/transcripts/engines/script/OfflineScript.js"
import { type ScriptBrief, type WrittenScript } from "../src/transcripts/engines/Pipeline.js"
import * as Pocketsphinx from "../src/transcripts/engines/speech/Pocketsphinx.js"
import { ScriptWriter } from "../src/transcripts/engines/script/ScriptWriter.js"
import { Transcriber } from "../src/transcripts/engines/speech/Transcriber.js"
import { ffmpeg, fixture, pocketsphinx, speech, wer, withPath } from "./support/SpeechEngines.js"
import { tempDir } from "./support/TempDir.js"

/**
 * The transcript pipeline's real engines (issue 6): ffmpeg and pocketsphinx on committed media
 * (test/fixtures/make-fixtures.sh), the offline script writer, and the OpenAI-compatible
 * transcription and language-model engines against a recording HTTP server. The same engines
 * through HTTP: test/transcribeHttp.test.ts.
 */

const extractor = AudioExtractor.layerConfig.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["PATH", process.env.PATH ?? ""]])))))

/**
 * A 16 kHz mono 16-bit WAV of `samples` samples, all 0 but the one at `at`, which is `value`
 * (then -`value` next to it): what `toWav` writes.
 */
const wavOf = (dir: string, name: string, samples: number, at: number, value: number) =>
  Effect.promise(async () => {
    const data = Buffer.alloc(samples * 2)
    if (value !== 0) {
      data.writeInt16LE(value, at * 2)
      data.writeInt16LE(-value, at * 2 + 2)
    }
    const header = Buffer.alloc(44)
    header.write("RIFF", 0, "ascii")
    header.writeUInt32LE(36 + data.length, 4)
    header.write("WAVEfmt ", 8, "ascii")
    header.writeUInt32LE(16, 16)
    header.writeUInt16LE(1, 20) // PCM
    header.writeUInt16LE(1, 22) // mono
    header.writeUInt32LE(16_000, 24)
    header.writeUInt32LE(32_000, 28) // bytes a second
    header.writeUInt16LE(2, 32)
    header.writeUInt16LE(16, 34)
    header.write("data", 36, "ascii")
    header.writeUInt32LE(data.length, 40)
    const file = path.join(dir, `${name}.wav`)
    await writeFile(file, Buffer.concat([header, data]))
    return file
  })

/** Media to WAV to transcript in one scope, with the WAV's path kept to check it is gone after. */
const transcribeFile = (file: string) =>
  Effect.gen(function*() {
    const audio = yield* AudioExtractor
    const transcriber = yield* Transcriber
    const scope = yield* Scope.make()
    const wav = yield* Scope.extend(audio.toWav(file), scope)
    const transcript = yield* transcriber.transcribe(wav.path)
    const existed = existsSync(wav.path)
    yield* Scope.close(scope, Exit.void)
    return { ...transcript, seconds: wav.seconds, wavExisted: existed, wavRemains: existsSync(path.dirname(wav.path)) }
  })

describe("ffmpeg and pocketsphinx", () => {
  const engines = Layer.mergeAll(extractor, Option.match(pocketsphinx, {
    onNone: () => Layer.succeed(Transcriber, Transcriber.of({ engine: "none", transcribe: () => Effect.die("not installed") })),
    onSome: (install) => Pocketsphinx.layer(install)
  }))

  it.effect.skipIf(!speech)("hears the committed ad: word error rate under 0.35, segments ordered within the audio", () =>
    Effect.gen(function*() {
      const reference = yield* Effect.promise(() => readFile(fixture("ad-speech.txt"), "utf8"))
      const heard = yield* transcribeFile(fixture("ad-speech.mp4"))
      expect(heard.seconds).toBeGreaterThan(12)
      expect(heard.seconds).toBeLessThan(14)
      expect(wer(reference, heard.text)).toBeLessThan(0.35)
      expect(heard.segments.length).toBeGreaterThan(1)
      expect(heard.segments.map((s) => s.text).join(" ")).toBe(heard.text)
      heard.segments.forEach((segment, i) => {
        expect(segment.start).toBeLessThanOrEqual(segment.end)
        expect(segment.end).toBeLessThanOrEqual(heard.seconds)
        if (i > 0) expect(segment.start).toBeGreaterThanOrEqual(heard.segments[i - 1]!.end)
        expect(segment.text.split(" ").length).toBeLessThanOrEqual(Pocketsphinx.grouping.maxWords)
      })
      // The WAV existed while the scope was open and went with it.
      expect([heard.wavExisted, heard.wavRemains]).toEqual([true, false])
    }).pipe(Effect.provide(engines)), { timeout: 120_000 })

  it.effect.skipIf(!speech)("silence is an empty transcript, not words", () =>
    Effect.gen(function*() {
      const heard = yield* transcribeFile(fixture("silent.mp4"))
      expect([heard.text, heard.segments]).toEqual(["", []])
    }).pipe(Effect.provide(engines)), { timeout: 120_000 })

  // Live clock: the time bound is real time.
  it.scopedLive.skipIf(!ffmpeg)("refuses what is not media, media without sound, and a missing ffmpeg, leaving no files", () =>
    Effect.gen(function*() {
      const [work, inputs] = [yield* tempDir("audio"), yield* tempDir("audio-inputs")]
      const audio = yield* AudioExtractor.pipe(Effect.provide(AudioExtractor.ffmpeg(["ffmpeg"], { tempDir: work })))
      const notMedia = path.join(inputs, "not-media.mp4")
      yield* Effect.promise(() => writeFile(notMedia, "this is text, not a video"))
      const refused = yield* Effect.flip(Effect.scoped(audio.toWav(notMedia)))
      expect(refused.reason).toBe("ffmpeg could not read the media")

      const mute = path.join(inputs, "mute.mp4")
      const made = yield* runChild("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=32x32:r=5", "-t", "1", mute], { timeout: "30 seconds" })
      expect(made.code).toBe(0)
      const silent = yield* Effect.flip(Effect.scoped(audio.toWav(mute)))
      expect(silent.reason).toBe("the media has no audio track")
      // A failed conversion removes its temporary directory at once.
      expect(yield* Effect.promise(() => readdir(work))).toEqual([])

      const missing = yield* AudioExtractor.pipe(Effect.provide(AudioExtractor.ffmpeg(["/nonexistent/ffmpeg"])))
      expect(missing.engine).toBe("ffmpeg not found")
      expect((yield* Effect.flip(Effect.scoped(missing.toWav(fixture("ad-speech.mp4"))))).reason).toBe("ffmpeg not found")

      const slow = yield* AudioExtractor.pipe(Effect.provide(AudioExtractor.ffmpeg(["ffmpeg"], { timeout: Duration.millis(1) })))
      expect((yield* Effect.flip(Effect.scoped(slow.toWav(fixture("ad-speech.mp4"))))).reason).toBe("ffmpeg timed out after 0.001s")
    }), { timeout: 60_000 })

  // Issue 28: ffmpeg reads the downloaded file alone, never what it names.
  it.scopedLive.skipIf(!ffmpeg)("a playlist is not media: neither its local segments nor a URL it names are read", () =>
    Effect.gen(function*() {
      const [work, inputs] = [yield* tempDir("audio"), yield* tempDir("audio-inputs")]
      const audio = yield* AudioExtractor.pipe(Effect.provide(AudioExtractor.ffmpeg(["ffmpeg"], { tempDir: work })))
      // A segment ffmpeg would play from a local playlist (it does without the demuxer list).
      const segment = yield* runChild("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", fixture("ad-speech.mp4"), "-c", "copy", "-f", "mpegts", path.join(inputs, "seg0.ts")], { timeout: "30 seconds" })
      expect(segment.code).toBe(0)
      const playlist = (uri: string) => `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:15\n#EXTINF:14.0,\n${uri}\n#EXT-X-ENDLIST\n`
      const local = path.join(inputs, "local.mp4")
      yield* Effect.promise(() => writeFile(local, playlist("seg0.ts")))
      expect((yield* Effect.flip(Effect.scoped(audio.toWav(local)))).reason).toBe("ffmpeg could not read the media")

      // A playlist naming another port of this machine: that port is never reached.
      let hits = 0
      const server = yield* Effect.acquireRelease(
        Effect.async<Server>((resume) => {
          const listening = createServer((_, res) => {
            hits++
            res.end()
          }).listen(0, "127.0.0.1", () => resume(Effect.succeed(listening)))
        }),
        (listening) => Effect.async<void>((resume) => void listening.close(() => resume(Effect.void)))
      )
      // (`as`: a listening TCP server's address is an AddressInfo; Node types it for pipes too.)
      const { port } = server.address() as AddressInfo
      const remote = path.join(inputs, "remote.mp4")
      yield* Effect.promise(() => writeFile(remote, playlist(`http://127.0.0.1:${port}/seg0.ts`)))
      expect((yield* Effect.flip(Effect.scoped(audio.toWav(remote)))).reason).toBe("ffmpeg could not read the media")
      expect(hits).toBe(0)
      // The real media still converts.
      expect((yield* Effect.scoped(audio.toWav(fixture("ad-speech.mp4")))).seconds).toBeGreaterThan(12)
    }), { timeout: 60_000 })

  // The decoder is a stand-in here (a script printing one timed word): the subject is which audio
  // reaches it. The real decoder on real silence: the test above.
  it.scopedLive("audio under the silence gate (-60 dBFS) is an empty transcript without the decoder; audio above it is decoded", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("silence-gate")
      const decoder = path.join(dir, "pocketsphinx_continuous")
      const ran = path.join(dir, "ran")
      yield* Effect.promise(() => writeFile(decoder, `#!/bin/sh\necho >> ${ran}\necho "hello 0.10 0.50 0.900"\n`, { mode: 0o755 }))
      const transcriber = yield* Effect.provide(Transcriber, Pocketsphinx.layer({ binary: decoder, modelDir: dir }))
      const gate = Math.round(Pocketsphinx.silenceGate * 32768)
      // Two seconds each; the loudest sample past the first piece wavPeak reads (1 MiB).
      const quiet = yield* wavOf(dir, "quiet", 40_000, 36_000, gate - 1)
      const audible = yield* wavOf(dir, "audible", 40_000, 36_000, gate + 1)
      const zeros = yield* wavOf(dir, "zeros", 40_000, 0, 0)
      expect(yield* wavPeak(audible)).toBe((gate + 1) / 32768)
      expect(yield* wavPeak(zeros)).toBe(0)
      expect(yield* transcriber.transcribe(quiet)).toEqual({ text: "", segments: [] })
      expect(yield* transcriber.transcribe(zeros)).toEqual({ text: "", segments: [] })
      expect(existsSync(ran)).toBe(false)
      expect(yield* transcriber.transcribe(audible)).toEqual({ text: "hello", segments: [{ start: 0.1, end: 0.5, text: "hello" }] })
      expect(existsSync(ran)).toBe(true)
    }))

  it.effect("without pocketsphinx and TRANSCRIBE_URL, the engine is none and says why", () =>
    Effect.gen(function*() {
      const transcriber = yield* withPath(Effect.provide(Transcriber, TranscriberLive), { PATH: "/nonexistent" })
      expect(transcriber.engine).toBe("none (set TRANSCRIBE_URL or install pocketsphinx)")
      expect((yield* Effect.flip(transcriber.transcribe(fixture("ad-speech.txt")))).reason).toBe("no speech engine is configured")
    }))
})

// ---------------------------------------------------------------------------------------------
// OpenAI-compatible engines against a recording server

interface Recorded {
  readonly path: string
  readonly authorization: string | undefined
  readonly contentType: string
  readonly body: Buffer
}

class FakeApi extends Context.Tag("test/FakeApi")<FakeApi, {
  readonly url: string
  readonly seen: Array<Recorded>
  /** What the next requests are answered: status and JSON body. */
  readonly answer: { current: (request: Recorded) => readonly [number, unknown] }
}>() {}

const FakeApiLive = Layer.scoped(
  FakeApi,
  Effect.acquireRelease(
    Effect.async<Context.Tag.Service<FakeApi> & { close: () => void }>((resume) => {
      const seen: Array<Recorded> = []
      const answer = { current: (_: Recorded): readonly [number, unknown] => [500, { error: { message: "no answer set" } }] }
      const server = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const recorded = {
            path: request.url ?? "",
            authorization: request.headers.authorization,
            contentType: request.headers["content-type"] ?? "",
            body: Buffer.concat(chunks)
          }
          seen.push(recorded)
          const [status, body] = answer.current(recorded)
          response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen, answer, close: () => server.close() })))
    }),
    ({ close }) => Effect.sync(close)
  )
)

/** The recorded multipart body, read back the way a server would. */
const formOf = (recorded: Recorded) =>
  Effect.promise(() => new Response(recorded.body, { headers: { "content-type": recorded.contentType } }).formData())

const written: WrittenScript = {
  script: {
    framework_used: "Problem-Agitate-Solution",
    rows: [{ beat: "Hook", seconds: "0-3", visual: "Face to camera", voiceover: "Tired of cracked lips?", on_screen_text: "Sound familiar?" }]
  },
  script_analysis: {
    framework: { name: "Problem-Agitate-Solution", stages: [{ name: "Problem", purpose: "Name the pain", evidence: "Tired of dry skin" }] },
    ad_pattern: { hook_type: "question", structure: "hook > offer > cta", pacing: "fast", call_to_action: "Tap the link" },
    creative_strategies: [{ name: "Offer", description: "Twenty percent off" }]
  }
}

const brief: ScriptBrief = {
  transcript: "Tired of dry skin every winter? Try our new face cream. Get twenty percent off today. Tap the link.",
  product_name: "Night Balm",
  production_level: "High",
  tone_of_voice: "playful"
}

describe("OpenAI-compatible engines", () => {
  layer(FakeApiLive)((it) => {
    it.effect("TRANSCRIBE_URL: the WAV goes as multipart with the model and verbose_json; segments come back timed", () =>
      Effect.gen(function*() {
        const api = yield* FakeApi
        api.answer.current = () => [200, {
          text: " Hello there. Buy now.",
          duration: 3,
          segments: [{ id: 1, start: 1.5, end: 2.75, text: " Buy now." }, { id: 0, start: 0, end: 1.5, text: " Hello there." }, { id: 2, start: 2.75, end: 3, text: " " }]
        }]
        const wav = fixture("ad-speech.txt") // any bytes: the engine sends the file as it is
        const env = { TRANSCRIBE_URL: api.url, TRANSCRIBE_API_KEY: "sk-transcribe", TRANSCRIBE_MODEL: "whisper-large" }
        const transcriber = yield* withPath(Effect.provide(Transcriber, TranscriberLive), env)
        expect(transcriber.engine).toBe("openai-compatible (whisper-large)")
        const transcript = yield* transcriber.transcribe(wav)
        expect(transcript).toEqual({
          text: "Hello there. Buy now.",
          segments: [{ start: 0, end: 1.5, text: "Hello there." }, { start: 1.5, end: 2.75, text: "Buy now." }]
        })
        const request = api.seen.at(-1)!
        expect([request.path, request.authorization]).toEqual(["/v1/audio/transcriptions", "Bearer sk-transcribe"])
        const form = yield* formOf(request)
        expect([form.get("model"), form.get("response_format"), form.get("timestamp_granularities[]")]).toEqual(["whisper-large", "verbose_json", "segment"])
        const file = form.get("file") as File
        expect([file.name, file.type]).toEqual(["audio.wav", "audio/wav"])
        expect(Buffer.from(yield* Effect.promise(() => file.arrayBuffer()))).toEqual(yield* Effect.promise(() => readFile(wav)))

        api.answer.current = () => [503, { error: { message: "overloaded" } }]
        expect((yield* Effect.flip(transcriber.transcribe(wav))).reason).toBe("transcription service answered 503")
        api.answer.current = () => [200, { nothing: true }]
        expect((yield* Effect.flip(transcriber.transcribe(wav))).reason).toBe("transcription service answered no transcript")
        const badUrl = yield* Effect.flip(withPath(Effect.provide(Transcriber, TranscriberLive), { TRANSCRIBE_URL: "ftp://example.com" }))
        expect(String(badUrl)).toContain("TRANSCRIBE_URL")
      }))

    it.effect("LLM_URL: chat completions asked for the script's JSON schema; the answer is decoded", () =>
      Effect.gen(function*() {
        const api = yield* FakeApi
        api.answer.current = () => [200, {
          id: "chatcmpl-1",
          choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify(written) }, finish_reason: "stop" }],
          usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 }
        }]
        const writer = yield* withPath(Effect.provide(ScriptWriter, ScriptWriterLive), { LLM_URL: api.url, LLM_API_KEY: "sk-llm", LLM_MODEL: "local-llama" })
        expect(writer.engine).toBe("language model (local-llama via chat-completions)")
        expect(yield* writer.write(brief)).toEqual(written)
        const request = api.seen.at(-1)!
        expect([request.path, request.authorization]).toEqual(["/v1/chat/completions", "Bearer sk-llm"])
        const body = JSON.parse(request.body.toString("utf8"))
        expect(body.model).toBe("local-llama")
        expect(body.messages.map((m: { role: string }) => m.role)).toEqual(["system", "user"])
        expect(body.messages[1].content).toBe([
          "Original ad transcript:",
          brief.transcript,
          "",
          "Brief:",
          "- product_name: Night Balm",
          "- production_level: High",
          "- tone_of_voice: playful"
        ].join("\n"))
        expect(body.response_format.type).toBe("json_schema")
        expect(body.response_format.json_schema.name).toBe("similar_script")
        expect(body.response_format.json_schema.strict).toBe(true)
        expect(Object.keys(body.response_format.json_schema.schema.properties)).toEqual(["script", "script_analysis"])

        api.answer.current = () => [200, { choices: [{ message: { content: "{\"script\": \"not the schema\"}" }, finish_reason: "stop" }] }]
        expect((yield* Effect.flip(writer.write(brief))).reason).toBe("language model: MalformedOutput")
        api.answer.current = () => [500, { error: { message: "boom" } }]
        expect((yield* Effect.flip(writer.write(brief))).reason).toMatch(/^language model: /)
      }))

    it.effect("LLM_API=responses: OpenAI's /responses API", () =>
      Effect.gen(function*() {
        const api = yield* FakeApi
        api.answer.current = () => [200, {
          id: "resp_1",
          object: "response",
          created_at: 1_700_000_000,
          model: "gpt-4o-mini",
          status: "completed",
          error: null,
          incomplete_details: null,
          instructions: null,
          metadata: null,
          temperature: 1,
          top_p: 1,
          tools: [],
          tool_choice: "auto",
          parallel_tool_calls: true,
          output: [{
            type: "message",
            id: "msg_1",
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: JSON.stringify(written), annotations: [] }]
          }],
          usage: { input_tokens: 10, output_tokens: 20, total_tokens: 30, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } }
        }]
        const writer = yield* withPath(Effect.provide(ScriptWriter, ScriptWriterLive), { LLM_URL: api.url, LLM_API: "responses" })
        expect(writer.engine).toBe("language model (gpt-4o-mini via responses)")
        expect(yield* writer.write(brief)).toEqual(written)
        const request = api.seen.at(-1)!
        expect([request.path, request.authorization]).toEqual(["/v1/responses", undefined])
        const body = JSON.parse(request.body.toString("utf8"))
        expect([body.model, body.text.format.type, body.text.format.name]).toEqual(["gpt-4o-mini", "json_schema", "similar_script"])
      }))
  })

  it.effect("without LLM_URL the offline writer is chosen", () =>
    Effect.map(withPath(Effect.provide(ScriptWriter, ScriptWriterLive)), (writer) => expect(writer.engine).toBe("offline (rules)")))
})

// ---------------------------------------------------------------------------------------------
// The offline writer

describe("the offline script writer", () => {
  it("reads the original's beats, framework, hook and call to action", () => {
    const analysis = OfflineScript.analyse(brief.transcript)
    expect(analysis.beats).toEqual([
      { beat: "hook", line: "Tired of dry skin every winter?" },
      { beat: "solution", line: "Try our new face cream." },
      { beat: "offer", line: "Get twenty percent off today." },
      { beat: "cta", line: "Tap the link." }
    ])
    expect(analysis.framework.name).toBe("Problem-Agitate-Solution")
    expect(analysis.ad_pattern).toEqual({ hook_type: "question", structure: "hook > solution > offer > cta", pacing: "fast", call_to_action: "Tap the link." })
    expect(analysis.creative_strategies.map((s) => s.name)).toEqual(["Question hook", "Pain point", "Offer", "Urgency"])
    expect(analysis.framework.stages.find((s) => s.name === "Proof")!.evidence).toBe("")
  })

  it("writes one row per beat for the brief's product, production level and tone, ending on a call to action", () => {
    const result = OfflineScript.write(brief)
    expect(result.script.framework_used).toBe("Problem-Agitate-Solution")
    expect(result.script.rows.map((r) => [r.beat, r.seconds, r.voiceover])).toEqual([
      ["Hook", "0-2", "What if it could be this easy?"],
      ["Solution", "2-4", "Meet Night Balm. Night Balm does the hard part for you."],
      ["Offer", "4-6", "Try Night Balm today."],
      ["Call to action", "6-8", "Tap the link and get Night Balm now."]
    ])
    expect(result.script.rows[0]!.visual).toBe("Studio-lit cinematic opener, motion graphics title (tone: playful)")
    const low = OfflineScript.write({ ...brief, production_level: "Low" })
    expect(low.script.rows[0]!.visual).toBe("Selfie-style phone shot, face to camera (tone: playful)")
    expect(OfflineScript.write(brief)).toEqual(result)
  })

  it("uses every field of the brief: brand, description, audience and additional info", () => {
    const full = OfflineScript.write({
      transcript: "Struggling to sleep? Thousands of people swear by this tea. Order now.",
      brand_name: "Dreamly",
      product_name: "Dream Tea",
      product_description: "Calms you down in ten minutes. Caffeine free.",
      target_audience: "night owls",
      additional_info: "Free shipping this week",
      production_level: "Medium"
    })
    expect(full.script.framework_used).toBe("Problem-Agitate-Solution")
    expect(full.script.rows.map((r) => [r.beat, r.voiceover, r.on_screen_text])).toEqual([
      ["Hook", "Night owls, what if it could be this easy?", "Wait for it"],
      ["Solution", "Meet Dream Tea. Calms you down in ten minutes.", "Dream Tea"],
      ["Proof", "People who switched to Dreamly are not going back.", "Loved by customers"],
      ["Call to action", "Tap the link and get Dream Tea now.", "Tap the link"]
    ])
  })

  it("speech without punctuation is cut into lines; an empty transcript still gives a script to shoot", () => {
    const heard = "tired of dry skin every winter try our new face cream it works in minutes and lasts all day thousands of people love it get twenty percent off today tap the link to order now"
    expect(OfflineScript.linesOf(heard).map((line) => line.split(" ").length)).toEqual([10, 10, 10, 5])
    const none = OfflineScript.write({ transcript: "   ", production_level: "Medium" })
    expect(none.script.rows.map((r) => r.beat)).toEqual(["Hook", "Solution", "Call to action"])
    expect(none.script_analysis.ad_pattern).toEqual({ hook_type: "", structure: "", pacing: "", call_to_action: "" })
  })
})
