import { LanguageModel } from "@effect/ai"
import { Context, Duration, Effect, Layer } from "effect"
import * as OfflineScript from "./OfflineScript.js"
import { type ScriptBrief, ScriptFailed, WrittenScript } from "../Pipeline.js"

/**
 * Writes the similar script from a transcript and a brief. Engines by configuration: a
 * language model (`LLM_URL`) through `@effect/ai`'s `LanguageModel.generateObject` with the
 * `WrittenScript` schema, else an offline writer that derives it deterministically.
 */
export class ScriptWriter extends Context.Tag("adintel/ScriptWriter")<ScriptWriter, {
  /** What `/ready` and the start-up log name. */
  readonly engine: string
  readonly write: (brief: ScriptBrief) => Effect.Effect<WrittenScript, ScriptFailed>
}>() {
  /** Rules over the transcript's words and the brief (OfflineScript): no model, no network. */
  static readonly offline = Layer.succeed(
    ScriptWriter,
    ScriptWriter.of({ engine: "offline (rules)", write: (brief) => Effect.sync(() => OfflineScript.write(brief)) })
  )

  /**
   * The LanguageModel in context, asked for exactly the `WrittenScript` schema: the model's
   * answer is decoded, so a malformed one is a failure (and takes no generation), never a
   * half-written script.
   */
  static readonly languageModel = (name: string, options: { readonly timeout: Duration.DurationInput }) =>
    Layer.effect(
      ScriptWriter,
      Effect.map(LanguageModel.LanguageModel, (model) =>
        ScriptWriter.of({
          engine: `language model (${name})`,
          write: (brief) =>
            model.generateObject({ prompt: promptOf(brief), schema: WrittenScript, objectName: "similar_script" }).pipe(
              Effect.map((response) => response.value),
              Effect.mapError((error) => new ScriptFailed({ reason: `language model: ${error._tag}` })),
              Effect.timeoutFail({
                duration: options.timeout,
                onTimeout: () => new ScriptFailed({ reason: `language model timed out after ${Math.round(Duration.toSeconds(options.timeout))}s` })
              })
            )
        }))
    )
}

const instructions = [
  "You are a direct-response video ad scriptwriter.",
  "You get the transcript of a winning short video ad and a brief for another product.",
  "First analyse the original: its copywriting framework and the stage each part of it plays",
  "(quote the original's words as evidence, empty when it skips a stage), its hook type, its beats in order,",
  "its pacing and its call to action, and the creative strategies it uses.",
  "Then write a new script for the brief's product that keeps the original's structure and pacing",
  "but none of its product claims: one row per beat, with the seconds it spans, the visual,",
  "the voiceover and the on-screen text. Fit the visuals to the production level",
  "(Low: a phone and a person; Medium: simple set-up and editing; High: studio and motion graphics).",
  "Write in the brief's tone of voice for its target audience. Answer with the JSON object only."
].join(" ")

/** The brief as the user message: the transcript and the fields that were given. */
export const promptOf = (brief: ScriptBrief) => {
  const { transcript, ...fields } = brief
  const given = Object.entries(fields).filter(([, value]) => typeof value === "string" && value.trim() !== "")
  return [
    { role: "system" as const, content: instructions },
    {
      role: "user" as const,
      content: [
        "Original ad transcript:",
        transcript.trim(),
        "",
        "Brief:",
        ...given.map(([field, value]) => `- ${field}: ${String(value).trim()}`)
      ].join("\n")
    }
  ]
}
