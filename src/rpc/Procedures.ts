import { Rpc, RpcGroup } from "@effect/rpc"
import { Schema } from "effect"
import { CreditsApi } from "../access/credits/Api.js"
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
})

export const AdIntelRpcs = RpcGroup.make(
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
  procedure("Credits", CreditsApi, "balance"),
  ExportSearch,
  Events
)
export type AdIntelRpcs = RpcGroup.Rpcs<typeof AdIntelRpcs>
