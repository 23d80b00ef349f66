import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js"
import { Effect, Layer, TestClock } from "effect"
import { createHash, randomBytes } from "node:crypto"
import * as http from "node:http"
import { Accounts } from "../src/access/accounts/Accounts.js"
import { maxGrantsPerAccount, maxUsedRefreshTokens } from "../src/access/oauth/OAuthRepo.js"
import { TrustProxy } from "../src/platform/Forwarded.js"
import { creditsWith, maxPending, oauthServer, password, rateLimit } from "./support/McpOAuth.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, balanceOf, call, signIn, TestServer, testServer } from "./support/TestServer.js"

/**
 * Issue 21, M3-M4: the OAuth 2.1 authorization server of `/mcp` (the official MCP SDK's OAuth
 * client through the sign-in and consent pages in headless Chromium: test/mcpOAuthBrowser.test.ts,
 * a file of its own for the browser's CPU); here its documents, and what must be refused: a wrong verifier, a code used twice or too late,
 * a refresh token used twice, a foreign redirect URI, a token for another resource, the key
 * regenerated, the plan downgraded, too many calls.
 */


/** A plain HTTP request that may name its own Host (another resource's origin). */
const raw = (url: string, options: { method?: string; headers?: Record<string, string>; body?: string }) =>
  Effect.async<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resume) => {
    const request = http.request(url, { method: options.method ?? "GET", headers: options.headers }, (response) => {
      let body = ""
      response.on("data", (chunk) => (body += chunk))
      response.on("end", () => resume(Effect.succeed({ status: response.statusCode ?? 0, headers: response.headers, body })))
    })
    request.end(options.body)
  })

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()
const formHeaders = { "content-type": "application/x-www-form-urlencoded" }

const pkce = () => {
  const verifier = randomBytes(32).toString("base64url")
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") }
}

const register = (redirectUris: ReadonlyArray<string>, name = "Test CLI") =>
  Effect.map(
    call("/mcp/oauth/register", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: name, redirect_uris: redirectUris }) }),
    (answer) => ({ ...answer, json: JSON.parse(answer.body) })
  )

/** Consent given through the page's form (as the browser posts it), for a signed-in account: the redirect it answers. */
const consent = (options: {
  readonly session: { readonly cookie: string; readonly origin: string }
  readonly clientId: string
  readonly redirectUri: string
  readonly challenge: string
  readonly decision?: "allow" | "deny"
  readonly host?: string
}) =>
  Effect.gen(function*() {
    const { url } = yield* TestServer
    const origin = options.host ? `http://${options.host}` : options.session.origin
    const answer = yield* raw(`${url}/mcp/oauth/authorize`, {
      method: "POST",
      headers: { ...formHeaders, cookie: options.session.cookie, origin, ...(options.host ? { host: options.host } : {}) },
      body: form({
        response_type: "code",
        client_id: options.clientId,
        redirect_uri: options.redirectUri,
        code_challenge: options.challenge,
        code_challenge_method: "S256",
        state: "xyz",
        resource: `${origin}/mcp`,
        decision: options.decision ?? "allow"
      })
    })
    return { ...answer, location: new URL(String(answer.headers.location ?? "http://none/")) }
  })

const token = (fields: Record<string, string>) =>
  Effect.map(call("/mcp/oauth/token", { method: "POST", headers: formHeaders, body: form(fields) }), (answer) => ({ ...answer, json: JSON.parse(answer.body) }))

/** A client, a signed-in account with a code for it, and the tokens the code is exchanged for. */
const connected = (plan: "basic" | "pro" = "pro") =>
  Effect.gen(function*() {
    const owner = yield* account({ plan, password })
    const session = yield* signIn(owner.email, password)
    const redirectUri = "http://127.0.0.1:7777/callback"
    const client = (yield* register([redirectUri])).json
    const { challenge, verifier } = pkce()
    const { location } = yield* consent({ session, clientId: client.client_id, redirectUri, challenge })
    const code = location.searchParams.get("code")!
    const exchange = { grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: redirectUri, client_id: client.client_id }
    const tokens = yield* token(exchange)
    return { owner, session, client, redirectUri, exchange, tokens: tokens.json as OAuthTokens }
  })

