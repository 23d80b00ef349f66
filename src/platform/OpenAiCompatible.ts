import { FetchHttpClient } from "@effect/platform"
import { Config, Effect, Layer, Option } from "effect"
import { optionalHttpUrl } from "./AppConfig.js"

/**
 * An OpenAI-compatible API chosen by configuration, the same three variables for each use:
 * `<PREFIX>_URL` (OpenAI's `https://api.openai.com/v1`, a gateway, or a self-hosted server's
 * `/v1`), `<PREFIX>_MODEL` and `<PREFIX>_API_KEY` (sent as `Authorization: Bearer`, redacted
 * everywhere). None when the URL is unset: the caller falls back to its offline engine.
 *
 * `@effect/ai-openai` is loaded only then, and so are the engines built on it (`openAiModule`):
 * its generated schemas of the whole OpenAI API took a second or more of every start (the
 * service's, the admin CLI's, each test file's) that configures none of them.
 */
export const openAiModule = Effect.promise(() => import("@effect/ai-openai"))

export const openAiCompatible = (prefix: string, defaultModel: string) =>
  Effect.gen(function*() {
    const url = yield* optionalHttpUrl(`${prefix}_URL`, "https://api.openai.com/v1")
    if (Option.isNone(url)) return Option.none()
    const model = yield* Config.nonEmptyString(`${prefix}_MODEL`).pipe(Config.withDefault(defaultModel))
    const apiKey = yield* Config.option(Config.redacted(`${prefix}_API_KEY`))
    const { OpenAiClient } = yield* openAiModule
    const client = OpenAiClient.layer({ apiUrl: url.value.href.replace(/\/$/, ""), apiKey: Option.getOrUndefined(apiKey) }).pipe(
      Layer.provide(FetchHttpClient.layer)
    )
    return Option.some({ model, client })
  })
