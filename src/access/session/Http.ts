import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { SessionContract } from "./Api.js"
import { AppConfig, type AppSettings } from "../../platform/AppConfig.js"
import { baseUrl, clientAddress } from "../../platform/Forwarded.js"
import { crossSiteRefusal, page, seeOther } from "../../platform/Pages.js"
import { Caller, Unauthorized } from "../gateway/Api.js"
import { CrossSiteRequest, SessionAuth } from "./Api.js"
import { ConnectedClients } from "./ConnectedClients.js"
import { keyPage, loginPage } from "./Pages.js"
import { Sessions } from "./Sessions.js"
import { sessionCookie, sessionOf, tokenOf } from "./SignedIn.js"
import { retryLater, serveGroup, withRateHeaders } from "../gateway/Http.js"
import { Gateway } from "../gateway/Gateway.js"
import { InFlight } from "../gateway/InFlight.js"
import { accountHash, noteRequest } from "../../platform/telemetry/Tracing.js"

type Request = HttpServerRequest.HttpServerRequest

/** S1: a state-changing session request must come from this service's own pages. */
const sameOrigin = (request: Request, config: AppSettings) => {
  const refusal = crossSiteRefusal(request, config)
  return refusal === undefined ? Effect.void : Effect.fail(new CrossSiteRequest({ error: refusal }))
}

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"])

export const SessionAuthLive = Layer.effect(
  SessionAuth,
  Effect.gen(function*() {
    const sessions = yield* Sessions
    const config = yield* AppConfig
    const gateway = yield* Gateway
    const inFlight = yield* InFlight
    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const session = yield* sessionOf(sessions, request, config)
      if (Option.isNone(session)) return yield* Effect.fail(new Unauthorized())
      // A cookie rides along with any site's request: only reads may come from elsewhere.
      if (!safeMethods.has(request.method)) yield* sameOrigin(request, config)
      const accountId = session.value.accountId
      yield* noteRequest((facts) => {
        facts.account = accountHash(accountId)
      })
      // Fair use (issue 28): session calls take the account's rate window and its calls in
      // flight as keyed calls do; only a refusal says so in headers.
      yield* gateway.rateSlot(accountId).pipe(
        Effect.catchTag("WindowFull", ({ error, rate }) =>
          Effect.zipRight(
            HttpApp.appendPreResponseHandler((_, response) => Effect.succeed(withRateHeaders(response, rate, true))),
            Effect.fail(error)
          ))
      )
      yield* inFlight.take(accountId).pipe(Effect.tapError(() => retryLater))
      return yield* sessions.caller(accountId)
    })
  })
)

export const SessionLive = serveGroup(SessionContract, "session", (handlers) =>
  Effect.gen(function*() {
    const sessions = yield* Sessions
    const config = yield* AppConfig
    const signedIn = (request: Request) => sessionOf(sessions, request, config)
    const connectedClients = yield* Effect.serviceOption(ConnectedClients)

    return handlers
      .handle("loginPage", ({ request, urlParams }) =>
        Effect.map(signedIn(request), (session) =>
          Option.isSome(session) ? seeOther(urlParams.next ?? "/api") : page((nonce) => loginPage({ nonce, next: urlParams.next }))))
      .handle("login", ({ payload, request }) =>
        Effect.gen(function*() {
          yield* sameOrigin(request, config)
          const form = (error: string) => (nonce: string) => loginPage({ nonce, next: payload.next, email: payload.email, error })
          return yield* sessions.signIn({ email: payload.email, password: payload.password, address: clientAddress(request, config) }).pipe(
            Effect.map((session) =>
              HttpServerResponse.unsafeSetCookie(seeOther(payload.next ?? "/api"), sessionCookie(request, config).name, session.token, {
                httpOnly: true,
                sameSite: "lax",
                secure: sessionCookie(request, config).secure,
                path: "/",
                // Relative, so a browser whose clock is off keeps it as long as the server does.
                maxAge: config.sessionMaxAge
              })
            ),
            Effect.catchTags({
              BadCredentials: () => Effect.succeed(page(form("Wrong e-mail or password."), 401)),
              SignInLocked: ({ retryAfterSeconds }) =>
                Effect.succeed(page(
                  form(`Too many failed sign-ins. Try again in ${Math.ceil(retryAfterSeconds / 60)} minute(s).`),
                  429,
                  { "retry-after": String(retryAfterSeconds) }
                ))
            })
          )
        }))
      .handle("logout", ({ request }) =>
        Effect.gen(function*() {
          yield* sameOrigin(request, config)
          yield* Option.match(tokenOf(request, config), { onNone: () => Effect.void, onSome: sessions.signOut })
          const cookie = sessionCookie(request, config)
          return HttpServerResponse.expireCookie(seeOther("/login"), cookie.name, { path: "/", secure: cookie.secure })
        }))
      .handle("keyPage", ({ request }) =>
        Effect.gen(function*() {
          const session = yield* signedIn(request)
          // S2: no session, the sign-in page, coming back here afterwards.
          if (Option.isNone(session)) return HttpServerResponse.redirect("/login?next=%2Fapi", { status: 302 })
          const data = yield* sessions.keyPage(session.value.accountId, session.value.token)
          const connected = Option.isSome(connectedClients) ? yield* connectedClients.value.list(session.value.accountId) : undefined
          return page((nonce) => keyPage(data, { nonce, baseUrl: baseUrl(request, config), connected }))
        }))
      .handle("regenerate", ({ request }) =>
        Effect.gen(function*() {
          yield* sameOrigin(request, config)
          const caller = yield* Caller
          const key = yield* sessions.regenerate(caller.accountId, tokenOf(request, config), clientAddress(request, config))
          // A form post from the key page goes back to it, which shows the new key once.
          const fromForm = request.headers["content-type"]?.startsWith("application/x-www-form-urlencoded") ?? false
          return fromForm ? seeOther("/api") : { success: true as const, api_key: key }
        }))
      .handle("usage", () => Effect.flatMap(Caller, (caller) => sessions.usage(caller.accountId)))
      .handle("logs", ({ urlParams }) => Effect.flatMap(Caller, (caller) => sessions.logs(caller.accountId, urlParams)))
  }))
