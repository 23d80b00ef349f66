import { HttpApiGroup, HttpApiMiddleware, OpenApi } from "@effect/platform"
import { Context, Schema } from "effect"
import { ApiError, envelope, fixed } from "../../kernel/Envelope.js"
import { InternalServerErrorBody } from "../../kernel/Errors.js"
import type { AccountId, KeyId } from "../../kernel/Ids.js"
import { Choice } from "../../kernel/Params.js"

/**
 * The metered gateway's contract (spec: Authentication, Errors, Limits; INTERPRETATIONS G1-G13):
 * the `Metered` middleware every programmatic route group carries, what it gives handlers
 * (`Caller`), and the failures it answers with. No runtime beyond tags and schemas.
 */

export const planNames = ["free", "basic", "pro", "premium"] as const
export const PlanName = Choice(...planNames)
export type PlanName = typeof PlanName.Type
/** A plan as messages name it (`Basic`). */
export const planTitle = (plan: PlanName) => plan.charAt(0).toUpperCase() + plan.slice(1)

/** spec: Resources, "Credit balance (`credits` object)". */
export const CreditBalance = Schema.Struct({
  used: Schema.Int,
  limit: Schema.Int,
  remaining: Schema.Int,
  addon_remaining: Schema.Int,
  total_remaining: Schema.Int
})
export type CreditBalance = typeof CreditBalance.Type

/** spec: Errors, 401 row. */
export class Unauthorized extends ApiError<Unauthorized>()("Unauthorized", {
  error: fixed("Unauthorized")
}, { status: 401 }) {}
export const UnauthorizedBody = envelope(Unauthorized)

/** spec: Errors, 403 plan row; INTERPRETATIONS G12. */
export class PlanRequired extends ApiError<PlanRequired>()("PlanRequired", {
  error: Schema.String
}, { status: 403 }) {
  static readonly forService = (serviceName: string) =>
    new PlanRequired({ error: `${serviceName} Basic plan or higher required` })
}
export const PlanRequiredBody = envelope(PlanRequired)

/** spec: Errors, "Two kinds of 429", 1. No `credits`: that is how clients tell the two apart. */
export class RateLimited extends ApiError<RateLimited>()("RateLimited", {
  error: Schema.TemplateLiteral("Rate limit exceeded. Max ", Schema.Number, " requests per minute.")
}, { status: 429 }) {
  static readonly perMinute = (limit: number) =>
    new RateLimited({ error: `Rate limit exceeded. Max ${limit} requests per minute.` })
}
export const RateLimitedBody = envelope(RateLimited)

/** spec: Errors, "Two kinds of 429", 2. */
export class CreditsExhausted extends ApiError<CreditsExhausted>()("CreditsExhausted", {
  error: fixed("No API credits remaining. Buy an add-on pack or wait until next monthly reset."),
  credits: CreditBalance,
  purchase: Schema.Struct({ url: Schema.String })
}, { status: 429 }) {}
export const CreditsExhaustedBody = envelope(CreditsExhausted)

/**
 * Fair use (issue 28, docs/SPEC-NOTES.md "Security model"): more of one account's calls in flight
 * at once than `MAX_CALLS_IN_FLIGHT`, after waiting `IN_FLIGHT_WAIT` for one to end. Its own
 * message: neither the rate limit's nor the credits' (spec: Errors, "Two kinds of 429"). The call
 * never ran: its credit is given back.
 */
export class TooManyInFlight extends ApiError<TooManyInFlight>()("TooManyInFlight", {
  error: Schema.TemplateLiteral("Too many requests in flight. Max ", Schema.Number, " at a time.")
}, { status: 429, keepsCredit: false }) {
  static readonly atMost = (max: number) => new TooManyInFlight({ error: `Too many requests in flight. Max ${max} at a time.` })
}
export const TooManyInFlightBody = envelope(TooManyInFlight)

/** The sliding rate window after a call (spec: INTERPRETATIONS G5). */
export interface RateWindow {
  readonly limit: number
  readonly remaining: number
  /** Seconds until the oldest request in the window leaves it and a slot frees. */
  readonly resetSeconds: number
}

/** Daily short-video searches (G7). `limit` null: unlimited. */
export interface DailySearchQuota {
  readonly used: number
  readonly limit: number | null
  readonly resetsAt: Date
}

/** Monthly script generations (G8); `resetsAt` null until the first generation of a period. */
export interface ScriptQuota {
  readonly used: number
  readonly limit: number
  readonly resetsAt: Date | null
}

/**
 * Who is calling, and the state of their meters: right after this call's own charge (G2) on
 * the key side, as they stand on the session side (legacy dashboard paths, S4).
 */
export interface CallerInfo {
  readonly accountId: AccountId
  readonly plan: PlanName
  readonly credits: CreditBalance
  readonly dailySearch: DailySearchQuota
  readonly scripts: ScriptQuota
  /** This call's programmatic charge, refunded if the handler dies (G4); null on the session side. */
  readonly chargeId: string | null
}

/** What the gateway admits a keyed call with. */
export interface Admission extends CallerInfo {
  readonly keyId: KeyId
  readonly chargeId: string
  readonly rate: RateWindow
}

export class Caller extends Context.Tag("adintel/Caller")<Caller, CallerInfo>() {}

/**
 * Authenticates the key, checks the plan, takes a rate-window slot and charges one credit
 * (G1 steps 1-4), then provides `Caller`. Handlers of a metered group are built with
 * `serveGroup` (access/gateway/Http.ts) so the charge is refunded when they die or are interrupted.
 */
export class Metered extends HttpApiMiddleware.Tag<Metered>()("adintel/Metered", {
  failure: Schema.Union(UnauthorizedBody, PlanRequiredBody, RateLimitedBody, CreditsExhaustedBody, TooManyInFlightBody, InternalServerErrorBody),
  provides: Caller
}) {}

/**
 * The three places a key may be sent, as OpenAPI security schemes (spec: Authentication).
 * Declared for documentation only: `HttpApiSecurity` middleware would try the schemes in turn
 * and keep the last failure, which breaks "the first non-empty value wins".
 */
export const keySchemes = {
  ApiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key", description: "Your API key (from the key page, `/api`). The preferred place." },
  BearerKey: { type: "http", scheme: "bearer", description: "`Authorization: Bearer <API_KEY>`; other schemes are ignored." },
  ApiKeyQuery: { type: "apiKey", in: "query", name: "api_key", description: "Fallback only: values end up in URLs." }
} as const

/** The key schemes as an OpenAPI security requirement: any one of them. */
export const keySecurity = Object.keys(keySchemes).map((name) => ({ [name]: [] }))

/** Puts a group behind the gateway: the middleware, its failures, and the key schemes in OpenAPI. */
export const metered = <
  Id extends string,
  Endpoints extends import("@effect/platform").HttpApiEndpoint.HttpApiEndpoint.Any,
  E,
  R,
  TopLevel extends boolean
>(group: HttpApiGroup.HttpApiGroup<Id, Endpoints, E, R, TopLevel>) =>
  group
    .middleware(Metered)
    .annotateEndpoints(OpenApi.Transform, (operation) => ({ ...operation, security: keySecurity }))

/**
 * Registers the key schemes once for the whole document (used by the API's own annotation).
 * (`any`: `OpenApi.Transform` types the document as `Record<string, any>`.)
 */
export const withKeySchemes = (spec: Record<string, any>): Record<string, any> => ({
  ...spec,
  components: { ...spec.components, securitySchemes: { ...spec.components?.securitySchemes, ...keySchemes } }
})
