import { Deferred, Effect, Exit } from "effect"
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js"
import { randomBytes } from "node:crypto"
import * as http from "node:http"
import { Readable } from "node:stream"
import { loadedSmallWorldServer } from "./AdWorld.js"
import { call } from "./TestServer.js"

// What the tests of `/mcp`'s OAuth 2.1 share (test/mcpOAuth.test.ts, test/mcpOAuthBrowser.test.ts).

export const password = "an oauth password"
export const rateLimit = 12
export const maxPending = 8

/** The service of those tests: every registration comes from 127.0.0.1 (the per-address limit is tested on its own). */
export const oauthServer = loadedSmallWorldServer({
  config: { rateLimitPerMinute: rateLimit },
  env: { OAUTH_MAX_PENDING_CLIENTS: String(maxPending), OAUTH_REGISTRATIONS_PER_ADDRESS: "100000" }
})

/** The SDK's OAuth client state, kept in memory as a desktop client keeps it on disk. */
export class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier = ""
  authorizationUrl: URL | undefined
  constructor(readonly redirectUrl: string, readonly stateValue = "state-" + randomBytes(8).toString("hex")) {}
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "Test Desktop", redirect_uris: [this.redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" }
  }
  state() {
    return this.stateValue
  }
  clientInformation() {
    return this.client
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
}

/** The loopback listener a desktop client opens for the redirect: the first URL it receives. */
export const callbackServer = Effect.gen(function*() {
  const received = yield* Deferred.make<URL>()
  const server = yield* Effect.acquireRelease(
    Effect.async<http.Server>((resume) => {
      const server = http.createServer((request, response) => {
        Deferred.unsafeDone(received, Exit.succeed(new URL(request.url ?? "/", "http://127.0.0.1")))
        response.writeHead(200, { "content-type": "text/plain" }).end("You can close this window.")
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.sync(() => server.close())
  )
  const address = server.address()
  return { port: typeof address === "object" && address !== null ? address.port : 0, received }
})

/** `tools/call` of `get_credits` with an access token: the HTTP status, and the result. */
export const creditsWith = (accessToken: string) =>
  Effect.map(
    call("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_credits", arguments: {} } })
    }),
    (answer) => ({ status: answer.status, json: answer.status === 200 ? JSON.parse(answer.body) : undefined })
  )

/**
 * `fetch` on a new connection for every request (`agent: false`), for the SDK client of a test
 * that idles for seconds in a browser between its requests. Through the global fetch's pool, a
 * request went out twice in seven runs on a kept-alive socket the server was closing at that
 * moment (its 5 s idle timeout, timers late on a loaded machine): ECONNRESET, a race of HTTP/1.1
 * keep-alive, not of the OAuth flow under test. The answer streams, as the SDK reads it.
 */
export const unpooledFetch: FetchLike = (url, init) =>
  new Promise((resolve, reject) => {
    const request = http.request(url, { method: init?.method ?? "GET", headers: Object.fromEntries(new Headers(init?.headers)), agent: false, signal: init?.signal ?? undefined }, (response) => {
      const headers = new Headers()
      for (const [name, value] of Object.entries(response.headers)) {
        for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one)
      }
      const status = response.statusCode ?? 0
      const empty = status === 204 || status === 304 || init?.method === "HEAD"
      if (empty) response.resume()
      resolve(new Response(empty ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>), { status, headers }))
    })
    request.on("error", reject)
    request.end(init?.body === undefined || init.body === null ? undefined : String(init.body))
  })
