import { HttpApiBuilder, HttpServerRequest, HttpServerResponse, UrlParams } from "@effect/platform"
import { Effect, Either, Layer, Option } from "effect"
import { NotFound } from "../../kernel/Errors.js"
import { parseJson } from "../../kernel/Json.js"
import { AppConfig } from "../../platform/AppConfig.js"
import { Caller } from "../gateway/Api.js"
import { serveGroup } from "../gateway/Http.js"
import { maxNextLength } from "../session/Api.js"
import { ConnectedClients } from "../session/ConnectedClients.js"
import { baseUrl, clientAddress } from "../../platform/Forwarded.js"
import { crossSiteRefusal, page, seeOther } from "../../platform/Pages.js"
import { Sessions } from "../session/Sessions.js"
import { sessionOf } from "../session/SignedIn.js"
import { OAuthContract } from "./Api.js"
import { type AuthorizationRequest, OAuth, OAuthError, type Params } from "./OAuth.js"
import { authorizationErrorPage, authorizePath, consentPage, hostOf } from "./Pages.js"
import { isJsonObject } from "../../kernel/Guards.js"

/**
 * The OAuth 2.1 authorization server's endpoints (INTERPRETATIONS M3, M4) as routes of the
 * service's router: discovery (RFC 8414, RFC 9728), registration (RFC 7591), the authorize page
 * (sign-in, consent), the token endpoint and revocation (RFC 7009). Their bodies are the RFCs'
 * (`{ error, error_description }`), not the service's envelope, so they are not in the HttpApi
 * contract; disconnecting a client from the key page is (Api.ts).
 */

export const paths = {
  protectedResource: "/.well-known/oauth-protected-resource/mcp",
  authorizationServer: "/.well-known/oauth-authorization-server/mcp",
  authorizationServerRoot: "/.well-known/oauth-authorization-server",
  authorize: authorizePath,
  token: "/mcp/oauth/token",
  register: "/mcp/oauth/register",
  revoke: "/mcp/oauth/revoke"
} as const

type Request = HttpServerRequest.HttpServerRequest

/** RFC 6749 5.1: token answers and errors are never cached. */
const noStore = { "cache-control": "no-store", pragma: "no-cache" }

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(body, { status, headers: { ...noStore, ...headers } })

const oauthError = (error: OAuthError) => json(error.status, { error: error.code, error_description: error.description })

/** A form's or query string's pairs as parameters: a name sent twice keeps both values (then refused). */
const paramsOf = (pairs: UrlParams.UrlParams): Params => {
  const params: Record<string, string | Array<string>> = {}
  for (const [name, value] of pairs) {
    const seen = params[name]
    params[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value]
  }
  return params
}

const invalidBody = OAuthError.of("invalid_request", "The body must be a form (or a JSON object of strings)")

/** A token or revocation request's parameters: a form (RFC 6749), or a JSON object of strings for clients that send one. */
/** A JSON body of the OAuth endpoints: an object of texts, as a form would send. */
const isTextParams = (value: unknown): value is Readonly<Record<string, string>> =>
  isJsonObject(value) && Object.values(value).every((item) => typeof item === "string")

const bodyParams = (request: Request): Effect.Effect<Either.Either<Params, OAuthError>> =>
  Effect.gen(function*() {
    const type = request.headers["content-type"]?.toLowerCase() ?? ""
    // Read bounded (as every route): too large is the service's 413.
    const text = yield* Effect.orDie(request.text)
    if (!type.includes("application/json")) return Either.right(paramsOf(UrlParams.fromInput(new URLSearchParams(text))))
    const parsed = parseJson(text)
    const body = Either.getOrUndefined(parsed)
    return isTextParams(body) ? Either.right(body) : Either.left(invalidBody)
  })


