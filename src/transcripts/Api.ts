import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ExternalId, Url } from "../kernel/Fields.js"
import { metered } from "../access/gateway/Api.js"
import { Words } from "../kernel/QueryParams.js"
import { strictStruct } from "../kernel/QueryParams.js"
import { shopPrefix } from "../shop/account/Api.js"
import { ProductionLevel, productionLevels, ScriptAnalysis, Segment, WrittenScript } from "./engines/Pipeline.js"
import { contractPart } from "../kernel/Contract.js"
import { legacy } from "../access/session/Legacy.js"
import { inProduct } from "../kernel/Products.js"
import { McpTool, noTool, tool } from "../kernel/McpTool.js"

/** Why these routes are no MCP tools (kernel/McpTool.ts). */
const notTool = noTool("Generation is offered only where a browser session stands behind the credential (S6): the session-only video routes are the tools")

/**
 * Transcripts and similar scripts of short-video shop videos and of ads (issue 6; spec:
 * Endpoints, "Video transcript and script"; Resources, "Transcript record", "Generated-transcript
 * response", "Similar-script response"; INTERPRETATIONS G8, S6). Contract only.
 */

/** The two kinds of record a transcript belongs to: the video routes name `video_id`, the ad routes `ad_id`. */
export const subjects = ["video", "ad"] as const
export type Subject = (typeof subjects)[number]

/** The longest transcript a similar script is written from (a 10-minute ad speaks about 1,500 words). */
export const maxTranscriptChars = 20_000
/** The longest free-text brief field. */
export const maxBriefChars = 2_000
/** How many stored scripts `similar_scripts` lists. */
export const maxSimilarScripts = 5

/**
 * spec: rule 3 and 5, Errors rule 5: every refusal of a generation is `{ success: false, message }`
 * with status 200. The messages are the spec's, byte for byte.
 */
export class ScriptRefusal extends Schema.TaggedError<ScriptRefusal>()("ScriptRefusal", {
  message: Schema.String
}) {
  static readonly notLoggedIn = () => new ScriptRefusal({ message: "Not logged in" })
  static readonly planRequired = () => new ScriptRefusal({ message: "Upgrade your plan to generate video scripts" })
  static readonly quotaExhausted = () =>
    new ScriptRefusal({ message: "No script generations left this month. Limit resets in 30 days." })
  static readonly noPlayableUrl = () => new ScriptRefusal({ message: "Video not found or no playable URL available" })
  static readonly audio = (reason: string) => new ScriptRefusal({ message: `Could not prepare audio (${reason})` })
  static readonly transcriptionFailed = () => new ScriptRefusal({ message: "Transcription failed" })
  static readonly scriptFailed = () => new ScriptRefusal({ message: "Script generation failed" })
  /** Not in the spec: every turn stayed taken for TRANSCRIBE_QUEUE_TIMEOUT; worded like its siblings. */
  static readonly busy = () => new ScriptRefusal({ message: "Transcription is busy. Try again in a few minutes." })
}

export const Refused = Schema.Struct({
  success: Schema.Literal(false),
  message: Schema.String.annotations({ description: "Why nothing was generated (status 200, spec: Errors rule 5)" })
})
export type Refused = typeof Refused.Type

/** A stored script like the one asked about (our shape: see docs/SPEC-NOTES.md). */
export const SimilarScript = Schema.Struct({
  type: Schema.Literal(...subjects).annotations({ description: "Whose transcript: a short-video shop video or an ad" }),
  id: Schema.String.annotations({ description: "The video's or ad's id" }),
  similarity: Schema.Number.annotations({ description: "Text similarity to the transcript asked about, 0 to 1" }),
  transcript: Schema.String.annotations({ description: "The start of its transcript (at most 280 characters)" }),
  framework_used: Schema.NullOr(Schema.String).annotations({ description: "Its similar script's framework, when one was written" })
})
export type SimilarScript = typeof SimilarScript.Type

/** spec: Resources, "Transcript record": four fields, `null`/`[]` when none exists. */
export const TranscriptRecord = Schema.Struct({
  success: Schema.Literal(true),
  transcript: Schema.NullOr(Schema.String),
  segments: Schema.Array(Segment),
  script_analysis: Schema.NullOr(ScriptAnalysis),
  similar_scripts: Schema.Array(SimilarScript)
})
export type TranscriptRecord = typeof TranscriptRecord.Type

