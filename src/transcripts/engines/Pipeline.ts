import { Schema } from "effect"

/**
 * What the transcript pipeline's layers hand each other (issue 6): a media file, a 16 kHz
 * mono WAV, a transcript with timed segments, a written script. No runtime beyond schemas.
 */

/** A stretch of speech (spec: Resources, "Transcript record": `{ start, end, text }`, seconds). */
export const Segment = Schema.Struct({
  start: Schema.Number.annotations({ description: "Seconds from the start of the audio" }),
  end: Schema.Number.annotations({ description: "Seconds from the start of the audio" }),
  text: Schema.String
})
export type Segment = typeof Segment.Type

export interface Transcript {
  readonly text: string
  readonly segments: ReadonlyArray<Segment>
}

/**
 * Why a step failed; `reason` is short and safe to show. The service turns these into the
 * spec's messages (Endpoints, "Video transcript and script", rule 5):
 * - `NoPlayableUrl` -> `Video not found or no playable URL available`
 * - `AudioUnavailable` -> `Could not prepare audio (<reason>)`, e.g. `ffmpeg not found`,
 *   `download failed: address not allowed: only public internet addresses are fetched`
 * - `TranscriptionFailed` -> `Transcription failed` (the engine failed or heard no words)
 */
export class NoPlayableUrl extends Schema.TaggedError<NoPlayableUrl>()("NoPlayableUrl", {}) {}
export class AudioUnavailable extends Schema.TaggedError<AudioUnavailable>()("AudioUnavailable", {
  reason: Schema.String
}) {}
export class TranscriptionFailed extends Schema.TaggedError<TranscriptionFailed>()("TranscriptionFailed", {
  reason: Schema.String
}) {}
export class ScriptFailed extends Schema.TaggedError<ScriptFailed>()("ScriptFailed", {
  reason: Schema.String
}) {}

/** spec: Endpoints, "POST .../video/script/similar": `production_level`. */
export const productionLevels = ["Low", "Medium", "High"] as const
export const ProductionLevel = Schema.Literal(...productionLevels)
export type ProductionLevel = typeof ProductionLevel.Type

/** What a similar script is written from: the transcript and the brief's optional fields. */
export interface ScriptBrief {
  readonly transcript: string
  readonly brand_name?: string | undefined
  readonly product_name?: string | undefined
  readonly product_description?: string | undefined
  readonly production_level: ProductionLevel
  readonly target_audience?: string | undefined
  readonly tone_of_voice?: string | undefined
  readonly additional_info?: string | undefined
}

/**
 * The similar script's shape (spec: Resources, "Similar-script response"; the inner structure
 * is ours, see docs/SPEC-NOTES.md). A language model is asked for exactly this schema.
 */
export const ScriptRow = Schema.Struct({
  beat: Schema.String.annotations({ description: "The framework stage this row plays: hook, problem, proof, offer, call to action..." }),
  seconds: Schema.String.annotations({ description: "Where it sits in the ad, e.g. `0-3`" }),
  visual: Schema.String.annotations({ description: "What is shown" }),
  voiceover: Schema.String.annotations({ description: "What is said" }),
  on_screen_text: Schema.String.annotations({ description: "Text overlaid on the video" })
})
export type ScriptRow = typeof ScriptRow.Type

export const FrameworkStage = Schema.Struct({
  name: Schema.String,
  purpose: Schema.String,
  /** The transcript's own words that play this stage ("" when the original skips it). */
  evidence: Schema.String
})

export const ScriptAnalysis = Schema.Struct({
  framework: Schema.Struct({
    name: Schema.String.annotations({ description: "e.g. Problem-Agitate-Solution, AIDA, Hook-Proof-Offer" }),
    stages: Schema.Array(FrameworkStage)
  }),
  ad_pattern: Schema.Struct({
    hook_type: Schema.String.annotations({ description: "question, bold claim, problem callout, demonstration..." }),
    structure: Schema.String.annotations({ description: "The beats in order, e.g. `hook > problem > proof > offer > cta`" }),
    pacing: Schema.String.annotations({ description: "fast, medium or slow, from words per second" }),
    call_to_action: Schema.String.annotations({ description: "The ask the original ends on (\"\" when none)" })
  }),
  creative_strategies: Schema.Array(Schema.Struct({ name: Schema.String, description: Schema.String }))
})
export type ScriptAnalysis = typeof ScriptAnalysis.Type

export const WrittenScript = Schema.Struct({
  script: Schema.Struct({
    framework_used: Schema.String,
    rows: Schema.Array(ScriptRow)
  }),
  script_analysis: ScriptAnalysis
})
export type WrittenScript = typeof WrittenScript.Type
