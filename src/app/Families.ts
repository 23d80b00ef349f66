import { Layer } from "effect"
import type { AnyContract } from "../kernel/Contract.js"
import { Accounts } from "../access/accounts/Accounts.js"
import { AdminContract } from "../access/accounts/Api.js"
import { AdminLive } from "../access/accounts/Http.js"
import { CreditsContract } from "../access/credits/Api.js"
import { CreditsLive } from "../access/credits/Http.js"
import { OAuthContract } from "../access/oauth/Api.js"
import { ConnectedClientsLive, McpClientsLive, OAuthRoutesLive } from "../access/oauth/Http.js"
import { OAuth } from "../access/oauth/OAuth.js"
import { SessionContract } from "../access/session/Api.js"
import { SessionLive } from "../access/session/Http.js"
import { Sessions } from "../access/session/Sessions.js"
import { BrandInsightsContract } from "../ads/brandInsights/Api.js"
import { BrandInsights } from "../ads/brandInsights/BrandInsights.js"
import { BrandInsightsLive } from "../ads/brandInsights/Http.js"
import { BrandTrackerContract } from "../ads/brands/Api.js"
import { BrandTracker } from "../ads/brands/BrandTracker.js"
import { BrandTrackerLive } from "../ads/brands/Http.js"
import { LandersContract } from "../ads/landers/Api.js"
import { LandersLive } from "../ads/landers/Http.js"
import { Landers } from "../ads/landers/Landers.js"
import { AdSearch } from "../ads/library/AdSearch.js"
import { AdSimilarity } from "../ads/library/AdSimilarity.js"
import { AdLibraryContract, MagicAiContract } from "../ads/library/Api.js"
import { AdLibraryLive, AdsLive, MagicAiLive } from "../ads/library/Http.js"
import { AdExportContract } from "../ads/export/Api.js"
import { AdExport } from "../ads/export/AdExport.js"
import { AdLibraryExportLive, AdsExportLive } from "../ads/export/Http.js"
import { RpcLive } from "../rpc/RpcLive.js"
import { AccountEvents } from "../access/events/AccountEvents.js"
import { SavedAdsContract } from "../ads/savedAds/Api.js"
import { SavedAdsLive } from "../ads/savedAds/Http.js"
import { SavedSearchesContract } from "../ads/savedSearches/Api.js"
import { SavedSearchesLive } from "../ads/savedSearches/Http.js"
import { SavedSearches } from "../ads/savedSearches/SavedSearches.js"
import { StoreAdsContract } from "../ads/storeAds/Api.js"
import { StoreAdsLive } from "../ads/storeAds/Http.js"
import { StoreAds } from "../ads/storeAds/StoreAds.js"
import { TrendsContract } from "../ads/trends/Api.js"
import { TrendsLive } from "../ads/trends/Http.js"
import { TrendCounts } from "../ads/trends/TrendCounts.js"
import { Trends } from "../ads/trends/Trends.js"
import { WorkspaceContract } from "../ads/workspace/Api.js"
import { ShareLive, WorkspaceLive } from "../ads/workspace/Http.js"
import { ShareLinks } from "../ads/workspace/ShareLinks.js"
import { Workspace } from "../ads/workspace/Workspace.js"
import { IngestContract } from "../ingest/Api.js"
import { CatalogAdminLive } from "../ingest/Http.js"
import { Ingest } from "../ingest/Ingest.js"
import { McpLive } from "../mcp/Http.js"
import { Mcp } from "../mcp/Mcp.js"
import { AccountAlerts } from "../notifications/alerts/AccountAlerts.js"
import { DigestPrefsContract } from "../notifications/digest/Api.js"
import { DigestPreferences } from "../notifications/digest/DigestPreferences.js"
import { Digests } from "../notifications/digest/Digests.js"
import { DigestPrefsLive } from "../notifications/digest/Http.js"
import { NotificationsContract } from "../notifications/inbox/Api.js"
import { NotificationsLive } from "../notifications/inbox/Http.js"
import { Inbox } from "../notifications/inbox/Inbox.js"
import { WebhooksContract } from "../notifications/webhooks/Api.js"
import { Deliveries } from "../notifications/webhooks/Deliveries.js"
import { WebhooksLive } from "../notifications/webhooks/Http.js"
import { Webhooks } from "../notifications/webhooks/Webhooks.js"
import { ShopAccountContract } from "../shop/account/Api.js"
import { ShopLive } from "../shop/account/Http.js"
import { SearchQuota } from "../shop/account/SearchQuota.js"
import { ShopCountry } from "../shop/account/ShopCountry.js"
import { ShopDetailContract } from "../shop/detail/Api.js"
import { ShopDetailLive, ShopProductDetailLive } from "../shop/detail/Http.js"
import { ShopDetail } from "../shop/detail/ShopDetail.js"
import { ShopExploreContract } from "../shop/explore/Api.js"
import { ShopExploreLive } from "../shop/explore/Http.js"
import { ShopExplore } from "../shop/explore/ShopExplore.js"
import { ShopFavoritesContract } from "../shop/favorites/Api.js"
import { ShopFavoritesLive } from "../shop/favorites/Http.js"
import { ShopFavorites } from "../shop/favorites/ShopFavorites.js"
import { ShopPresetsContract } from "../shop/presets/Api.js"
import { ShopPresetsLive } from "../shop/presets/Http.js"
import { ShopPresets } from "../shop/presets/ShopPresets.js"
import { ShopSearchContract } from "../shop/search/Api.js"
import { ShopSearchLive } from "../shop/search/Http.js"
import { ShopRollups } from "../shop/search/ShopRollups.js"
import { ShopSearch } from "../shop/search/ShopSearch.js"
import { StoreExplorerContract } from "../stores/explorer/Api.js"
import { StoreExplorerLive } from "../stores/explorer/Http.js"
import { StoreExplorer } from "../stores/explorer/StoreExplorer.js"
import { StoreMediaContract } from "../stores/media/Api.js"
import { StoreMediaLive } from "../stores/media/Http.js"
import { StoreMedia } from "../stores/media/StoreMedia.js"
import { StoreTrackerContract } from "../stores/tracker/Api.js"
import { StoreTrackerLive } from "../stores/tracker/Http.js"
import { StoreTracker } from "../stores/tracker/StoreTracker.js"
import { StoreVisualSearchContract } from "../stores/visual/Api.js"
import { StoreVisualSearchLive } from "../stores/visual/Http.js"
import { VisualSearch } from "../stores/visual/VisualSearch.js"
import { SystemContract } from "../system/Api.js"
import { SystemAdminLive, SystemLive } from "../system/Http.js"
import { Readiness } from "../system/Readiness.js"
import { TranscriptsContract } from "../transcripts/Api.js"
import { AdTranscriptsLive, VideoTranscriptsLive } from "../transcripts/Http.js"