/** spec: Resources, "Generated-transcript response"; `script_generations_remaining` only when generated. */
export const TranscriptGenerated = Schema.Struct({
  success: Schema.Literal(true),
  transcript: Schema.String,
  segments: Schema.Array(Segment),
  source: Schema.Literal("generated", "cached"),
  script_generations_remaining: Schema.optional(Schema.Int)
})
export type TranscriptGenerated = typeof TranscriptGenerated.Type

/** spec: Resources, "Similar-script response". */
export const ScriptGenerated = Schema.Struct({
  success: Schema.Literal(true),
  script: WrittenScript.fields.script,
  script_analysis: ScriptAnalysis,
  similar_scripts: Schema.Array(SimilarScript),
  script_generations_remaining: Schema.Int
})
export type ScriptGenerated = typeof ScriptGenerated.Type

const idOf = (subject: Subject) =>
  ExternalId.annotations({ description: subject === "video" ? "The video's id" : "The ad's id" })

/** Which record, by the name its routes give the id. */
const idField = { video: "video_id", ad: "ad_id" } as const satisfies Record<Subject, string>
export type IdField<S extends Subject> = (typeof idField)[S]

const readQuery = <S extends Subject>(subject: S) =>
  strictStruct({ [idField[subject]]: idOf(subject) } as { [K in IdField<S>]: ReturnType<typeof idOf> }, "query")

const generateBody = <S extends Subject>(subject: S) =>
  strictStruct({
    ...({ [idField[subject]]: idOf(subject) } as { [K in IdField<S>]: ReturnType<typeof idOf> }),
    video_url: Schema.optional(Url.annotations({ description: "Fallback playback URL, used when no stored URL exists" })),
    video_cdn_url: Schema.optional(
      Url.annotations({ description: "Fallback CDN URL; preferred over `video_url` when both are sent" })
    )
  }, "body")

const text = (description: string) => Schema.optional(Words(maxBriefChars).annotations({ description }))

const scriptBody = <S extends Subject>(subject: S) =>
  strictStruct({
    ...({ [idField[subject]]: idOf(subject).annotations({ description: "The result is attached to this record" }) } as {
      [K in IdField<S>]: ReturnType<typeof idOf>
    }),
    transcript: Words(maxTranscriptChars).annotations({ description: "The transcript the script is modelled on" }),
    brand_name: text("Your brand"),
    product_name: text("Your product"),
    product_description: text("What it is and does"),
    production_level: Schema.optional(
      ProductionLevel.annotations({
        description: `${productionLevels.join(", ")} (default Medium)`,
        message: () => ({ message: `must be one of ${productionLevels.join(", ")}`, override: true })
      })
    ),
    target_audience: text("Who the ad speaks to"),
    tone_of_voice: text("How it sounds"),
    additional_info: text("Extra instructions")
  }, "body")

export const VideoTranscriptQuery = readQuery("video")
export const AdTranscriptQuery = readQuery("ad")
export const VideoGenerateBody = generateBody("video")
export type VideoGenerateBody = typeof VideoGenerateBody.Type
export const AdGenerateBody = generateBody("ad")
export type AdGenerateBody = typeof AdGenerateBody.Type
export const VideoScriptBody = scriptBody("video")
export type VideoScriptBody = typeof VideoScriptBody.Type
export const AdScriptBody = scriptBody("ad")
export type AdScriptBody = typeof AdScriptBody.Type

const sessionOnly =
  "Session only: needs a signed-in browser session (with a key alone: `{ success: false, message: \"Not logged in\" }`, INTERPRETATIONS S6)."
const formOrJson = "Body: JSON or form-encoded."

