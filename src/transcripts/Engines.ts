import { Config, Duration, Effect, Layer, Option } from "effect"
import { openAiCompatible, openAiModule } from "../platform/OpenAiCompatible.js"
import { AudioExtractor } from "./engines/audio/AudioExtractor.js"
import { MediaFetcher } from "./engines/media/MediaFetcher.js"
import { TranscriptionFailed } from "./engines/Pipeline.js"
import * as Pocketsphinx from "./engines/speech/Pocketsphinx.js"
import { ScriptWriter } from "./engines/script/ScriptWriter.js"
import { Transcriber } from "./engines/speech/Transcriber.js"

/**
 * The transcript pipeline's engines as configuration chooses them (README, "Transcripts and
 * similar scripts"). Every choice is made once at start-up and named by `/ready`. The engines of
 * an OpenAI-compatible API are loaded only when configured (platform/OpenAiCompatible.ts).
 */

/** Speech heard nowhere: every transcription fails, and `/ready` says why. */
const noSpeechEngine = Layer.succeed(
  Transcriber,
  Transcriber.of({
    engine: "none (set TRANSCRIBE_URL or install pocketsphinx)",
    transcribe: () => Effect.fail(new TranscriptionFailed({ reason: "no speech engine is configured" }))
  })
)

/**
 * `TRANSCRIBE_URL` (with `TRANSCRIBE_MODEL`, `TRANSCRIBE_API_KEY`): that API; else pocketsphinx
 * when it and its model are installed; else none.
 */
export const TranscriberLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const api = yield* openAiCompatible("TRANSCRIBE", "whisper-1")
    if (Option.isSome(api)) {
      const timeout = yield* Config.duration("TRANSCRIBE_TIMEOUT").pipe(Config.withDefault(Duration.minutes(5)))
      const OpenAiTranscriber = yield* Effect.promise(() => import("./engines/speech/OpenAiTranscriber.js"))
      return OpenAiTranscriber.layer({ model: api.value.model, timeout }).pipe(Layer.provide(api.value.client))
    }
    const installed = yield* Pocketsphinx.find
    return Option.match(installed, { onNone: () => noSpeechEngine, onSome: (install) => Pocketsphinx.layer(install) })
  })
)

/**
 * `LLM_URL` (with `LLM_MODEL`, `LLM_API_KEY`, `LLM_API`): a language model over
 * `/chat/completions` (the default: what most servers speak) or OpenAI's `/responses`;
 * else the offline writer.
 */
export const ScriptWriterLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const api = yield* openAiCompatible("LLM", "gpt-4o-mini")
    if (Option.isNone(api)) return ScriptWriter.offline
    const { client, model } = api.value
    const kind = yield* Config.literal("chat-completions", "responses")("LLM_API").pipe(Config.withDefault("chat-completions"))
    const timeout = yield* Config.duration("LLM_TIMEOUT").pipe(Config.withDefault(Duration.minutes(2)))
    const languageModel = kind === "responses"
      ? (yield* openAiModule).OpenAiLanguageModel.layer({ model })
      : (yield* Effect.promise(() => import("./engines/script/ChatCompletions.js"))).layer(model)
    return ScriptWriter.languageModel(`${model} via ${kind}`, { timeout }).pipe(
      Layer.provide(languageModel),
      Layer.provide(client)
    )
  })
)

/** Media, audio, speech and script, each as configured. A bad setting stops the start-up. */
export const PipelineLive = Layer.mergeAll(MediaFetcher.remote, AudioExtractor.layerConfig, TranscriberLive, ScriptWriterLive)