describe("MCP over OAuth 2.1", () => {
  // Every registration here comes from 127.0.0.1: the per-address limit is tested on its own below.
  layer(oauthServer)((it) => {
    it.effect("publishes the discovery documents of M3", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const resource = JSON.parse((yield* call("/.well-known/oauth-protected-resource/mcp")).body)
        expect(resource).toMatchObject({ resource: `${url}/mcp`, authorization_servers: [`${url}/mcp`] })
        for (const path of ["/.well-known/oauth-authorization-server/mcp", "/.well-known/oauth-authorization-server"]) {
          const metadata = JSON.parse((yield* call(path)).body)
          expect(metadata).toMatchObject({
            issuer: `${url}/mcp`,
            authorization_endpoint: `${url}/mcp/oauth/authorize`,
            token_endpoint: `${url}/mcp/oauth/token`,
            registration_endpoint: `${url}/mcp/oauth/register`,
            response_types_supported: ["code"],
            code_challenge_methods_supported: ["S256"]
          })
          expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]))
          expect(metadata.token_endpoint_auth_methods_supported).toContain("none")
        }
      }))

    it.effect("refuses a wrong PKCE verifier, a code used twice (revoking its tokens) and a code past its minute", () =>
      Effect.gen(function*() {
        const { exchange, tokens } = yield* connected()
        expect((yield* creditsWith(tokens.access_token)).status).toBe(200)
        const again = yield* token(exchange)
        expect([again.status, again.json.error]).toEqual([400, "invalid_grant"])
        expect((yield* creditsWith(tokens.access_token)).status).toBe(401)

        const { client, redirectUri, session } = yield* connected()
        const wrong = pkce()
        const first = yield* consent({ session, clientId: client.client_id, redirectUri, challenge: wrong.challenge })
        const badVerifier = yield* token({ ...exchange, client_id: client.client_id, redirect_uri: redirectUri, code: first.location.searchParams.get("code")!, code_verifier: pkce().verifier })
        expect([badVerifier.status, badVerifier.json]).toEqual([400, { error: "invalid_grant", error_description: "code_verifier does not match the code_challenge" }])

        const late = pkce()
        const second = yield* consent({ session, clientId: client.client_id, redirectUri, challenge: late.challenge })
        yield* TestClock.adjust("61 seconds")
        const expired = yield* token({ ...exchange, client_id: client.client_id, redirect_uri: redirectUri, code: second.location.searchParams.get("code")!, code_verifier: late.verifier })
        expect([expired.status, expired.json]).toEqual([400, { error: "invalid_grant", error_description: "The authorization code has expired" }])
      }))

    it.effect("rotates refresh tokens; a refresh token used twice revokes the grant; revocation ends it too", () =>
      Effect.gen(function*() {
        const { client, tokens } = yield* connected()
        const refresh = { grant_type: "refresh_token", client_id: client.client_id }
        const rotated = yield* token({ ...refresh, refresh_token: tokens.refresh_token! })
        expect(rotated.status).toBe(200)
        expect(rotated.headers.get("cache-control")).toBe("no-store")
        expect((yield* creditsWith(rotated.json.access_token)).status).toBe(200)
        const reused = yield* token({ ...refresh, refresh_token: tokens.refresh_token! })
        expect([reused.status, reused.json.error]).toEqual([400, "invalid_grant"])
        expect((yield* creditsWith(rotated.json.access_token)).status).toBe(401)
        expect((yield* token({ ...refresh, refresh_token: rotated.json.refresh_token })).json.error).toBe("invalid_grant")

        const other = yield* connected()
        const revoked = yield* call("/mcp/oauth/revoke", { method: "POST", headers: formHeaders, body: form({ token: other.tokens.access_token, client_id: other.client.client_id }) })
        expect(revoked.status).toBe(200)
        expect((yield* creditsWith(other.tokens.access_token)).status).toBe(401)
        expect((yield* token({ ...refresh, client_id: other.client.client_id, refresh_token: other.tokens.refresh_token! })).json.error).toBe("invalid_grant")
      }))

    it.effect("never redirects to a redirect URI the client did not register; loopback ports may differ (RFC 8252)", () =>
      Effect.gen(function*() {
        const bad = yield* register(["http://attacker.example/cb"])
        expect([bad.status, bad.json.error]).toEqual([400, "invalid_redirect_uri"])
        const client = (yield* register(["http://127.0.0.1:5000/cb", "https://app.example/cb"])).json
        const { challenge } = pkce()
        const query = (redirectUri: string) =>
          `/mcp/oauth/authorize?${form({ response_type: "code", client_id: client.client_id, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: "S256", state: "s" })}`
        const foreign = yield* call(query("https://attacker.example/cb"), { redirect: "manual" })
        expect(foreign.status).toBe(400)
        expect(foreign.headers.get("location")).toBeNull()
        expect(foreign.body).toContain("not one this application registered")
        // Another port of the registered loopback URI is the same client: to the login page.
        const loopback = yield* call(query("http://127.0.0.1:6123/cb"), { redirect: "manual" })
        expect(loopback.status).toBe(302)
        expect(loopback.headers.get("location")).toMatch(/^\/login\?next=%2Fmcp%2Foauth%2Fauthorize%3F/)
        // A registered URI gets the other errors, with the state, but only for someone signed in:
        // anyone may register a client, so a stranger's malformed request is a page here, not a
        // redirect to whatever URI was registered (RFC 9700 4.11.2; issue 28).
        const plainPkce = query("https://app.example/cb").replace("S256", "plain")
        const stranger = yield* call(plainPkce, { redirect: "manual" })
        expect([stranger.status, stranger.headers.get("location")]).toEqual([400, null])
        expect(stranger.body).toContain("The application&#39;s request is malformed: code_challenge_method must be S256.")
        const owner = yield* account({ plan: "pro", password })
        const session = yield* signIn(owner.email, password)
        const plain = yield* call(plainPkce, { redirect: "manual", headers: { cookie: session.cookie } })
        const location = new URL(plain.headers.get("location")!)
        expect([location.origin + location.pathname, location.searchParams.get("error"), location.searchParams.get("state")]).toEqual([
          "https://app.example/cb",
          "invalid_request",
          "s"
        ])
      }))

    it.effect("two exchanges of one refresh token at once: at most one succeeds, and a failed one ends the grant (issue 28)", () =>
      Effect.gen(function*() {
        for (let round = 0; round < 3; round++) {
          const { client, tokens } = yield* connected()
          const refresh = { grant_type: "refresh_token", client_id: client.client_id, refresh_token: tokens.refresh_token! }
          const answers = yield* Effect.all(Array.from({ length: 8 }, () => token(refresh)), { concurrency: "unbounded" })
          const won = answers.filter((a) => a.status === 200)
          expect(won.length).toBeLessThanOrEqual(1)
          for (const lost of answers.filter((a) => a.status !== 200)) expect([lost.status, lost.json.error]).toEqual([400, "invalid_grant"])
          // A race lost is a reuse: the grant is over, the winner's new tokens included.
          if (won.length === 1 && answers.length > 1) {
            expect((yield* creditsWith(won[0]!.json.access_token)).status).toBe(401)
            expect((yield* token({ ...refresh, refresh_token: won[0]!.json.refresh_token })).json.error).toBe("invalid_grant")
          }
        }
      }))

    it.effect("denying sends access_denied; a consent from another site is refused", () =>
      Effect.gen(function*() {
        const owner = yield* account({ plan: "pro", password })
        const session = yield* signIn(owner.email, password)
        const redirectUri = "http://127.0.0.1:7000/cb"
        const client = (yield* register([redirectUri])).json
        const denied = yield* consent({ session, clientId: client.client_id, redirectUri, challenge: pkce().challenge, decision: "deny" })
        expect([denied.status, denied.location.searchParams.get("error"), denied.location.searchParams.get("state")]).toEqual([303, "access_denied", "xyz"])
        const forged = yield* consent({ session: { ...session, origin: "https://evil.example" }, clientId: client.client_id, redirectUri, challenge: pkce().challenge })
        expect(forged.status).toBe(403)
        expect(forged.headers.location).toBeUndefined()
        // An account without API access may only deny; an approval sent anyway is access_denied.
        const free = yield* account({ plan: "free", password })
        const freeSession = yield* signIn(free.email, password)
        const query = form({ response_type: "code", client_id: client.client_id, redirect_uri: redirectUri, code_challenge: pkce().challenge, code_challenge_method: "S256" })
        const page = yield* call(`/mcp/oauth/authorize?${query}`, { headers: { cookie: freeSession.cookie } })
        expect(page.status).toBe(200)
        expect(page.body).toContain(`id="allow" disabled`)
        const approved = yield* consent({ session: freeSession, clientId: client.client_id, redirectUri, challenge: pkce().challenge })
        expect(approved.location.searchParams.get("error")).toBe("access_denied")
      }))

    it.effect("disconnects only the account's own clients: another account's is a 404", () =>
      Effect.gen(function*() {
        const mine = yield* connected()
        const theirs = yield* connected()
        const sql = yield* SqlClient.SqlClient
        const grantOf = (accountId: string) =>
          Effect.map(sql<{ id: string }>`select id::text from oauth_grants where account_id = ${accountId}::uuid`, (rows) => rows[0]!.id)
        const disconnect = (id: string) =>
          call("/mcp/oauth/disconnect", {
            method: "POST",
            headers: { "content-type": "application/json", cookie: mine.session.cookie, origin: mine.session.origin },
            body: JSON.stringify({ id })
          })
        const foreign = yield* disconnect(yield* grantOf(theirs.owner.id))
        expect([foreign.status, foreign.body]).toEqual([404, `{"success":false,"error":"MCP client not found"}`])
        expect((yield* creditsWith(theirs.tokens.access_token)).status).toBe(200)
        const own = yield* disconnect(yield* grantOf(mine.owner.id))
        expect([own.status, own.body]).toEqual([200, `{"success":true}`])
        expect((yield* creditsWith(mine.tokens.access_token)).status).toBe(401)
      }))

    it.effect("refuses a token issued for another resource", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const owner = yield* account({ plan: "pro", password })
        const session = yield* signIn(owner.email, password)
        const redirectUri = "http://127.0.0.1:7001/cb"
        const client = (yield* register([redirectUri])).json
        const { challenge, verifier } = pkce()
        // The same server reached under another name: its resource is http://other.example:<port>/mcp.
        const host = `other.example:${new URL(url).port}`
        // Not plain http on this machine: the browser holds the `__Host-` cookie there (issue 28).
        const elsewhere = { ...session, cookie: session.cookie.replace(/^adintel_session=/, "__Host-adintel_session=") }
        const { location } = yield* consent({ session: elsewhere, clientId: client.client_id, redirectUri, challenge, host })
        const tokens = yield* token({ grant_type: "authorization_code", code: location.searchParams.get("code")!, code_verifier: verifier, redirect_uri: redirectUri, client_id: client.client_id })
        expect(tokens.status).toBe(200)
        expect((yield* creditsWith(tokens.json.access_token)).status).toBe(401)
        const there = yield* raw(`${url}/mcp`, {
          method: "POST",
          headers: { host, "content-type": "application/json", authorization: `Bearer ${tokens.json.access_token}` },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })
        })
        expect(there.status).toBe(200)
      }))

    it.effect("every token of an account dies when its key is regenerated or its plan falls below Basic", () =>
      Effect.gen(function*() {
        const accounts = yield* Accounts
        const regenerated = yield* connected()
        yield* Effect.orDie(accounts.regenerateKey(regenerated.owner.id))
        expect((yield* creditsWith(regenerated.tokens.access_token)).status).toBe(401)
        expect((yield* token({ grant_type: "refresh_token", client_id: regenerated.client.client_id, refresh_token: regenerated.tokens.refresh_token! })).json.error).toBe("invalid_grant")

        const downgraded = yield* connected()
        yield* Effect.orDie(accounts.update(downgraded.owner.id, { plan: "free" }))
        expect((yield* creditsWith(downgraded.tokens.access_token)).status).toBe(401)
        // Back on a paid plan, the old tokens stay dead.
        yield* Effect.orDie(accounts.update(downgraded.owner.id, { plan: "pro" }))
        expect((yield* creditsWith(downgraded.tokens.access_token)).status).toBe(401)
      }))

    it.effect("the rate window applies to tool calls: the refusal is an isError result and costs nothing", () =>
      Effect.gen(function*() {
        const { owner, tokens } = yield* connected()
        for (let i = 0; i < rateLimit; i++) expect((yield* creditsWith(tokens.access_token)).json.result.isError).toBe(false)
        const refused = yield* creditsWith(tokens.access_token)
        expect(refused.json.result).toEqual({ isError: true, content: [{ type: "text", text: `Rate limit exceeded. Max ${rateLimit} requests per minute.` }] })
        expect((yield* balanceOf(owner.id)).used).toBe(rateLimit)
        yield* TestClock.adjust("61 seconds")
      }))

    it.effect("answers RFC 6749 errors with their statuses", () =>
      Effect.gen(function*() {
        const unknownClient = yield* token({ grant_type: "authorization_code", code: "x", code_verifier: pkce().verifier, redirect_uri: "http://127.0.0.1/cb", client_id: "nobody" })
        expect([unknownClient.status, unknownClient.json.error]).toEqual([401, "invalid_client"])
        const unsupported = yield* token({ grant_type: "password", client_id: "nobody" })
        expect([unsupported.status, unsupported.json.error]).toEqual([400, "unsupported_grant_type"])
        const missing = yield* token({ grant_type: "authorization_code" })
        expect([missing.status, missing.json]).toEqual([400, { error: "invalid_request", error_description: "code is missing" }])
        const none = yield* token({})
        expect([none.status, none.json.error]).toEqual([400, "invalid_request"])
      }))

    it.effect("limits what grows: pending clients, grants per account, remembered refresh tokens", () =>
      Effect.gen(function*() {
        // Open registration: clients never authorized count for a day.
        const answers = []
        for (let i = 0; i <= maxPending; i++) answers.push(yield* register(["https://pending.example/cb"]))
        const refused = answers.find((a) => a.status !== 201)!
        expect([refused.status, refused.json]).toEqual([429, { error: "temporarily_unavailable", error_description: "Too many clients registered in the last day; try again later" }])
        yield* TestClock.adjust("25 hours")
        expect((yield* register(["https://pending.example/cb"])).status).toBe(201)

        // The 51st connection of an account ends its first.
        const { client, exchange, redirectUri, session, tokens } = yield* connected()
        const later = []
        for (let i = 0; i < maxGrantsPerAccount; i++) {
          const { challenge, verifier } = pkce()
          const { location } = yield* consent({ session, clientId: client.client_id, redirectUri, challenge })
          later.push((yield* token({ ...exchange, code: location.searchParams.get("code")!, code_verifier: verifier })).json as OAuthTokens)
        }
        expect((yield* creditsWith(tokens.access_token)).status).toBe(401)
        expect((yield* creditsWith(later[0]!.access_token)).status).toBe(200)

        // The last 100 exchanged refresh tokens are remembered; an older one is merely unknown.
        const refresh = { grant_type: "refresh_token", client_id: client.client_id }
        const used = [later[1]!.refresh_token!]
        for (let i = 0; i <= maxUsedRefreshTokens; i++) used.push((yield* token({ ...refresh, refresh_token: used.at(-1)! })).json.refresh_token)
        const forgotten = yield* token({ ...refresh, refresh_token: used[0]! })
        expect(forgotten.json.error_description).toBe("Unknown refresh token")
        const remembered = yield* token({ ...refresh, refresh_token: used[1]! })
        expect(remembered.json.error_description).toBe("The refresh token was already used; the grant is revoked")
        expect((yield* token({ ...refresh, refresh_token: used.at(-1)! })).json.error).toBe("invalid_grant")
      }), 60_000)
  })
})

