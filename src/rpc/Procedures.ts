import { Rpc, RpcGroup, RpcMiddleware } from "@effect/rpc"
import { Context, Schema } from "effect"
import { CreditsApi } from "../access/credits/Api.js"
import { Caller, CreditsExhausted, PlanRequired, RateLimited, TooManyInFlight, Unauthorized } from "../access/gateway/Api.js"
import { InternalServerError } from "../kernel/Errors.js"
import { OutboxEvent } from "../access/events/OutboxEvent.js"
import { BrandInsightsApi } from "../ads/brandInsights/Api.js"
import { LandersApi } from "../ads/landers/Api.js"
import { AdLibraryApi, AdsApi, AdView, MagicAiApi } from "../ads/library/Api.js"
import { GatewayFailure, procedure } from "./Procedure.js"

/**
 * The `@effect/rpc` surface (issue 32; H4): the research procedures, each one line projecting a
 * route of the contract (Procedure.ts), and the two streams a REST route cannot be: a search's
 * every match (`ExportSearch`) and the account's events (`Events`). Contract only: the typed
 * client (`adintel/rpc`) imports this file, the server serves it (RpcLive.ts).
 */

/**
 * Every procedure is one metered call (G1-G6): the key (`X-API-Key` or `Authorization: Bearer`),
 * the plan, a slot of the rate window, a credit and a slot of the account's calls in flight,
 * taken by this middleware for the call's length and settled by how it ended (G4; the server's
 * `CallCharge`, as REST's `Metered` and MCP's tool calls take it). It provides the `Caller`.
 */
export class MeteredRpc extends RpcMiddleware.Tag<MeteredRpc>()("adintel/MeteredRpc", {
  provides: Caller,
  failure: Schema.Union(Unauthorized, PlanRequired, RateLimited, CreditsExhausted, TooManyInFlight, InternalServerError),
  wrap: true
}) {}

/**
 * A stream that waits more than it reads (`Events`): it holds no slot of the calls in flight
 * but one of the account's open streams (`MAX_STREAMS_PER_ACCOUNT`), and its credit is kept
 * once it is open, whatever it yields later.
 */
export class OpenEnded extends Context.Tag("adintel/rpc/OpenEnded")<OpenEnded, boolean>() {}

/** The libraries an export names, as saved searches name them (H1). */
export const ExportLibrary = Schema.Literal("social", "pinboard", "short-video", "search")
export type ExportLibrary = typeof ExportLibrary.Type

/** A search's filters as its query string spells them (`{ q: "shoes", country: ["US", "GB"] }`), checked as that search checks them. */
export const QueryForm = Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Array(Schema.String)) })

/** One page of an export: its number (from 1) and up to 100 ads, as the search shows them. */
export const ExportPage = Schema.Struct({ page: Schema.Int, data: Schema.Array(AdView) })
export type ExportPage = typeof ExportPage.Type

/**
 * Every match of a library's search, a page of 100 at a time, up to the export's per-call
 * maximum: one credit per page sent (the first is the call's own). Ends with `CreditsExhausted`
 * when the credits run out; a client that goes away is charged nothing more.
 */
export const ExportSearch = Rpc.make("ExportSearch", {
  payload: Schema.Struct({ library: ExportLibrary, filters: Schema.optionalWith(QueryForm, { default: () => ({}) }) }),
  success: ExportPage,
  error: GatewayFailure,
  stream: true
})

/** An event of the account's outbox (H3), with its position: send it as `after_seq` to resume. */
export const StreamedEvent = Schema.extend(Schema.Struct({ seq: Schema.Number }), OutboxEvent)
export type StreamedEvent = typeof StreamedEvent.Type

/**
 * The account's events as webhooks receive them, for a client that keeps a connection: those
 * after `after_seq`, or from now on without it. One credit to open; what it yields is free.
 */
export const Events = Rpc.make("Events", {
  payload: Schema.Struct({ after_seq: Schema.optional(Schema.NonNegativeInt) }),
  success: StreamedEvent,
  error: GatewayFailure,
  stream: true
}).annotate(OpenEnded, true)

/** The procedures that project a route of the contract, one line each (Procedure.ts). */
export const projectedProcedures = [
  procedure("SearchSocialAds", AdLibraryApi, "social"),
  procedure("SearchPinboardAds", AdsApi, "pinboard"),
  procedure("SearchShortVideoAds", AdsApi, "clipapp"),
  procedure("SearchSearchEngineAds", AdsApi, "search"),
  procedure("GetShortVideoAd", AdsApi, "clipappAd"),
  procedure("FindSimilarAds", MagicAiApi, "similar"),
  procedure("BrandOverviewCards", BrandInsightsApi, "overviewCards"),
  procedure("BrandAdCopies", BrandInsightsApi, "adCopies"),
  procedure("BrandLandingPages", BrandInsightsApi, "landingPages"),
  procedure("BrandLaunchCadence", BrandInsightsApi, "launchCadence"),
  procedure("BrandNewThisWeek", BrandInsightsApi, "newThisWeek"),
  procedure("BrandVideoLengths", BrandInsightsApi, "videoLengths"),
  procedure("ExploreLanders", LandersApi, "explore"),
  procedure("Credits", CreditsApi, "balance")
] as const

export const AdIntelRpcs = RpcGroup.make(...projectedProcedures, ExportSearch, Events).middleware(MeteredRpc)
export type AdIntelRpcs = RpcGroup.Rpcs<typeof AdIntelRpcs>
