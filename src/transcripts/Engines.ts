import { Effect, Layer } from "effect"
import { AudioExtractor } from "./AudioExtractor.js"
import { MediaFetcher } from "./MediaFetcher.js"
import { AudioUnavailable, ScriptFailed, TranscriptionFailed } from "./Pipeline.js"
import { ScriptWriter } from "./ScriptWriter.js"
import { Transcriber } from "./Transcriber.js"

// WIP: replaced by the configured engines in this change.
export const PipelineLive = Layer.mergeAll(
  MediaFetcher.remote,
  Layer.succeed(AudioExtractor, AudioExtractor.of({ engine: "none", toWav: () => Effect.fail(new AudioUnavailable({ reason: "ffmpeg not found" })) })),
  Layer.succeed(Transcriber, Transcriber.of({ engine: "none", transcribe: () => Effect.fail(new TranscriptionFailed({ reason: "none" })) })),
  Layer.succeed(ScriptWriter, ScriptWriter.of({ engine: "none", write: () => Effect.fail(new ScriptFailed({ reason: "none" })) }))
)
