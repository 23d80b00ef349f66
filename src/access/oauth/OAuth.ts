import { createHash, randomBytes } from "node:crypto"
import { Data, Duration, Effect, Option } from "effect"
import { isStorable } from "../../kernel/Text.js"
import { oauthSettings } from "./Config.js"
import { type ClientRow, type IssuedTokens, OAuthRepo } from "./OAuthRepo.js"
import type { AccountId } from "../../kernel/Ids.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"
import { isJsonObject, isTextList } from "../../kernel/Guards.js"
import { now } from "../../kernel/UtcDay.js"

/**
 * The OAuth 2.1 authorization server of the MCP endpoint (spec: INTERPRETATIONS M3, M4; RFC 6749,
 * 7009, 7591, 8252, 8414, 8707, 9728): public clients registered dynamically, the authorization
 * code flow with PKCE S256 only, refresh tokens rotated with reuse detection, revocation. Codes
 * and tokens are random (256 bits) and stored as SHA-256 digests; an access token stands for the
 * API key its grant is bound to (migration 0070).
 */

/** RFC 6749 5.2, RFC 7591 3.2.2, RFC 8707 2: the error codes this server answers. */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unsupported_grant_type"
  | "invalid_target"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "temporarily_unavailable"

/** A refused OAuth request: `{ error, error_description }` with its status. */
export class OAuthError extends Data.TaggedError("OAuthError")<{
  readonly code: OAuthErrorCode
  readonly description: string
  readonly status: number
}> {
  static readonly of = (code: OAuthErrorCode, description: string) =>
    new OAuthError({ code, description, status: code === "invalid_client" ? 401 : code === "temporarily_unavailable" ? 429 : 400 })
}

/**
 * A bad authorization request whose redirect URI cannot be trusted: answered with a page, never
 * a redirect (RFC 6749 4.1.2.1).
 */
export class UntrustedRedirect extends Data.TaggedError("UntrustedRedirect")<{ readonly message: string }> {}

/** A bad authorization request from a known client to one of its redirect URIs: sent back there. */
export class RedirectedError extends Data.TaggedError("RedirectedError")<{ readonly location: string }> {}

/** A validated authorization request, as the consent page carries it in its form. */
export interface AuthorizationRequest {
  readonly client: ClientRow
  readonly redirectUri: string
  readonly codeChallenge: string
  readonly state: Option.Option<string>
  readonly resource: string
  readonly scope: Option.Option<string>
}

/** RFC 6749 5.1. */
export interface TokenAnswer {
  readonly access_token: string
  readonly token_type: "Bearer"
  readonly expires_in: number
  readonly refresh_token: string
  readonly scope?: string
}

/** RFC 7591 3.2.1. */
export interface RegisteredClient {
  readonly client_id: string
  readonly client_id_issued_at: number
  readonly client_name: string
  readonly redirect_uris: ReadonlyArray<string>
  readonly grant_types: ReadonlyArray<string>
  readonly response_types: ReadonlyArray<string>
  readonly token_endpoint_auth_method: "none"
}

/** Parameters as a form or query string carries them: a name given twice is refused. */
export type Params = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

export const tokenPrefixes = { access: "mcp_at_", refresh: "mcp_rt_", code: "mcp_ac_", client: "mcp_client_" } as const

const secret = (prefix: string) => `${prefix}${randomBytes(32).toString("base64url")}`
export const digest = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest()

/** RFC 7636 4.1 and 4.2: what a verifier and an S256 challenge look like. */
const verifierPattern = /^[A-Za-z0-9._~-]{43,128}$/
const challengePattern = /^[A-Za-z0-9_-]{43}$/
const s256 = (verifier: string) => createHash("sha256").update(verifier, "ascii").digest("base64url")

export const maxRedirectUris = 10
export const maxRedirectUriLength = 500
export const maxClientName = 100
const maxState = 500
const maxScope = 500
const maxToken = 200

const loopbackHosts = new Set(["127.0.0.1", "[::1]", "localhost"])

