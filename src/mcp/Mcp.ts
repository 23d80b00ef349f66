import type { HttpServerRequest } from "@effect/platform"
import { Effect, Option, Ref } from "effect"
import type { RateWindow } from "../access/gateway/Api.js"
import { Unauthorized } from "../access/gateway/Api.js"
import * as ApiKey from "../access/gateway/ApiKey.js"
import { Gateway } from "../access/gateway/Gateway.js"
import { OAuth } from "../access/oauth/OAuth.js"
import { AppConfig } from "../platform/AppConfig.js"
import { McpTools } from "./McpTools.js"
import { serviceSpan } from "../platform/telemetry/Tracing.js"
import { isJsonObject, isOneOf } from "../kernel/Guards.js"

/**
 * MCP over JSON-RPC 2.0 (spec: INTERPRETATIONS M1, M2; MCP 2025-06-18 and 2025-03-26): the
 * messages one POST to `/mcp` carries, and their answers. `initialize`, `ping` and `tools/list`
 * cost nothing; each `tools/call` is one metered call (McpTools). No session is kept: every
 * request carries its credential, and the server never calls the client.
 */

export const protocolVersions = ["2025-06-18", "2025-03-26"] as const
export const latestProtocolVersion = protocolVersions[0]

/** A batch (2025-03-26) carries at most this many messages. */
export const maxBatch = 50

export const serverInfo = { name: "adintel", title: "AdIntel", version: "0.1.0" }

const instructionsFor = (ratePerMinute: number) =>
  `AdIntel answers research questions about advertising and e-commerce: ad libraries (social-network, image-board, short-video and search-engine ads, similar ads), a short-video shop's categories, shops, creators, videos and products with their sales metrics, and transcripts. Every tool call costs 1 API credit of the account (get_credits shows the balance) and at most ${ratePerMinute} calls per minute are accepted; the short-video shop's explore and count tools also take one of the day's searches (shop_search_credits).`

/** What a request is billed to: the API key it names (a key, or the key an access token's grant is bound to). */
export interface Credential {
  readonly keyHash: Uint8Array
  /** Whether the key is known to be live already (a token was just resolved to it). */
  readonly verified: boolean
}

const bearer = /^bearer\s+(.*)$/i

/** JSON-RPC 2.0 error codes. */
const codes = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602 } as const

type Id = string | number | null
export const failure = (id: Id, code: number, message: string) => ({ jsonrpc: "2.0" as const, id, error: { code, message } })
const success = (id: Id, result: unknown) => ({ jsonrpc: "2.0" as const, id, result })
export const parseError = failure(null, codes.parse, "Parse error")

const isId = (value: unknown): value is string | number => typeof value === "string" || (typeof value === "number" && Number.isFinite(value))

/** What one POST answered: the JSON-RPC answer (none for notifications and responses only) and the last rate window. */
export interface Answer {
  readonly body: Option.Option<unknown>
  readonly rate: Option.Option<RateWindow>
}