export const OAuthRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const oauth = yield* OAuth
    const sessions = yield* Sessions
    const config = yield* AppConfig

    const base = (request: Request) => baseUrl(request, config)
    const issuer = (request: Request) => `${base(request)}/mcp`

    /** M3, RFC 8414. */
    const serverMetadata = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
      const at = base(request)
      return json(200, {
        issuer: issuer(request),
        authorization_endpoint: `${at}${paths.authorize}`,
        token_endpoint: `${at}${paths.token}`,
        registration_endpoint: `${at}${paths.register}`,
        revocation_endpoint: `${at}${paths.revoke}`,
        response_types_supported: ["code"],
        response_modes_supported: ["query"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        revocation_endpoint_auth_methods_supported: ["none"],
        service_documentation: `${at}/docs`
      }, { "cache-control": "no-cache" })
    })

    /** M3, RFC 9728. */
    const resourceMetadata = Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
      json(200, {
        resource: issuer(request),
        authorization_servers: [issuer(request)],
        bearer_methods_supported: ["header"],
        resource_name: "AdIntel MCP",
        resource_documentation: `${base(request)}/docs`
      }, { "cache-control": "no-cache" }))

    const errorPage = (message: string, status = 400) => page((nonce) => authorizationErrorPage(message, nonce), status)

    /**
     * The consent page sends the browser on to the application's redirect URI: CSP's form-action
     * applies to a form's redirects too, so it names that origin. The page runs no script.
     */
    const consent = (request: AuthorizationRequest, account: { readonly email: string; readonly apiAccess: boolean }) => {
      const target = URL.canParse(request.redirectUri) ? new URL(request.redirectUri).origin : ""
      return page((nonce) => consentPage(request, account, nonce), 200, {
        "content-security-policy":
          `default-src 'none'; style-src 'unsafe-inline'; script-src 'none'; img-src 'self' data:; form-action 'self' ${target}; frame-ancestors 'none'; base-uri 'none'`
      })
    }

    /**
     * A request checked against its client: a page for what cannot be redirected, a redirect for
     * the rest, but only for someone signed in. Registration is open, so a client and its redirect
     * URI prove nothing: redirecting a stranger's malformed request would make this service an
     * open redirect to any registered URI (RFC 9700 4.11.2; issue 28).
     */
    const validated = (params: Params, request: Request, signedIn: boolean) =>
      oauth.authorization(params, issuer(request)).pipe(
        Effect.map(Either.right),
        Effect.catchTags({
          UntrustedRedirect: ({ message }) => Effect.succeed(Either.left(errorPage(message))),
          RedirectedError: ({ location }) =>
            Effect.succeed(Either.left(
              signedIn
                ? HttpServerResponse.redirect(location, { status: 302 })
                : errorPage(`The application's request is malformed: ${new URL(location).searchParams.get("error_description") ?? "invalid request"}.`)
            ))
        })
      )

    /** M4: sign in first (the login page comes back here), then the consent page. */
    const authorizePage = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const query = yield* HttpServerRequest.ParsedSearchParams
      const session = yield* sessionOf(sessions, request, config)
      const checked = yield* validated(query, request, Option.isSome(session))
      if (Either.isLeft(checked)) return checked.left
      if (Option.isNone(session)) {
        const url = new URL(request.url, base(request))
        const next = `${url.pathname}${url.search}`
        if (next.length > maxNextLength) return errorPage("The authorization request is too long.")
        return HttpServerResponse.redirect(`/login?next=${encodeURIComponent(next)}`, { status: 302, headers: { "cache-control": "no-store" } })
      }
      const account = yield* oauth.account(session.value.accountId)
      if (Option.isNone(account)) return errorPage("The signed-in account no longer exists.")
      return consent(checked.right, { email: account.value.email, apiAccess: account.value.api_access })
    })

    /** The consent form, decided: a code (Allow) or `access_denied` (Deny), sent to the redirect URI. */
    const decide = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      // S1: a decision only from this service's own page.
      const crossSite = crossSiteRefusal(request, config)
      if (crossSite !== undefined) return errorPage(crossSite, 403)
      const form = yield* bodyParams(request)
      if (Either.isLeft(form)) return errorPage("The consent form was malformed.")
      const session = yield* sessionOf(sessions, request, config)
      const checked = yield* validated(form.right, request, Option.isSome(session))
      if (Either.isLeft(checked)) return checked.left
      if (Option.isNone(session)) return errorPage("Your session ended: go back to the application and connect again.", 401)
      const location = form.right["decision"] === "allow"
        ? yield* oauth.approve(checked.right, session.value.accountId)
        : oauth.deny(checked.right)
      return seeOther(location)
    })

    const token = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const params = yield* bodyParams(request)
      if (Either.isLeft(params)) return oauthError(params.left)
      return yield* oauth.token(params.right).pipe(Effect.match({ onFailure: oauthError, onSuccess: (answer) => json(200, answer) }))
    })

    const register = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const body = parseJson(yield* Effect.orDie(request.text))
      return yield* oauth.register(Either.getOrUndefined(body), clientAddress(request, config)).pipe(
        Effect.match({ onFailure: oauthError, onSuccess: (client) => json(201, client) })
      )
    })

    const revoke = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const params = yield* bodyParams(request)
      if (Either.isLeft(params)) return oauthError(params.left)
      return yield* oauth.revoke(params.right).pipe(
        Effect.match({ onFailure: oauthError, onSuccess: () => HttpServerResponse.empty({ status: 200, headers: noStore }) })
      )
    })

    yield* router.get(paths.protectedResource, resourceMetadata)
    yield* router.get(paths.authorizationServer, serverMetadata)
    yield* router.get(paths.authorizationServerRoot, serverMetadata)
    yield* router.get(paths.authorize, authorizePage)
    yield* router.post(paths.authorize, decide)
    yield* router.post(paths.token, token)
    yield* router.post(paths.register, register)
    yield* router.post(paths.revoke, revoke)
  })
)

/** Disconnecting from the key page (Api.ts). */
export const McpClientsLive = serveGroup(OAuthContract, "mcpClients", (handlers) =>
  Effect.map(OAuth, (oauth) =>
    handlers.handle("disconnect", ({ payload, request }) =>
      Effect.gen(function*() {
        const caller = yield* Caller
        // Another account's connection is as unknown as a made-up id.
        if (!(yield* oauth.disconnect(caller.accountId, payload.id))) return yield* Effect.fail(new NotFound({ error: "MCP client not found" }))
        const fromForm = request.headers["content-type"]?.startsWith("application/x-www-form-urlencoded") ?? false
        return fromForm ? seeOther("/api") : { success: true as const }
      }))))

/** The key page's list of connected clients, from the OAuth server. */
export const ConnectedClientsLive = Layer.effect(
  ConnectedClients,
  Effect.map(OAuth, (oauth) =>
    ConnectedClients.of({
      list: (accountId) =>
        Effect.map(oauth.connections(accountId), (rows) =>
          rows.map((row) => ({
            id: row.id,
            name: row.client_name,
            redirectHosts: [...new Set(row.redirect_uris.map(hostOf))],
            connectedAt: row.created_at,
            refreshedAt: row.refreshed_at
          })))
    }))
)