/** RFC 8252 7.3, 8.3: http only for the loopback interface; otherwise https. */
const redirectUriProblem = (text: string): Option.Option<string> => {
  if (text.length > maxRedirectUriLength) return Option.some(`must be at most ${maxRedirectUriLength} characters`)
  if (!URL.canParse(text)) return Option.some("must be an absolute URL")
  const url = new URL(text)
  if (url.hash !== "" || text.includes("#")) return Option.some("must not have a fragment")
  if (url.username !== "" || url.password !== "") return Option.some("must not carry credentials")
  if (url.protocol === "https:") return Option.none()
  if (url.protocol === "http:" && loopbackHosts.has(url.hostname)) return Option.none()
  return Option.some("must be https, or http on a loopback address (127.0.0.1, [::1], localhost)")
}

/** RFC 8252 7.3: a loopback redirect URI matches a registered one whatever its port. */
export const redirectMatches = (registered: string, requested: string): boolean => {
  if (registered === requested) return true
  if (!URL.canParse(registered) || !URL.canParse(requested)) return false
  const a = new URL(registered)
  const b = new URL(requested)
  if (a.protocol !== "http:" || b.protocol !== "http:" || !loopbackHosts.has(a.hostname)) return false
  a.port = ""
  b.port = ""
  return a.href === b.href && !requested.includes("#")
}

const single = (params: Params, name: string): Either<string | undefined> => {
  const value = params[name]
  if (Array.isArray(value)) return value.length === 1 ? { ok: value[0] } : { problem: `${name}: must be sent once` }
  return { ok: typeof value === "string" && value !== "" ? value : undefined }
}
type Either<A> = { readonly ok: A } | { readonly problem: string }

const withParams = (base: string, params: Record<string, string | undefined>) => {
  const url = new URL(base)
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value)
  return url.href
}

