import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import { withRateHeaders } from "../access/gateway/Http.js"
import { baseUrl } from "../platform/Forwarded.js"
import { parseJson } from "../kernel/Json.js"
import { AppConfig } from "../platform/AppConfig.js"
import { failure, Mcp, parseError, protocolVersions } from "./Mcp.js"
import { isJsonObject, isOneOf } from "../kernel/Guards.js"

/**
 * `/mcp`: MCP's Streamable HTTP transport (2025-06-18, 2025-03-26) as routes of the service's
 * router, beside the contract's: JSON-RPC messages are POSTed and answered with one JSON body
 * (202 when they need no answer). There is no server-to-client stream (GET is 405) and no session
 * to end (DELETE is 405): each request carries its credential. Not in the HttpApi contract: its
 * bodies are JSON-RPC's, not the service's envelope (docs/SPEC-NOTES.md, "MCP").
 */

export const mcpPath = "/mcp"
export const protectedResourcePath = "/.well-known/oauth-protected-resource/mcp"

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(body, { status, headers: { "cache-control": "no-store", ...headers } })

/** M2: how a client without a valid credential learns where to get one. */
export const unauthorized = (base: string) =>
  json(401, { success: false, error: "Unauthorized" }, {
    "www-authenticate": `Bearer resource_metadata="${base}${protectedResourcePath}"`
  })

const methodNotAllowed = json(405, { success: false, error: "Method not allowed: MCP messages are POSTed to /mcp" }, { allow: "POST" })

const isInitialize = (body: unknown) =>
  isJsonObject(body) && body["method"] === "initialize"

export const McpLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const mcp = yield* Mcp
    const config = yield* AppConfig

    const post = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const query = yield* HttpServerRequest.ParsedSearchParams
      const base = baseUrl(request, config)
      // MCP transport: a browser page of another site must not reach a local server (DNS rebinding).
      const origin = request.headers["origin"]
      if (origin !== undefined && origin !== base) return json(403, failure(null, -32600, "Origin not allowed"))
      const credential = yield* Effect.either(mcp.credential(request, query, `${base}${mcpPath}`))
      if (Either.isLeft(credential)) return unauthorized(base)
      // Read bounded: too large is the service's 413, as on every route.
      const parsed = parseJson(yield* Effect.orDie(request.text))
      if (Either.isLeft(parsed)) return json(400, parseError)
      // After initialize, a client names the version it speaks; one we do not speak is refused.
      const version = request.headers["mcp-protocol-version"]
      if (version !== undefined && !isInitialize(parsed.right) && !isOneOf(protocolVersions, version)) {
        return json(400, failure(null, -32600, `Unsupported MCP-Protocol-Version ${version.slice(0, 32)}; this server speaks ${protocolVersions.join(", ")}`))
      }
      const answer = yield* Effect.either(mcp.answer(parsed.right, credential.right))
      if (Either.isLeft(answer)) return unauthorized(base)
      const response = Option.match(answer.right.body, {
        onNone: () => HttpServerResponse.empty({ status: 202 }),
        onSome: (body) => json(200, body)
      })
      return Option.match(answer.right.rate, { onNone: () => response, onSome: (rate) => withRateHeaders(response, rate, false) })
    })

    yield* router.post(mcpPath, post)
    yield* router.get(mcpPath, Effect.succeed(methodNotAllowed))
    yield* router.del(mcpPath, Effect.succeed(methodNotAllowed))
  })
)