describe("OAuth dynamic registration per client address (issue 28)", () => {
  layer(testServer({ config: { trustProxy: TrustProxy.hops(1) }, env: { OAUTH_REGISTRATIONS_PER_ADDRESS: "3" } }).pipe(Layer.provideMerge(TestDatabase)))((it) => {
    it.effect("an address registers at most its share a day; others still can, and a forged X-Forwarded-For entry is no other address", () =>
      Effect.gen(function*() {
        const from = (forwardedFor: string) =>
          Effect.map(
            call("/mcp/oauth/register", {
              method: "POST",
              headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
              body: JSON.stringify({ client_name: "Test CLI", redirect_uris: ["https://app.example/cb"] })
            }),
            (answer) => ({ ...answer, json: JSON.parse(answer.body) })
          )
        for (let i = 0; i < 3; i++) expect((yield* from("203.0.113.1")).status).toBe(201)
        const refused = yield* from("203.0.113.1")
        expect([refused.status, refused.json]).toEqual([429, {
          error: "temporarily_unavailable",
          error_description: "Too many clients registered from this address in the last day; try again later"
        }])
        expect((yield* from("198.51.100.7, 203.0.113.1")).status).toBe(429)
        expect((yield* from("203.0.113.2")).status).toBe(201)
        yield* TestClock.adjust("25 hours")
        expect((yield* from("203.0.113.1")).status).toBe(201)
      }))
  })
})
