import { Context, type Effect } from "effect"
import type { ScriptBrief, ScriptFailed, WrittenScript } from "./Pipeline.js"

/**
 * Writes the similar script from a transcript and a brief. Engines by configuration: a
 * language model (`LLM_URL`) through `@effect/ai`'s `LanguageModel.generateObject` with the
 * `WrittenScript` schema, else an offline writer that derives it deterministically.
 */
export class ScriptWriter extends Context.Tag("adintel/ScriptWriter")<ScriptWriter, {
  /** What `/ready` and the start-up log name. */
  readonly engine: string
  readonly write: (brief: ScriptBrief) => Effect.Effect<WrittenScript, ScriptFailed>
}>() {}
