import { readFile } from "node:fs/promises"
import { HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { OpenAiClient } from "@effect/ai-openai"
import { Duration, Effect, Layer, Schema } from "effect"
import { type Transcript, TranscriptionFailed } from "../Pipeline.js"
import { Transcriber } from "./Transcriber.js"

/**
 * An OpenAI-compatible `/audio/transcriptions` endpoint (OpenAI's whisper-1, or a self-hosted
 * whisper server that speaks the same API), through OpenAiClient's HTTP client (base URL and
 * bearer key). The WAV goes as multipart with `response_format=verbose_json` for timed segments.
 *
 * Our own request rather than the generated `createTranscription`: its response schema demands
 * every field OpenAI prints per segment (tokens, avg_logprob, ...), which self-hosted servers
 * leave out, and a failed decode would silently fall back to the untimed `{ text }` shape.
 */
const VerboseTranscription = Schema.Struct({
  text: Schema.String,
  segments: Schema.optionalWith(
    Schema.Array(Schema.Struct({ start: Schema.Number, end: Schema.Number, text: Schema.String })),
    { nullable: true, default: () => [] }
  )
})

export interface OpenAiTranscriberSettings {
  readonly model: string
  /** One request's time bound (upload, transcription and answer). */
  readonly timeout: Duration.DurationInput
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000

/** The answer to our Transcript: trimmed segment texts, empty ones dropped, in time order. */
export const toTranscript = (answer: typeof VerboseTranscription.Type): Transcript => {
  const segments = answer.segments
    .map((segment) => ({ start: round(segment.start), end: round(Math.max(segment.end, segment.start)), text: segment.text.trim() }))
    .filter((segment) => segment.text !== "")
    .sort((a, b) => a.start - b.start)
  // An engine that answers text without segments still gives a transcript: one untimed segment.
  const text = answer.text.trim()
  return { text, segments: segments.length > 0 || text === "" ? segments : [{ start: 0, end: 0, text }] }
}

export const layer = (settings: OpenAiTranscriberSettings) =>
  Layer.effect(
    Transcriber,
    Effect.gen(function*() {
      const { client } = yield* OpenAiClient.OpenAiClient
      const failed = (reason: string) => new TranscriptionFailed({ reason })
      return Transcriber.of({
        engine: `openai-compatible (${settings.model})`,
        transcribe: (wavPath) =>
          Effect.gen(function*() {
            const audio = yield* Effect.tryPromise({
              try: () => readFile(wavPath),
              catch: () => failed("not a readable WAV")
            })
            const form = new FormData()
            form.append("file", new Blob([audio], { type: "audio/wav" }), "audio.wav")
            form.append("model", settings.model)
            form.append("response_format", "verbose_json")
            form.append("timestamp_granularities[]", "segment")
            const response = yield* client.httpClient.execute(
              HttpClientRequest.post("/audio/transcriptions").pipe(HttpClientRequest.bodyFormData(form))
            ).pipe(Effect.mapError(() => failed("transcription service unreachable")))
            if (response.status < 200 || response.status >= 300) {
              return yield* Effect.fail(failed(`transcription service answered ${response.status}`))
            }
            const answer = yield* HttpClientResponse.schemaBodyJson(VerboseTranscription)(response).pipe(
              Effect.mapError(() => failed("transcription service answered no transcript"))
            )
            return toTranscript(answer)
          }).pipe(
            Effect.scoped,
            Effect.timeoutFail({
              duration: settings.timeout,
              onTimeout: () => failed(`transcription service timed out after ${Math.round(Duration.toSeconds(settings.timeout))}s`)
            })
          )
      })
    })
  )