export class OAuth extends Effect.Service<OAuth>()("adintel/OAuth", {
  effect: Effect.gen(function*() {
    const repo = yield* OAuthRepo
    const settings = yield* oauthSettings
    const after = (at: Date, duration: Duration.Duration) => new Date(at.getTime() + Duration.toMillis(duration))
    const day = Duration.days(1)

    const fail = (code: OAuthErrorCode, description: string) => Effect.fail(OAuthError.of(code, description))

    /** One parameter of a token or revocation request; a repeated one is `invalid_request`. */
    const param = (params: Params, name: string) => {
      const value = single(params, name)
      return "problem" in value ? fail("invalid_request", value.problem) : Effect.succeed(value.ok)
    }
    const required = (params: Params, name: string) =>
      Effect.flatMap(param(params, name), (value) => (value === undefined ? fail("invalid_request", `${name} is missing`) : Effect.succeed(value)))

    /** A code or token the client presents: one longer than any this server issues was never issued. */
    const presented = (params: Params, name: string, unknown: string) =>
      Effect.flatMap(required(params, name), (value) => (value.length > maxToken ? fail("invalid_grant", unknown) : Effect.succeed(value)))

    const issue = (at: Date) => {
      const access = secret(tokenPrefixes.access)
      const refresh = secret(tokenPrefixes.refresh)
      const issued: IssuedTokens = {
        accessHash: digest(access),
        accessExpiresAt: after(at, settings.accessTokenTtl),
        refreshHash: digest(refresh),
        refreshExpiresAt: after(at, settings.refreshTokenTtl)
      }
      const answer = (scope: string | null): TokenAnswer => ({
        access_token: access,
        token_type: "Bearer",
        expires_in: Math.round(Duration.toSeconds(settings.accessTokenTtl)),
        refresh_token: refresh,
        ...(scope === null ? {} : { scope })
      })
      return { issued, answer }
    }

    /** A client named by a token or revocation request: unknown is `invalid_client` (401). */
    const client = (params: Params) =>
      Effect.gen(function*() {
        const id = yield* required(params, "client_id")
        const found = id.length > maxToken ? Option.none() : yield* repo.findClient(id)
        if (Option.isNone(found)) return yield* fail("invalid_client", "Unknown client_id")
        return found.value
      })

    /** RFC 8707 2: a `resource` sent with a token request must be the grant's. */
    const sameResource = (params: Params, resource: string) =>
      Effect.flatMap(param(params, "resource"), (sent) =>
        sent === undefined || sent === resource ? Effect.void : fail("invalid_target", `resource must be ${resource}`))

    const exchangeCode = (params: Params, at: Date) =>
      Effect.gen(function*() {
        const code = yield* presented(params, "code", "Unknown authorization code")
        const verifier = yield* required(params, "code_verifier")
        const redirectUri = yield* required(params, "redirect_uri")
        const owner = yield* client(params)
        if (!verifierPattern.test(verifier)) return yield* fail("invalid_request", "code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, -, ., _, ~")
        const codeHash = digest(code)
        const found = yield* repo.useCode(codeHash, at)
        if (Option.isNone(found)) {
          // RFC 6749 4.1.2: a code used twice revokes what it was exchanged for.
          const reused = yield* repo.codeReused(codeHash)
          return yield* fail("invalid_grant", reused ? "The authorization code was already used" : "Unknown authorization code")
        }
        const row = found.value
        if (row.client_id !== owner.id) return yield* fail("invalid_grant", "The authorization code was issued to another client")
        if (row.expires_at.getTime() <= at.getTime()) return yield* fail("invalid_grant", "The authorization code has expired")
        if (row.redirect_uri !== redirectUri) return yield* fail("invalid_grant", "redirect_uri differs from the authorization request's")
        if (s256(verifier) !== row.code_challenge) return yield* fail("invalid_grant", "code_verifier does not match the code_challenge")
        yield* sameResource(params, row.resource)
        if (!row.live) return yield* fail("invalid_grant", "The account's API key changed or its plan has no API access")
        const { answer, issued } = issue(at)
        yield* repo.insertGrant({ ...issued, codeHash, code: row, now: at })
        return answer(row.scope)
      })

    const refresh = (params: Params, at: Date) =>
      Effect.gen(function*() {
        const token = yield* presented(params, "refresh_token", "Unknown refresh token")
        const owner = yield* client(params)
        const hash = digest(token)
        const grant = yield* repo.grantOfRefresh(hash)
        if (Option.isNone(grant)) {
          // A refresh token exchanged before: someone holds a copy, so the whole grant ends.
          const reused = yield* repo.refreshReused(hash)
          return yield* fail("invalid_grant", reused ? "The refresh token was already used; the grant is revoked" : "Unknown refresh token")
        }
        const row = grant.value
        if (row.client_id !== owner.id) return yield* fail("invalid_grant", "The refresh token was issued to another client")
        if (row.refresh_expires_at.getTime() <= at.getTime()) return yield* fail("invalid_grant", "The refresh token has expired")
        yield* sameResource(params, row.resource)
        const { answer, issued } = issue(at)
        if (!(yield* repo.rotate(row.id, hash, issued, at))) {
          // Two exchanges of one refresh token at once: the other one rotated it first, so this is
          // a second use, and the grant ends as it would for any reuse (issue 28).
          const reused = yield* repo.refreshReused(hash)
          return yield* fail("invalid_grant", reused ? "The refresh token was already used; the grant is revoked" : "The refresh token is no longer valid")
        }
        return answer(row.scope)
      })

    /** The client and redirect URI of an authorization request: failures here are never redirected. */
    const trustedRedirect = (params: Params) =>
      Effect.gen(function*() {
        const untrusted = (message: string) => Effect.fail(new UntrustedRedirect({ message }))
        const clientId = single(params, "client_id")
        if ("problem" in clientId || clientId.ok === undefined) return yield* untrusted("The request names no client (client_id).")
        const found = clientId.ok.length > maxToken ? Option.none() : yield* repo.findClient(clientId.ok)
        if (Option.isNone(found)) return yield* untrusted("This application is not registered here (unknown client_id).")
        const redirect = single(params, "redirect_uri")
        if ("problem" in redirect || redirect.ok === undefined) return yield* untrusted("The request names no redirect_uri.")
        const requested = redirect.ok
        if (!found.value.redirect_uris.some((registered) => redirectMatches(registered, requested))) {
          return yield* untrusted("The redirect_uri is not one this application registered.")
        }
        return { client: found.value, redirectUri: requested }
      })

    return {
      /** RFC 7591: a public client; its redirect URIs https, or http on loopback. */
      register: Effect.fn("OAuth.register", serviceSpan)(function*(body: unknown, address: string) {
        const metadata = (problem: string) => fail("invalid_client_metadata", problem)
        if (!isJsonObject(body)) return yield* metadata("The body must be a JSON object")
        const fields = body
        const uris = fields["redirect_uris"]
        if (!isTextList(uris) || uris.length === 0 || uris.length > maxRedirectUris) {
          return yield* fail("invalid_redirect_uri", `redirect_uris must list 1 to ${maxRedirectUris} URIs`)
        }
        for (const uri of uris) {
          const problem = redirectUriProblem(uri)
          if (Option.isSome(problem)) return yield* fail("invalid_redirect_uri", `redirect_uris: ${problem.value}`)
        }
        const name = fields["client_name"] ?? "Unnamed MCP client"
        if (typeof name !== "string" || name.trim() === "" || name.length > maxClientName || !isStorable(name)) {
          return yield* metadata(`client_name must be a text of 1 to ${maxClientName} characters`)
        }
        const method = fields["token_endpoint_auth_method"]
        if (method !== undefined && method !== "none") {
          return yield* metadata("token_endpoint_auth_method: only none is supported (public clients with PKCE)")
        }
        const grants = fields["grant_types"]
        if (grants !== undefined && (!Array.isArray(grants) || !grants.includes("authorization_code") ||
          !grants.every((g) => g === "authorization_code" || g === "refresh_token"))) {
          return yield* metadata("grant_types: authorization_code (and refresh_token) only")
        }
        const responses = fields["response_types"]
        if (responses !== undefined && (!Array.isArray(responses) || !responses.every((r) => r === "code"))) {
          return yield* metadata("response_types: code only")
        }
        const at = yield* now
        const dayAgo = new Date(at.getTime() - Duration.toMillis(day))
        if ((yield* repo.registeredFrom(address, dayAgo)) >= settings.registrationsPerAddress) {
          return yield* fail("temporarily_unavailable", "Too many clients registered from this address in the last day; try again later")
        }
        const pending = yield* repo.prunePendingClients(dayAgo)
        if (pending >= settings.maxPendingClients) {
          return yield* fail("temporarily_unavailable", "Too many clients registered in the last day; try again later")
        }
        const id = `${tokenPrefixes.client}${randomBytes(16).toString("hex")}`
        yield* repo.insertClient({ id, name: name.trim(), redirectUris: uris, now: at, from: address })
        return {
          client_id: id,
          client_id_issued_at: Math.floor(at.getTime() / 1000),
          client_name: name.trim(),
          redirect_uris: uris,
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none"
        } satisfies RegisteredClient
      }),

      /**
       * An authorization request (RFC 6749 4.1.1, RFC 7636, RFC 8707) for `resource`, the
       * server's own MCP endpoint. The client and redirect URI are checked first: a request that
       * fails there is never redirected; any other problem is redirected with its error.
       */
      authorization: Effect.fn("OAuth.authorization", serviceSpan)(function*(params: Params, resource: string) {
        const { client, redirectUri } = yield* trustedRedirect(params)
        const stateParam = single(params, "state")
        const state = "ok" in stateParam && stateParam.ok !== undefined && stateParam.ok.length <= maxState ? Option.some(stateParam.ok) : Option.none()
        const refuse = (error: string, description: string) =>
          Effect.fail(new RedirectedError({ location: withParams(redirectUri, { error, error_description: description, state: Option.getOrUndefined(state) }) }))
        for (const name of ["response_type", "code_challenge", "code_challenge_method", "state", "resource", "scope"]) {
          const value = single(params, name)
          if ("problem" in value) return yield* refuse("invalid_request", value.problem)
        }
        if ("ok" in stateParam && stateParam.ok !== undefined && stateParam.ok.length > maxState) {
          return yield* refuse("invalid_request", `state must be at most ${maxState} characters`)
        }
        const value = (name: string) => {
          const found = single(params, name)
          return "ok" in found ? found.ok : undefined
        }
        if (value("response_type") !== "code") return yield* refuse("unsupported_response_type", "response_type must be code")
        const challenge = value("code_challenge")
        if (challenge === undefined) return yield* refuse("invalid_request", "code_challenge is required (PKCE, S256)")
        if (value("code_challenge_method") !== "S256") return yield* refuse("invalid_request", "code_challenge_method must be S256")
        if (!challengePattern.test(challenge)) return yield* refuse("invalid_request", "code_challenge must be the base64url SHA-256 of the code_verifier")
        const requested = value("resource")
        if (requested !== undefined && requested !== resource) return yield* refuse("invalid_target", `resource must be ${resource}`)
        const scope = value("scope")
        if (scope !== undefined && (scope.length > maxScope || !isStorable(scope))) {
          return yield* refuse("invalid_scope", `scope must be at most ${maxScope} characters`)
        }
        return {
          client,
          redirectUri,
          codeChallenge: challenge,
          state,
          resource,
          scope: Option.fromNullable(scope)
        } satisfies AuthorizationRequest
      }),

      /** What the consent page names: the signed-in account (none if it was deleted meanwhile). */
      account: Effect.fn("OAuth.account", serviceSpan)(repo.findAccount),

      /**
       * The user allowed: a single-use code (for the account's live key) sent to the redirect URI
       * with `state`. An account without API access is sent `access_denied`.
       */
      approve: Effect.fn("OAuth.approve", serviceSpan)(function*(request: AuthorizationRequest, accountId: AccountId) {
        const at = yield* now
        const state = Option.getOrUndefined(request.state)
        const account = yield* repo.findAccount(accountId)
        const denied = withParams(request.redirectUri, { error: "access_denied", error_description: "The account has no API access (Basic plan or higher)", state })
        if (Option.isNone(account) || !account.value.api_access) return denied
        const code = secret(tokenPrefixes.code)
        const inserted = yield* repo.insertCode({
          codeHash: digest(code),
          clientId: request.client.id,
          accountId,
          redirectUri: request.redirectUri,
          codeChallenge: request.codeChallenge,
          resource: request.resource,
          scope: Option.getOrNull(request.scope),
          now: at,
          expiresAt: after(at, settings.codeTtl),
          forgetBefore: new Date(at.getTime() - Duration.toMillis(day))
        })
        return inserted ? withParams(request.redirectUri, { code, state }) : denied
      }),

      /** M4: denying redirects with `error=access_denied`. */
      deny: (request: AuthorizationRequest) =>
        withParams(request.redirectUri, { error: "access_denied", error_description: "The user denied access", state: Option.getOrUndefined(request.state) }),

      /** RFC 6749 3.2: the token endpoint (authorization code with PKCE, refresh token rotation). */
      token: Effect.fn("OAuth.token", serviceSpan)(function*(params: Params) {
        const grantType = yield* required(params, "grant_type")
        const at = yield* now
        if (grantType === "authorization_code") return yield* exchangeCode(params, at)
        if (grantType === "refresh_token") return yield* refresh(params, at)
        return yield* fail("unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
      }),

      /** RFC 7009: the grant of the token ends; an unknown token is fine (200) all the same. */
      revoke: Effect.fn("OAuth.revoke", serviceSpan)(function*(params: Params) {
        const token = yield* required(params, "token")
        const clientId = yield* param(params, "client_id")
        if (token.length <= maxToken) yield* repo.revoke(digest(token), clientId ?? null)
      }),

      /** M2: the key digest an access token stands for, if it is live and for `resource`. */
      accessToken: Effect.fn("OAuth.accessToken", serviceSpan)((token: string, resource: string) =>
        token.length > maxToken || !token.startsWith(tokenPrefixes.access)
          ? Effect.succeedNone
          : Effect.flatMap(now, (at) =>
            Effect.map(repo.accessToken(digest(token), at), Option.flatMap((row) => (row.resource === resource ? Option.some(row.key_hash) : Option.none()))))),

      /** The account's connected clients (live grants), newest first. */
      connections: Effect.fn("OAuth.connections", serviceSpan)((accountId: AccountId) => Effect.flatMap(now, (at) => repo.connections(accountId, at))),

      /** Ends one of the account's grants: its tokens stop working at once. */
      disconnect: Effect.fn("OAuth.disconnect", serviceSpan)(repo.disconnect)
    }
  }),
  dependencies: [OAuthRepo.Default]
}) {}
