import { Context, type Effect } from "effect"
import type { Transcript, TranscriptionFailed } from "../Pipeline.js"

/**
 * Speech to text with timed segments. Engines by configuration: an OpenAI-compatible
 * `/audio/transcriptions` endpoint (`TRANSCRIBE_URL`), else CMU pocketsphinx when installed.
 * Empty text is not a failure here: the service answers `Transcription failed` for it.
 */
export class Transcriber extends Context.Tag("adintel/Transcriber")<Transcriber, {
  /** What `/ready` and the start-up log name. */
  readonly engine: string
  readonly transcribe: (wavPath: string) => Effect.Effect<Transcript, TranscriptionFailed>
}>() {}