/** What the server serves for one part of the contract. */
export interface Family<Handlers extends Layer.Layer.Any, Services extends Layer.Layer.Any> {
  /** The part (`app/Api.ts` composes the parts into `AdIntelApi`). */
  readonly contract: AnyContract
  /** The layers that serve its groups (`serveGroup`), and any route of the router it adds. */
  readonly handlers: ReadonlyArray<Handlers>
  /** The services its handlers use; each brings its own `dependencies`. */
  readonly services: ReadonlyArray<Services>
}

const family = <Handlers extends Layer.Layer.Any, Services extends Layer.Layer.Any = never>(
  contract: AnyContract,
  handlers: ReadonlyArray<Handlers>,
  services: ReadonlyArray<Services> = []
): Family<Handlers, Services> => ({ contract, handlers, services })

/**
 * The one list of what the server serves: a line per part of the contract, with the layers that
 * serve it and the services they use. `Server.ts` derives from it the handlers of `ApiLive` and
 * `ServicesLive`; `app/Api.ts` lists the part itself (the contract carries no runtime: the typed
 * client imports it). A part without its line here leaves `ApiLive` with a group unserved, which
 * does not compile; `test/routes.test.ts` checks every group belongs to one line.
 */
export const families = [
  family(SystemContract, [SystemLive, SystemAdminLive], [Readiness.Default]),
  family(CreditsContract, [CreditsLive]),
  family(AdLibraryContract, [AdLibraryLive, AdsLive], [AdSearch.Default]),
  family(StoreAdsContract, [StoreAdsLive], [StoreAds.Default]),
  family(BrandInsightsContract, [BrandInsightsLive], [BrandInsights.Default]),
  family(MagicAiContract, [MagicAiLive], [AdSimilarity.layerConfig]),
  family(ShopAccountContract, [ShopLive], [SearchQuota.Default, ShopCountry.Default]),
  family(ShopExploreContract, [ShopExploreLive], [ShopExplore.Default]),
  family(ShopSearchContract, [ShopSearchLive], [ShopSearch.Default, ShopRollups.Default]),
  family(ShopDetailContract, [ShopDetailLive, ShopProductDetailLive], [ShopDetail.Default]),
  family(ShopFavoritesContract, [ShopFavoritesLive], [ShopFavorites.Default]),
  family(ShopPresetsContract, [ShopPresetsLive], [ShopPresets.Default]),
  family(TranscriptsContract, [VideoTranscriptsLive, AdTranscriptsLive]),
  family(SessionContract, [SessionLive], [Sessions.Default]),
  family(OAuthContract, [McpLive, OAuthRoutesLive, McpClientsLive], [
    OAuth.Default,
    Mcp.Default,
    ConnectedClientsLive.pipe(Layer.provide(OAuth.Default))
  ]),
  family(AdminContract, [AdminLive], [Accounts.Default]),
  family(IngestContract, [CatalogAdminLive], [Ingest.Default]),
  family(WorkspaceContract, [WorkspaceLive, ShareLive], [Workspace.Default, ShareLinks.Default]),
  family(SavedAdsContract, [SavedAdsLive]),
  family(SavedSearchesContract, [SavedSearchesLive], [SavedSearches.Default]),
  family(StoreTrackerContract, [StoreTrackerLive], [StoreTracker.Default]),
  family(StoreExplorerContract, [StoreExplorerLive], [StoreExplorer.Default]),
  family(StoreVisualSearchContract, [StoreVisualSearchLive], [VisualSearch.Default]),
  family(StoreMediaContract, [StoreMediaLive], [StoreMedia.Default]),
  family(BrandTrackerContract, [BrandTrackerLive], [BrandTracker.Default]),
  family(NotificationsContract, [NotificationsLive], [Inbox.Default, AccountAlerts.Default]),
  family(DigestPrefsContract, [DigestPrefsLive], [DigestPreferences.Default, Digests.Default]),
  family(WebhooksContract, [WebhooksLive], [Webhooks.Default, Deliveries.Default]),
  family(LandersContract, [LandersLive], [Landers.Default]),
  family(TrendsContract, [TrendsLive], [Trends.Default, TrendCounts.Default]),
  // `/rpc` (H4) beside the bulk export: both stream the same pages; its other procedures run the routes' handlers.
  family(AdExportContract, [AdLibraryExportLive, AdsExportLive, RpcLive], [AdExport.Default, AccountEvents.Default])
] as const

type Families = (typeof families)[number]

/** What any of a union of layers provides, fails with and needs (`Layer.Layer.Success` of a union is what all of them provide). */
type ProvidedBy<L> = L extends Layer.Layer<infer ROut, infer _E, infer _RIn> ? ROut : never
type FailureOf<L> = L extends Layer.Layer<infer _ROut, infer E, infer _RIn> ? E : never
type NeededBy<L> = L extends Layer.Layer<infer _ROut, infer _E, infer RIn> ? RIn : never

/**
 * The layers merged. (`as`: `Layer.mergeAll` types a list of mixed layers as providing what all
 * of them provide, which is `never`; a merge provides what each one provides.)
 */
const mergeEach = <L extends Layer.Layer<never, unknown, unknown>>(layers: ReadonlyArray<L>) =>
  Layer.mergeAll(Layer.empty, ...layers) as Layer.Layer<ProvidedBy<L>, FailureOf<L>, NeededBy<L>>

/** Every family's handler layers, merged. */
export const FamilyHandlersLive = mergeEach(families.flatMap<Families["handlers"][number]>((family) => family.handlers))

/** Every family's services, merged. */
export const FamilyServicesLive = mergeEach(families.flatMap<Families["services"][number]>((family) => family.services))