export class Mcp extends Effect.Service<Mcp>()("adintel/Mcp", {
  effect: Effect.gen(function*() {
    const tools = yield* McpTools
    const gateway = yield* Gateway
    const oauth = yield* OAuth
    const instructions = instructionsFor((yield* AppConfig).rateLimitPerMinute)

    /**
     * M2: an API key as G1 reads it (`X-API-Key`, `Authorization: Bearer`, `?api_key`), or an
     * OAuth access token as `Authorization: Bearer`, issued for `resource`.
     */
    const credential = (request: HttpServerRequest.HttpServerRequest, query: ApiKey.KeySources["query"], resource: string) =>
      Effect.gen(function*() {
        const value = ApiKey.fromRequest({ headers: request.headers, query })
        if (Option.isNone(value)) return yield* Effect.fail(new Unauthorized())
        if (ApiKey.isWellFormed(value.value)) return { keyHash: ApiKey.digest(value.value), verified: false } satisfies Credential
        // A value that is not a key is a token only where a token may be sent: as Bearer, without an X-API-Key.
        const fromBearer = !request.headers["x-api-key"]?.trim() && bearer.exec(request.headers["authorization"]?.trim() ?? "")?.[1]?.trim() === value.value
        const key = fromBearer ? yield* oauth.accessToken(value.value, resource) : Option.none()
        if (Option.isNone(key)) return yield* Effect.fail(new Unauthorized())
        return { keyHash: key.value, verified: true } satisfies Credential
      })

    const verify = (credential: Credential) =>
      credential.verified
        ? Effect.void
        : Effect.flatMap(gateway.accountOfKey(credential.keyHash), (account) => (Option.isSome(account) ? Effect.void : Effect.fail(new Unauthorized())))

    const initialize = (id: Id, params: unknown) => {
      if (!isJsonObject(params) || typeof params["protocolVersion"] !== "string") {
        return failure(id, codes.invalidParams, "initialize: params.protocolVersion is missing")
      }
      const asked = params["protocolVersion"]
      // The version asked for if we speak it, else our latest: the client decides whether to go on.
      const version = isOneOf(protocolVersions, asked) ? asked : latestProtocolVersion
      return success(id, { protocolVersion: version, capabilities: { tools: { listChanged: false } }, serverInfo, instructions })
    }

    const call = (id: Id, params: unknown, credential: Credential, rate: Ref.Ref<Option.Option<RateWindow>>) =>
      Effect.gen(function*() {
        if (!isJsonObject(params) || typeof params["name"] !== "string") return failure(id, codes.invalidParams, "tools/call: params.name is missing")
        const args = params["arguments"] ?? {}
        if (!isJsonObject(args)) return failure(id, codes.invalidParams, "tools/call: params.arguments must be an object")
        if (!(yield* tools.has(params["name"]))) return failure(id, codes.invalidParams, `Unknown tool: ${params["name"].slice(0, 64)}`)
        const outcome = yield* tools.call(params["name"], args, credential.keyHash)
        if (Option.isSome(outcome.rate)) yield* Ref.set(rate, outcome.rate)
        return success(id, outcome.result)
      })

    /** One message: a request's answer, nothing for a notification or a response. */
    const message = (input: unknown, credential: Credential, rate: Ref.Ref<Option.Option<RateWindow>>) =>
      Effect.gen(function*() {
        if (!isJsonObject(input)) return Option.some(failure(null, codes.invalidRequest, "Invalid Request"))
        const id = input["id"]
        // A client's answer to a server request: this server sends none, so there is nothing to match.
        if (!("method" in input) && ("result" in input || "error" in input)) return Option.none()
        if (input["jsonrpc"] !== "2.0" || typeof input["method"] !== "string" || (id !== undefined && !isId(id))) {
          return Option.some(failure(isId(id) ? id : null, codes.invalidRequest, "Invalid Request"))
        }
        if (id === undefined) return Option.none() // notifications (initialized, cancelled, ...) need no answer
        switch (input["method"]) {
          case "initialize":
            return Option.some(initialize(id, input["params"]))
          case "ping":
            return Option.some(success(id, {}))
          case "tools/list":
            return Option.some(success(id, { tools: yield* tools.list }))
          case "tools/call":
            return Option.some(yield* call(id, input["params"], credential, rate))
          // Not offered (no capability says so), but some clients ask anyway: nothing to list.
          case "resources/list":
            return Option.some(success(id, { resources: [] }))
          case "resources/templates/list":
            return Option.some(success(id, { resourceTemplates: [] }))
          case "prompts/list":
            return Option.some(success(id, { prompts: [] }))
          default:
            return Option.some(failure(id, codes.methodNotFound, `Method not found: ${input["method"].slice(0, 64)}`))
        }
      })

    /** Whether every message is a call of a known tool: the call's admission checks the credential then, at no extra cost. */
    const onlyCalls = (messages: ReadonlyArray<unknown>) =>
      Effect.forEach(messages, (m) =>
        isJsonObject(m) && m["method"] === "tools/call" && isId(m["id"]) && isJsonObject(m["params"]) && typeof m["params"]["name"] === "string"
          ? tools.has(m["params"]["name"])
          : Effect.succeed(false)).pipe(Effect.map((known) => known.every((k) => k)))

    return {
      credential: Effect.fn("Mcp.credential", serviceSpan)(credential),

      /**
       * The answer to a parsed POST body: one message or a batch of them. A credential that
       * names no live key fails (the transport answers 401): before anything if a message is
       * not a tool call, else at the call's admission.
       */
      answer: Effect.fn("Mcp.answer", serviceSpan)(function*(body: unknown, credential: Credential) {
          const batch = Array.isArray(body)
          const messages: ReadonlyArray<unknown> = batch ? body : [body]
          if (batch && (messages.length === 0 || messages.length > maxBatch)) {
            return { body: Option.some(failure(null, codes.invalidRequest, `A batch holds 1 to ${maxBatch} messages`)), rate: Option.none() } satisfies Answer
          }
          if (!(yield* onlyCalls(messages))) yield* verify(credential)
          const rate = yield* Ref.make(Option.none<RateWindow>())
          const answers = (yield* Effect.forEach(messages, (m) => message(m, credential, rate))).flatMap(Option.toArray)
          return {
            body: answers.length === 0 ? Option.none() : Option.some(batch ? answers : answers[0]),
            rate: yield* Ref.get(rate)
          } satisfies Answer
        })
    }
  }),
  dependencies: [McpTools.Default, Gateway.Default, OAuth.Default]
}) {}