/** The video routes, under the short-video shop prefix (and its legacy session path, S4). */
export class VideoTranscriptsApi extends metered(
  HttpApiGroup.make("videoTranscripts").annotateContext(inProduct("Transcripts"))
    .add(
      HttpApiEndpoint.get("transcript", `${shopPrefix}/video/transcript`)
        .annotate(McpTool, tool("get_video_transcript", {
          title: "A short video's transcript",
          description: "The stored transcript of a short-video shop video (video_id): text, timed segments, script analysis and similar scripts; null and empty lists when none exists. Never generates one."
        }))
        .setUrlParams(VideoTranscriptQuery)
        .addSuccess(TranscriptRecord)
        .annotate(OpenApi.Summary, "A short video's stored transcript")
        .annotate(OpenApi.Description, "A video's stored transcript; never consumes a script generation.")
    )
    .add(
      HttpApiEndpoint.post("generate", `${shopPrefix}/video/transcript/generate`)
        .annotate(McpTool, tool("generate_video_transcript", {
          title: "Transcribe a short video",
          description: "Transcribes a video's audio (or answers its stored transcript, free). Needs a signed-in browser session with the credential; with a key or token alone it answers \"Not logged in\".",
          alsoUses: "a monthly script generation"
        }))
        .setPayload(VideoGenerateBody)
        .addSuccess(Schema.Union(TranscriptGenerated, Refused))
        .annotate(OpenApi.Summary, "Transcribe a short video (browser session)")
        .annotate(
          OpenApi.Description,
          `Transcribes a video's audio (or answers the stored transcript, \`source: "cached"\`, free). ${sessionOnly} ${formOrJson}`
        )
    )
    .add(
      HttpApiEndpoint.post("similarScript", `${shopPrefix}/video/script/similar`)
        .annotate(McpTool, tool("write_similar_video_script", {
          title: "Write a similar ad script",
          description: "Writes an ad script for your product modelled on a video's transcript. Needs a signed-in browser session with the credential; with a key or token alone it answers \"Not logged in\".",
          alsoUses: "a monthly script generation"
        }))
        .setPayload(VideoScriptBody)
        .addSuccess(Schema.Union(ScriptGenerated, Refused))
        .annotate(OpenApi.Summary, "Write an ad script like a short video's (browser session)")
        .annotate(OpenApi.Description, `A similar ad script from a transcript; one script generation. ${sessionOnly} ${formOrJson}`)
    )
) {}

/** The ad routes: key-authenticated, the video routes' shapes with `ad_id`. */
export class AdTranscriptsApi extends metered(
  HttpApiGroup.make("adTranscripts").annotateContext(inProduct("Transcripts"))
    .add(
      HttpApiEndpoint.get("transcript", "/api/v1/ad-transcript")
        .annotate(McpTool, tool("get_ad_transcript", {
          title: "An ad's transcript",
          description: "The stored transcript and script analysis of a video ad (ad_id); null and empty lists when none exists. Never generates one."
        }))
        .setUrlParams(AdTranscriptQuery)
        .addSuccess(TranscriptRecord)
        .annotate(OpenApi.Summary, "An ad's stored transcript and analysis")
        .annotate(OpenApi.Description, "An ad's stored transcript and analysis; never consumes a script generation.")
    )
    .add(
      HttpApiEndpoint.post("generate", "/api/v1/ad-transcript-generate")
        .annotate(McpTool, notTool)
        .setPayload(AdGenerateBody)
        .addSuccess(Schema.Union(TranscriptGenerated, Refused))
        .annotate(OpenApi.Summary, "Transcribe a video ad")
        .annotate(OpenApi.Description, `Transcribes a video ad's audio, or answers the stored transcript. ${formOrJson}`)
    )
    .add(
      HttpApiEndpoint.post("similarScript", "/api/v1/ad-similar-script-generate")
        .annotate(McpTool, notTool)
        .setPayload(AdScriptBody)
        .addSuccess(Schema.Union(ScriptGenerated, Refused))
        .annotate(OpenApi.Summary, "Write an ad script like an ad's")
        .annotate(OpenApi.Description, `A similar ad script from an ad's transcript; one script generation. ${formOrJson}`)
    )
) {}

/** Transcripts' part of the contract (kernel/Contract.ts): videos (also under the legacy prefix, S4) and ads. */
export class TranscriptsContract extends contractPart()
  .add(VideoTranscriptsApi)
  .add(legacy(VideoTranscriptsApi, { from: shopPrefix, to: "/api/clipapp-shop" }))
  .add(AdTranscriptsApi)
{}
