import { HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import type { CallerInfo } from "../gateway/Api.js"
import { secureSessionCookieName, sessionCookieName } from "./Api.js"
import { Sessions } from "./Sessions.js"
import { AppConfig } from "../../platform/AppConfig.js"
import { isLoopbackHttp, type Reach } from "../../platform/Forwarded.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/**
 * The session cookie (issue 28): `__Host-adintel_session`, Secure, so no other site or subdomain
 * can set or shadow it; plain `adintel_session` only where the service is reached over plain http
 * on this machine (a developer's `npm start`), where a Secure cookie may not be kept. A request
 * is read by the same rule, so a cookie without the prefix is never taken over https.
 */
export const sessionCookie = (request: HttpServerRequest.HttpServerRequest, reach: Reach) =>
  isLoopbackHttp(request, reach) ? { name: sessionCookieName, secure: false } : { name: secureSessionCookieName, secure: true }

/** The session token the request's cookie carries, if any. */
export const tokenOf = (request: HttpServerRequest.HttpServerRequest, reach: Reach) =>
  Option.fromNullable(request.cookies[sessionCookie(request, reach).name]).pipe(Option.filter((t) => t.length > 0))

/** The live session the request's cookie names, if any (its idle clock restarts). */
export const sessionOf = (sessions: Sessions, request: HttpServerRequest.HttpServerRequest, reach: Reach) =>
  Option.match(tokenOf(request, reach), {
    onNone: () => Effect.succeedNone,
    onSome: (token) => Effect.map(sessions.authenticate(token), Option.map((accountId) => ({ accountId, token })))
  })

/**
 * "Who is logged in" for session-only routes (spec: "a logged-in browser session is required;
 * a key alone is not enough"; INTERPRETATIONS S6): a call on a legacy path came through the
 * session already; a keyed call also needs the cookie of a live session of the key's account.
 */
export class SignedIn extends Effect.Service<SignedIn>()("adintel/SignedIn", {
  effect: Effect.gen(function*() {
    const sessions = yield* Sessions
    const reach = yield* AppConfig
    return {
      caller: Effect.fn("SignedIn.caller", serviceSpan)((caller: CallerInfo): Effect.Effect<boolean, never, HttpServerRequest.HttpServerRequest> =>
        caller.chargeId === null
          ? Effect.succeed(true)
          : Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
            Effect.map(sessionOf(sessions, request, reach), Option.exists((session) => session.accountId === caller.accountId))))
    }
  }),
  dependencies: [Sessions.Default]
}) {}
