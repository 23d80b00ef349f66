import { HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import type { CallerInfo } from "../gateway/Api.js"
import { sessionCookieName } from "./Api.js"
import { Sessions } from "./Sessions.js"

/** The session token the request's cookie carries, if any. */
export const tokenOf = (request: HttpServerRequest.HttpServerRequest) =>
  Option.fromNullable(request.cookies[sessionCookieName]).pipe(Option.filter((t) => t.length > 0))

/** The live session the request's cookie names, if any (its idle clock restarts). */
export const sessionOf = (sessions: Sessions, request: HttpServerRequest.HttpServerRequest) =>
  Option.match(tokenOf(request), {
    onNone: () => Effect.succeedNone,
    onSome: (token) => Effect.map(sessions.authenticate(token), Option.map((accountId) => ({ accountId, token })))
  })

/**
 * "Who is logged in" for session-only routes (spec: "a logged-in browser session is required;
 * a key alone is not enough"; INTERPRETATIONS S6): a call on a legacy path came through the
 * session already; a keyed call also needs the cookie of a live session of the key's account.
 */
export class SignedIn extends Effect.Service<SignedIn>()("adintel/SignedIn", {
  effect: Effect.map(Sessions, (sessions) => ({
    caller: (caller: CallerInfo): Effect.Effect<boolean, never, HttpServerRequest.HttpServerRequest> =>
      caller.chargeId === null
        ? Effect.succeed(true)
        : Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          Effect.map(sessionOf(sessions, request), Option.exists((session) => session.accountId === caller.accountId)))
  })),
  dependencies: [Sessions.Default]
}) {}
