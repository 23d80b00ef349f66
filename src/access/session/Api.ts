import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { DailySearchView, ScriptGenerationsView } from "../accounts/Api.js"
import { ApiError, envelope } from "../../kernel/Envelope.js"
import { Caller, CreditBalance, PlanName, PlanRequiredBody, RateLimitedBody, TooManyInFlightBody, UnauthorizedBody } from "../gateway/Api.js"
import { Day } from "../../kernel/Fields.js"
import { param } from "../../kernel/QueryParams.js"
import { contractPart } from "../../kernel/Contract.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, noTool } from "../../kernel/McpTool.js"

/**
 * The browser-session side (spec: Session helpers, Route kinds; INTERPRETATIONS S1, S2, S4):
 * sign-in pages, the API-key page, usage and logs. Pages answer HTML; every other route, and
 * every error of a JSON route, answers JSON (spec: Errors, rule 4).
 */

/** The session cookie: HttpOnly, SameSite=Lax, Secure over https. */
export const sessionCookieName = "adintel_session"
/** Its name wherever the service is not reached over plain http on this machine (SignedIn.ts `sessionCookie`). */
export const secureSessionCookieName = `__Host-${sessionCookieName}`

/** A state-changing session request whose Origin is not this service's (S1: CSRF). */
export class CrossSiteRequest extends ApiError<CrossSiteRequest>()("CrossSiteRequest", {
  error: Schema.String
}, { status: 403 }) {}
export const CrossSiteRequestBody = envelope(CrossSiteRequest)

/**
 * The browser session as authentication: provides `Caller` (meters as they stand, no charge)
 * to session JSON routes and to legacy dashboard paths (S4); 401 envelope without a session,
 * and 403 for a state-changing request from another site (S1), whatever the route.
 */
export class SessionAuth extends HttpApiMiddleware.Tag<SessionAuth>()("adintel/SessionAuth", {
  failure: Schema.Union(UnauthorizedBody, CrossSiteRequestBody, RateLimitedBody, TooManyInFlightBody),
  provides: Caller
}) {}
export type SessionAuthFailure = typeof UnauthorizedBody.Type | CrossSiteRequest | typeof RateLimitedBody.Type | typeof TooManyInFlightBody.Type

const Html = HttpApiSchema.Text({ contentType: "text/html" })

/**
 * What follows `/login`: a path of this service only (never another site: no open redirect). Long
 * enough for an OAuth authorization request to come back to (issue 21).
 */
export const maxNextLength = 2048
export const NextPath = Schema.String.pipe(
  Schema.maxLength(maxNextLength),
  Schema.pattern(/^\/(?![/\\])[^\s]*$/, { message: () => "must be a path of this service" })
)

export const LoginForm = Schema.Struct({
  email: Schema.String.pipe(Schema.maxLength(254)),
  password: Schema.String.pipe(Schema.maxLength(200)),
  next: Schema.optional(NextPath)
})
export type LoginForm = typeof LoginForm.Type

export const Regenerated = Schema.Struct({
  success: Schema.Literal(true),
  api_key: Schema.String
})

export const UsageResponse = Schema.Struct({
  success: Schema.Literal(true),
  plan: PlanName,
  credits: CreditBalance,
  period: Schema.Struct({ start: Schema.String, end: Schema.String }),
  daily_search: DailySearchView,
  script_generations: ScriptGenerationsView,
  /** Every day of the current period so far, oldest first, zero days included. */
  calls_per_day: Schema.Array(Schema.Struct({ day: Schema.String, calls: Schema.Int, refunded: Schema.Int })),
  /** Busiest first. */
  calls_per_route: Schema.Array(Schema.Struct({ route: Schema.String, calls: Schema.Int }))
})
export type UsageResponse = typeof UsageResponse.Type

/** How deep the logs may be paged (P2 pages are offsets: deeper pages cost more). */
export const maxLogOffset = 100_000

const QueryInt = (min: number, max: number, description: string) => param.int(min, max, description).query

/** P2 paging plus the filters of the logs page. */
export const LogsQuery = Schema.Struct({
  page: Schema.optional(QueryInt(1, 1_000_000, "Page number, from 1")),
  page_size: Schema.optional(QueryInt(1, 100, "Entries per page, 1 to 100")),
  /** An exact path (`/api/v1/credits`) or a prefix ending in `*` (`/api/v1/clipapp-shop/*`). */
  route: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(512))),
  status: Schema.optional(QueryInt(100, 599, "Only answers with this HTTP status")),
  /** UTC days, both included. */
  from: Schema.optional(Day),
  to: Schema.optional(Day)
})
export type LogsQuery = typeof LogsQuery.Type

export const LogEntry = Schema.Struct({
  id: Schema.String,
  method: Schema.String,
  route: Schema.String,
  status: Schema.NullOr(Schema.Int),
  latency_ms: Schema.NullOr(Schema.Int),
  charged_at: Schema.String,
  pool: Schema.Literal("monthly", "addon"),
  refunded: Schema.Boolean
})
export type LogEntry = typeof LogEntry.Type

export const LogsResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Array(LogEntry),
  total: Schema.Int,
  page: Schema.Int,
  page_size: Schema.Int
})
export type LogsResponse = typeof LogsResponse.Type

export class SessionApi extends HttpApiGroup.make("session").annotateContext(inProduct("Account and keys"))
  .annotate(McpTool, noTool("The browser side: sign-in, the key page and its forms"))
  .add(
    HttpApiEndpoint.get("loginPage", "/login")
      .setUrlParams(Schema.Struct({ next: Schema.optional(NextPath) }))
      .addSuccess(Html)
      .annotate(OpenApi.Summary, "Sign-in page (HTML)")
  )
  .add(
    HttpApiEndpoint.post("login", "/login")
      .setPayload(LoginForm.pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" })))
      .addSuccess(Html)
      .addError(CrossSiteRequestBody)
      .annotate(OpenApi.Summary, "Sign in (form post): sets the session cookie and redirects")
  )
  .add(
    HttpApiEndpoint.post("logout", "/logout")
      .addSuccess(Html)
      .addError(CrossSiteRequestBody)
      .annotate(OpenApi.Summary, "Sign out: ends the session and redirects to the sign-in page")
  )
  .add(
    HttpApiEndpoint.get("keyPage", "/api")
      .addSuccess(Html)
      .annotate(OpenApi.Summary, "The API-key page (HTML); redirects to the sign-in page without a session")
  )
  .add(
    HttpApiEndpoint.post("regenerate", "/api/regenerate")
      .addSuccess(Regenerated)
      .addError(PlanRequiredBody)
      .addError(CrossSiteRequestBody)
      .middleware(SessionAuth)
      .annotate(
        OpenApi.Summary,
        "Regenerate the API key: the old key is refused at once. A form post redirects to the key page, which shows the new key"
      )
  )
  .add(
    HttpApiEndpoint.get("usage", "/api/usage")
      .addSuccess(UsageResponse)
      .middleware(SessionAuth)
      .annotate(OpenApi.Summary, "Usage of the current period: credits, calls per day and per route, quotas")
  )
  .add(
    HttpApiEndpoint.get("logs", "/api/logs")
      .setUrlParams(LogsQuery)
      .addSuccess(LogsResponse)
      .middleware(SessionAuth)
      .annotate(OpenApi.Summary, "The account's request log, newest first, paginated and filterable")
  )
  .annotateEndpoints(OpenApi.Transform, (operation) => ({ ...operation, security: [{ SessionCookie: [] }] }))
{}

/** The browser side's part of the contract (kernel/Contract.ts). */
export class SessionContract extends contractPart().add(SessionApi) {}
