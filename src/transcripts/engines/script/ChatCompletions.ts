import { AiError, LanguageModel, type Prompt, type Response, Tool } from "@effect/ai"
import { OpenAiClient } from "@effect/ai-openai"
import { HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { Effect, Layer, Schema, Stream } from "effect"

/**
 * A LanguageModel over an OpenAI-compatible `/chat/completions` endpoint: what llama.cpp,
 * vLLM, Ollama, LocalAI and most hosted gateways speak (OpenAiLanguageModel speaks OpenAI's
 * newer `/responses`, which few others do). Text in, text out, with `json_schema` structured
 * output when a schema is asked for; no tools and no streaming: the script writer needs
 * neither, and asking for them is an error rather than a silent fallback.
 */

const Completion = Schema.Struct({
  choices: Schema.NonEmptyArray(Schema.Struct({
    message: Schema.Struct({ content: Schema.NullOr(Schema.String) }),
    finish_reason: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
  })),
  usage: Schema.optional(Schema.Struct({
    prompt_tokens: Schema.optional(Schema.Number),
    completion_tokens: Schema.optional(Schema.Number),
    total_tokens: Schema.optional(Schema.Number)
  }))
})

/** A message's text parts joined; files, reasoning and tool parts have no place in this API. */
const textOf = (content: string | ReadonlyArray<Prompt.Part>) =>
  typeof content === "string"
    ? content
    : content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n")

export const messagesOf = (prompt: Prompt.Prompt) =>
  prompt.content.flatMap((message) =>
    message.role === "tool" ? [] : [{ role: message.role, content: textOf(message.content) }]
  )

const finishReasons: Record<string, typeof Response.FinishReason.Type> = {
  stop: "stop",
  length: "length",
  content_filter: "content-filter",
  tool_calls: "tool-calls"
}

const module = "ChatCompletions"

export const make = (model: string) =>
  Effect.gen(function*() {
    const { client } = yield* OpenAiClient.OpenAiClient
    return yield* LanguageModel.make({
      generateText: (options) =>
        Effect.gen(function*() {
          if (options.tools.length > 0) {
            return yield* new AiError.UnknownError({ module, method: "generateText", description: "tools are not supported" })
          }
          const format = options.responseFormat
          const body = {
            model,
            messages: messagesOf(options.prompt),
            ...(format.type === "json"
              ? {
                response_format: {
                  type: "json_schema",
                  json_schema: { name: format.objectName, schema: Tool.getJsonSchemaFromSchemaAst(format.schema.ast), strict: true }
                }
              }
              : {})
          }
          const response = yield* client.httpClient.execute(
            HttpClientRequest.post("/chat/completions").pipe(HttpClientRequest.bodyUnsafeJson(body))
          ).pipe(
            Effect.catchTags({
              RequestError: (error) => AiError.HttpRequestError.fromRequestError({ module, method: "generateText", error }),
              ResponseError: (error) => AiError.HttpResponseError.fromResponseError({ module, method: "generateText", error })
            })
          )
          if (response.status < 200 || response.status >= 300) {
            return yield* new AiError.UnknownError({ module, method: "generateText", description: `the model answered ${response.status}` })
          }
          const completion = yield* HttpClientResponse.schemaBodyJson(Completion)(response).pipe(
            Effect.catchTags({
              ParseError: (error) => AiError.MalformedOutput.fromParseError({ module, method: "generateText", error }),
              ResponseError: (error) => AiError.HttpResponseError.fromResponseError({ module, method: "generateText", error })
            })
          )
          const choice = completion.choices[0]
          const parts: Array<Response.PartEncoded> = [
            { type: "text", text: choice.message.content ?? "" },
            {
              type: "finish",
              reason: finishReasons[choice.finish_reason ?? "stop"] ?? "unknown",
              usage: {
                inputTokens: completion.usage?.prompt_tokens,
                outputTokens: completion.usage?.completion_tokens,
                totalTokens: completion.usage?.total_tokens
              }
            }
          ]
          return parts
        }).pipe(Effect.scoped),
      streamText: () =>
        Stream.fail(new AiError.UnknownError({ module, method: "streamText", description: "streaming is not supported" }))
    })
  })

/** `LanguageModel` for `model` over the OpenAiClient in context. */
export const layer = (model: string) => Layer.effect(LanguageModel.LanguageModel, make(model))
