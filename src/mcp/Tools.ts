import { CreditsApi } from "../access/credits/Api.js"
import { AdLibraryApi, AdsApi, MagicAiApi } from "../ads/library/Api.js"
import { StoreAdsApi } from "../ads/storeAds/Api.js"
import { AdLibraryExportApi, AdsExportApi } from "../ads/export/Api.js"
import { ShopApi } from "../shop/account/Api.js"
import { ShopDetailApi, ShopProductDetailApi } from "../shop/detail/Api.js"
import { ShopExploreApi } from "../shop/explore/Api.js"
import { ShopSearchApi } from "../shop/search/Api.js"
import { AdTranscriptsApi, VideoTranscriptsApi } from "../transcripts/Api.js"
import { BrandInsightsApi, endpointOf } from "../ads/brandInsights/Api.js"
import { brandTabs, type TabName, tabNames } from "../ads/brandInsights/Tabs.js"
import { BrandTrackerApi } from "../ads/brands/Api.js"
import { LandersApi } from "../ads/landers/Api.js"
import { SavedAdsApi } from "../ads/savedAds/Api.js"
import { SavedSearchesApi } from "../ads/savedSearches/Api.js"
import { TrendsApi } from "../ads/trends/Api.js"
import { WorkspaceApi } from "../ads/workspace/Api.js"
import { DigestPrefsApi } from "../notifications/digest/Api.js"
import { NotificationsApi } from "../notifications/inbox/Api.js"
import { WebhooksApi } from "../notifications/webhooks/Api.js"
import { StoreExplorerApi } from "../stores/explorer/Api.js"
import { StoreTrackerApi } from "../stores/tracker/Api.js"
import { StoreVisualSearchApi } from "../stores/visual/Api.js"
import { AdminApi } from "../access/accounts/Api.js"
import { McpClientsApi } from "../access/oauth/Api.js"
import { SessionApi } from "../access/session/Api.js"
import { ShareApi } from "../ads/workspace/Api.js"
import { CatalogAdminApi } from "../ingest/Api.js"
import { unknownPathNames } from "../shop/account/Api.js"
import { ShopFavoritesApi } from "../shop/favorites/Api.js"
import { ShopPresetsApi } from "../shop/presets/Api.js"
import { StoreMediaApi } from "../stores/media/Api.js"
import { SystemAdminApi, SystemApi } from "../system/Api.js"
import { noTool, type NoToolDeclaration, tool, type ToolDeclaration } from "./Tool.js"

/**
 * The MCP tools, one per research capability (issue 21): each is a route of the contract and a
 * description for a language model. Adding a tool is one line here (see `Tool.ts`); its input
 * schema, output schema, metering and answer come from the route. The cost sentence is added to
 * every description from `alsoUses`.
 */

const adFilters =
  "Filters: q (full text, web-search syntax), advertiser_id, domain, status, format, country, language, platform, niche, cta, first/last seen dates, days running and engagement ranges; sort relevance (with q), newest, oldest, longest_running, most_engagement."
const paging =
  "Pages: limit 1-50 (default 20) on the first call; for the next page send only the scroll_token of the previous answer (it carries the filters)."
const shopPeriod = "Period metrics cover date_from..date_to (UTC days; default the 30 days up to yesterday) with growth against the period before."
const shopPages = "Pages: page (from 1) and page_size (1-100)."

const explore = (entity: "categories" | "shops" | "creators" | "videos" | "products", what: string) => ({
  explore: tool(ShopExploreApi, `${entity}ExplorePost`, {
    title: `Explore short-video shop ${entity}`,
    description:
      `Lists short-video shop ${entity} matching filters, with their period metrics (${what}). ${shopPeriod} Sort by a metric, its growth or a column (sort, order). ${shopPages} Use it to find and rank ${entity}; use the count tool when only the number matters.`,
    alsoUses: "a daily short-video search"
  }),
  count: tool(ShopExploreApi, `${entity}CountPost`, {
    title: `Count short-video shop ${entity}`,
    description: `Counts the short-video shop ${entity} that the same filters as the explore tool match (${what}). Answers { total }.`,
    alsoUses: "a daily short-video search"
  })
})

const categories = explore("categories", "GMV, units, products, shops")
const shops = explore("shops", "GMV, units sold, followers, products")
const creators = explore("creators", "views, GMV they drove, followers gained")
const videos = explore("videos", "views, likes, comments, shares, GMV of the products shown")
const products = explore("products", "GMV, units, price, reviews")

/** A record's daily series. */
const dailyMetrics = (who: string, metrics: string) => ({
  title: `A ${who}'s daily metrics`,
  description: `A ${who}'s metrics for every day of the period (${metrics}). ${shopPeriod}`
})

/** A detail page's list: an explore search tied to the record. */
const listOf = (title: string, what: string, like: string) => ({
  title,
  description: `${what}, with period metrics; filtered, sorted and paged like ${like}. ${shopPages}`
})

const brandId = "id is the brand's social page id (the advertiser.id of its ads in search_social_ads)"
const p2 = "Pages: page (from 1) and page_size (1-100)."

/** One tool per brand insight tab, from the tabs' own declaration (ads/brandInsights/Tabs.ts). */
const brandTabTools = Object.fromEntries(
  tabNames.map((tab: TabName) => [
    `brand_${tab.replace(/-/g, "_")}`,
    tool(BrandInsightsApi, endpointOf(tab), {
      title: `Brand insight: ${tab}`,
      description:
        `${brandTabs[tab].description}. For one brand (${brandId}), tracked or not, over date_from..date_to (UTC days, default the last 90 days); library and country narrow the ads read. Use list_brand_tabs to see every tab.`
    })
  ])
)

/** Why the bulk exports are no tools. */
const exportWhy = "A file of up to 10,000 ads for a spreadsheet or a pipeline, not a language model's context: the search tools page through the same matches"

export const tools = {
  search_social_ads: tool(AdLibraryApi, "social", {
    title: "Search social-network ads",
    description:
      `Searches the social-network ad library (ads of advertiser pages, with copy, creative, landing page, countries, engagement). ${adFilters} ${paging} Use find_similar_ads to find ads like a given ad, copy or image.`
  }),
  search_pinboard_ads: tool(AdsApi, "pinboard", {
    title: "Search image-board ads",
    description: `Searches the image-board ad library (promoted pins). ${adFilters} ${paging}`
  }),
  search_short_video_ads: tool(AdsApi, "clipapp", {
    title: "Search short-video ads",
    description: `Searches the short-video platform's ad library (video ads with views, likes, comments, shares). ${adFilters} ${paging} Use get_short_video_ad for one ad with its variants, lander and store.`
  }),
  search_search_engine_ads: tool(AdsApi, "search", {
    title: "Search search-engine ads",
    description: `Searches search-engine ad creatives (text ads: headline, description, display URL, regions). ${adFilters} ${paging}`
  }),
  get_short_video_ad: tool(AdsApi, "clipappAd", {
    title: "One short-video ad",
    description: "Gets one short-video ad by its id (the `id` of a search result), with the ids of its variants, its landing page and its store."
  }),
  find_similar_ads: tool(MagicAiApi, "similar", {
    title: "Find similar ads",
    description:
      `Finds ads similar to exactly one of: an ad (ad_id), a piece of ad copy (text) or an image (image_url, fetched once). Each result has a similarity from 0 to 1, best first. The ad searches' filters narrow it; library picks the libraries (default all). ${paging}`
  }),
  list_store_search_ads: tool(StoreAdsApi, "list", {
    title: "A store's search-engine ads",
    description:
      `Lists the search-engine ad creatives of one online store (store_id or domain, exactly one), newest first; filters status, region, first_seen_from/to. ${shopPages}`
  }),
  store_search_ads_overview: tool(StoreAdsApi, "overview", {
    title: "A store's search-engine ads at a glance",
    description:
      "Summarises a store's search-engine ads (store_id or domain): totals, active count, first and last shown, by format, by region and weekly activity. Start here before listing them."
  }),
  store_search_ads_advertisers: tool(StoreAdsApi, "advertiser", {
    title: "Advertisers behind a store's search-engine ads",
    description: "The advertisers running a store's search-engine ads (store_id or domain), with their creative counts, activity and regions."
  }),
  get_store_search_ad: tool(StoreAdsApi, "creative", {
    title: "One search-engine ad of a store",
    description: "One search-engine creative of a store (store_id or domain, and id from the list) with its regions and impression ranges."
  }),
  explore_shop_categories: categories.explore,
  count_shop_categories: categories.count,
  explore_shops: shops.explore,
  count_shops: shops.count,
  explore_shop_creators: creators.explore,
  count_shop_creators: creators.count,
  explore_shop_videos: videos.explore,
  count_shop_videos: videos.count,
  explore_shop_products: products.explore,
  count_shop_products: products.count,
  get_shop_detail: tool(ShopDetailApi, "shopDetail", {
    title: "A short-video shop's detail",
    description:
      `One shop (id from explore_shops) with its period metrics, and the first page of the lists named in tabs: product/queryList (its products), searchNewProducts, searchVideos (videos showing its products), searchCooperativeCreators. ${shopPeriod}`
  }),
  shop_history: tool(ShopDetailApi, "shopDetailHistory", dailyMetrics("shop", "GMV, units, followers...")),
  list_shop_products: tool(ShopDetailApi, "shopDetailProductQueryList", listOf("A shop's products", "The products a shop sells", "explore_shop_products")),
  get_creator_detail: tool(ShopDetailApi, "creatorDetail", {
    title: "A short-video creator's detail",
    description:
      `One creator (id from explore_shop_creators) with period metrics, and the first page of the lists named in tabs: video/queryList (their videos), searchProducts, searchShopList, searchCooperativeShops. ${shopPeriod}`
  }),
  creator_history: tool(ShopDetailApi, "creatorDetailHistory", dailyMetrics("creator", "views, followers...")),
  list_creator_videos: tool(ShopDetailApi, "creatorDetailVideoQueryList", listOf("A creator's videos", "A creator's videos", "explore_shop_videos")),
  get_product_detail: tool(ShopProductDetailApi, "productDetail", {
    title: "A short-video shop product's detail",
    description:
      `One product (id from explore_shop_products or search_shop_products) with period metrics, and the first page of the lists named in tabs: creator/queryList (creators showing it), video/queryList (videos showing it). ${shopPeriod}`
  }),
  product_history: tool(ShopProductDetailApi, "productDetailHistory", dailyMetrics("product", "GMV, units, views...")),
  list_product_videos: tool(ShopProductDetailApi, "productDetailVideoQueryList", listOf("Videos showing a product", "The videos showing a product", "explore_shop_videos")),
  list_product_creators: tool(
    ShopProductDetailApi,
    "productDetailCreatorQueryList",
    listOf("Creators showing a product", "The creators whose videos show a product", "explore_shop_creators")
  ),
  get_shop_video: tool(ShopDetailApi, "video", {
    title: "A short video",
    description: `One short video (id from explore_shop_videos) with its period metrics. ${shopPeriod}`
  }),
  shop_category_tree: tool(ShopDetailApi, "categoriesHierarchy", {
    title: "The short-video shop's category tree",
    description: "The category tree of a country (ids, names, levels, children). Use the ids as category_id filters."
  }),
  get_shop_category: tool(ShopDetailApi, "categoriesSummary", {
    title: "A shop category's summary",
    description: `One category with its period metrics and how many products, shops, creators and subcategories it holds (it and below). ${shopPeriod}`
  }),
  search_shop_products: tool(ShopSearchApi, "search", {
    title: "Search short-video shop products",
    description: `Products whose title matches words (q), best match first, with relevance from 0 to 1. ${shopPages} Prefer explore_shop_products to filter and rank by metrics.`
  }),
  shop_suggestions: tool(ShopSearchApi, "suggestions", {
    title: "Autocomplete short-video shop names",
    description: "Product titles, shop names, creator handles and category names that start with a prefix, with their ids: the quickest way from a name to an id."
  }),
  trending_shop_products: tool(ShopSearchApi, "trending", {
    title: "Trending short-video shop products",
    description: `Products whose GMV, units or views (metric) grew most over the last days (days, default 7) against the days before. ${shopPages}`
  }),
  shop_search_credits: tool(ShopApi, "credits", {
    title: "Daily short-video searches left",
    description: "How many short-video shop searches (explore and count calls) the account has left today, and when they reset."
  }),
  get_video_transcript: tool(VideoTranscriptsApi, "transcript", {
    title: "A short video's transcript",
    description:
      "The stored transcript of a short-video shop video (video_id): text, timed segments, script analysis and similar scripts; null and empty lists when none exists. Never generates one."
  }),
  generate_video_transcript: tool(VideoTranscriptsApi, "generate", {
    title: "Transcribe a short video",
    description:
      "Transcribes a video's audio (or answers its stored transcript, free). Needs a signed-in browser session with the credential; with a key or token alone it answers \"Not logged in\".",
    alsoUses: "a monthly script generation"
  }),
  write_similar_video_script: tool(VideoTranscriptsApi, "similarScript", {
    title: "Write a similar ad script",
    description:
      "Writes an ad script for your product modelled on a video's transcript. Needs a signed-in browser session with the credential; with a key or token alone it answers \"Not logged in\".",
    alsoUses: "a monthly script generation"
  }),
  get_ad_transcript: tool(AdTranscriptsApi, "transcript", {
    title: "An ad's transcript",
    description: "The stored transcript and script analysis of a video ad (ad_id); null and empty lists when none exists. Never generates one."
  }),
  list_tracked_brands: tool(BrandTrackerApi, "list", {
    title: "Tracked brands",
    description: `The brands the account tracks, newest follow first, with their active ads, new ads in the last 7 and 30 days, last seen and domains. ${p2}`
  }),
  follow_brand: tool(BrandTrackerApi, "follow", {
    title: "Track a brand",
    description: `Starts tracking a brand (${brandId}); tracking again changes nothing. Tracked brands feed the new-ads digest. The plan limits how many brands an account tracks.`
  }),
  unfollow_brand: tool(BrandTrackerApi, "unfollow", {
    title: "Stop tracking a brand",
    description: `Stops tracking a brand (${brandId}); an untracked one is fine.`
  }),
  brand_ads: tool(BrandTrackerApi, "ads", {
    title: "A brand's ads",
    description: `The ads of one brand (${brandId}), with the ad searches' filters and sorts. ${paging}`
  }),
  list_brand_tabs: tool(BrandInsightsApi, "listTabs", {
    title: "Brand insight tabs",
    description: "Lists the brand insight tabs (name, path, what each shows). Each has its own tool named brand_<tab> (dashes as underscores)."
  }),
  ...brandTabTools,
  workspace_folders: tool(WorkspaceApi, "foldersWithBoards", {
    title: "Folders and boards",
    description: "The account's workspace: its folders, each with its boards and how many brands and saved ads each holds. Board ids from here go to the other workspace tools."
  }),
  create_folder: tool(WorkspaceApi, "createFolder", {
    title: "Create a folder",
    description: "Creates a workspace folder (name, 1-100 characters, unique per account whatever the case)."
  }),
  create_board: tool(WorkspaceApi, "createBoard", {
    title: "Create a board",
    description: "Creates a board in a folder (folder_id, name). A board holds brands and saved ads."
  }),
  add_brand_to_board: tool(WorkspaceApi, "addToBoard", {
    title: "Add a brand to a board",
    description: `Adds a brand to a board (board_id, brand_id: ${brandId}); adding it again changes nothing.`
  }),
  remove_from_board: tool(WorkspaceApi, "removeFromBoard", {
    title: "Remove from a board",
    description: "Removes a brand or a saved ad from a board; removing what is not there changes nothing."
  }),
  list_board_ads: tool(WorkspaceApi, "boardAds", {
    title: "A board's saved ads",
    description: `The saved ads of a board (board_id), newest saved first, or by first seen or days running. ${p2}`
  }),
  share_board: tool(WorkspaceApi, "createShareLink", {
    title: "Share a board",
    description: "Makes a read-only link to a board that works without a key (expires_in_days, default 30, at most 365). The token is shown only in this answer."
  }),
  list_saved_ads: tool(SavedAdsApi, "list", {
    title: "Saved ads",
    description: `The account's saved ads (as saved, even if the library dropped them), with when they were saved, their boards, note and tags; filter board_id or tag. ${p2}`
  }),
  save_ad: tool(SavedAdsApi, "save", {
    title: "Save an ad",
    description: "Saves an ad (ad_id from any ad search) on a board (board_id), or on the default \"Saved ads\" board; saving again changes nothing."
  }),
  unsave_ad: tool(SavedAdsApi, "unsave", {
    title: "Unsave an ad",
    description: "Removes a saved ad from a board (board_id), or from every board when none is given."
  }),
  annotate_saved_ad: tool(SavedAdsApi, "annotate", {
    title: "Note and tags on a saved ad",
    description: "Sets the note (up to 2,000 characters) and tags (up to 20) of a saved ad."
  }),
  list_saved_searches: tool(SavedSearchesApi, "list", {
    title: "Saved searches",
    description: `The account's saved ad-library searches, newest first: name, library, filters, when saved and when an import last looked for matches. ${p2}`
  }),
  saved_search_matches: tool(SavedSearchesApi, "matches", {
    title: "New matches of a saved search",
    description: `The ads imported since a saved search (id from list_saved_searches) was saved that match it, newest first. ${paging}`
  }),
  list_notifications: tool(NotificationsApi, "list", {
    title: "Notifications",
    description: `The account's inbox, newest first: new ads of tracked brands, credit alerts, key changes; unread=true for unread only. ${p2}`
  }),
  unread_notifications: tool(NotificationsApi, "unreadCount", {
    title: "Unread notifications",
    description: "How many notifications are unread."
  }),
  mark_notifications_read: tool(NotificationsApi, "markRead", {
    title: "Mark notifications read",
    description: "Marks the given notification ids read; answers how many changed."
  }),
  mark_all_notifications_read: tool(NotificationsApi, "markAllRead", {
    title: "Mark all notifications read",
    description: "Marks every notification of the account read; answers how many changed."
  }),
  get_digest_preferences: tool(DigestPrefsApi, "get", {
    title: "Brand digest preferences",
    description: "How often (off, daily, weekly), at which UTC hour and whether by e-mail the account gets the new-ads digest of its tracked brands."
  }),
  explore_landers: tool(LandersApi, "explore", {
    title: "Explore landing pages",
    description: `Searches the landing-page library: full text (q) over title, headline and page text; filters type (product, listicle, advertorial, quiz, vsl, presell, collection, home), niche, domain, platform, countries, languages, seen dates, how many ads link to it, offer price; sorts relevance, newest, most_ads, longest_running. Each lander has its final URL and the ads linking to it. ${p2}`
  }),
  list_lander_favorites: tool(LandersApi, "favorites", {
    title: "Favorite landing pages",
    description: `The account's favorite landers. ${p2}`
  }),
  toggle_lander_favorite: tool(LandersApi, "toggle", {
    title: "Favorite or unfavorite a landing page",
    description: "Toggles a lander (id from explore_landers) in the account's favorites; answers whether it is a favorite now."
  }),
  trending_topics: tool(TrendsApi, "topics", {
    title: "Rising ad topics",
    description: "Phrases (one to three words) whose use in new ads rose most in the last window_days (7, 30 or 90) against the window before, with counts and growth; filters library, niche, country, language; limit 1-100."
  }),
  trending_hooks: tool(TrendsApi, "hooks", {
    title: "Rising ad hooks",
    description: "Opening lines of ads whose use rose most in the last window_days against the window before; the same filters as trending_topics."
  }),
  topic_history: tool(TrendsApi, "history", {
    title: "A phrase's daily use",
    description: "How many new ads used a phrase (topic) on each of the last 365 days."
  }),
  trending_products_by_units: tool(TrendsApi, "products", {
    title: "Short-video shop products rising by units",
    description: "The short-video shop's products whose units sold grew most over recent days."
  }),
  store_tracker_status: tool(StoreTrackerApi, "status", {
    title: "Tracked stores: count and limit",
    description: "How many hosted online stores the account tracks, its plan's limit and how many it may still track."
  }),
  track_store: tool(StoreTrackerApi, "track", {
    title: "Track an online store",
    description: "Starts tracking a hosted online store by store_id or domain (exactly one); an unknown domain is not found."
  }),
  untrack_store: tool(StoreTrackerApi, "untrack", {
    title: "Stop tracking an online store",
    description: "Stops tracking a store (store_id or domain)."
  }),
  list_tracked_stores: tool(StoreTrackerApi, "stores", {
    title: "Tracked online stores",
    description: `The stores the account tracks, with their estimated daily sales and the products they added since tracking began. ${p2}`
  }),
  explore_stores: tool(StoreExplorerApi, "explore", {
    title: "Explore online stores",
    description: `Without id: searches hosted online stores (text, platform, theme, app, country, currency, product count, revenue and visit ranges, ads running, launch date; sorts revenue, visits, growth_30d, ads_running, newest). With id: one store's drill-down (products sorted by estimated sales, 365 daily figures, apps, theme, the ads and landers pointing at it). ${p2}`
  }),
  visual_search_stores: tool(StoreVisualSearchApi, "search", {
    title: "Find stores by a product photo",
    description: "Finds online stores whose product images look like the image at image_url (fetched once from a public address), each with its best-matching products and a similarity from 0 to 1; the explore_stores filters narrow it."
  }),
  get_credits: tool(CreditsApi, "balance", {
    title: "API credits left",
    description: "The account's API credit balance: used and left this month, add-on credits, total left (after this call's own credit)."
  })
} satisfies Record<string, ToolDeclaration>

export type ToolName = keyof typeof tools

/**
 * The routes that are not tools, each with its reason (docs/SPEC-NOTES.md, "MCP and its OAuth
 * server": which tools). A new route is a tool above or a line here (test/routes.test.ts).
 */
export const notTools: ReadonlyArray<NoToolDeclaration> = [
  noTool(SystemApi, "every route", "Probes for operators and load balancers: unmetered, not research"),
  noTool(SystemAdminApi, "every route", "The admin API: the operator's token, not an account's"),
  noTool(SessionApi, "every route", "The browser side: sign-in, the key page and its forms"),
  noTool(McpClientsApi, "every route", "The key page's Disconnect, a session form"),
  noTool(AdminApi, "every route", "The admin API: the operator's token, not an account's"),
  noTool(CatalogAdminApi, "every route", "The admin API: the operator's token, not an account's"),
  noTool(ShareApi, "every route", "The public page of a share link: no key, no credit"),
  noTool(StoreMediaApi, "every route", "Product photos for browsers"),
  noTool(StoreAdsApi, ["count", "detail"], "The list and overview tools answer the count; one creative is get_store_search_ad"),
  noTool(BrandInsightsApi, ["unknownTab"], "The 404 of a tab name that does not exist"),
  noTool(ShopApi, ["requestCountry"], "Account settings are not research"),
  noTool(ShopApi, unknownPathNames, "G9: the answer for an unknown short-video shop path"),
  noTool(
    ShopExploreApi,
    ["categoriesExplore", "categoriesCount", "shopsExplore", "shopsCount", "creatorsExplore", "creatorsCount", "videosExplore", "videosCount", "productsExplore", "productsCount"],
    "The GET form of explore and count: the tool is the POST form, which takes the same filters"
  ),
  noTool(
    ShopDetailApi,
    [
      "shopDetailTotal", "shopDetailSearchNewProducts", "shopDetailSearchVideos", "shopDetailSearchCooperativeCreators", "shopDetailExtraTotal",
      "shopDetailSalesStrategySelfPromotion", "shopDetailSalesStrategyAffiliate", "creatorDetailTotal", "creatorDetailSearchProducts",
      "creatorDetailSearchShopList", "creatorDetailSearchCooperativeShops", "shopsProducts", "shopsSummary", "shopsDetails", "shopDetails",
      "products", "productDetails", "productSalesChannel", "videoMetrics", "videoHistory", "videoProducts", "videoSimilar", "creatorHistory",
      "categoriesTopProducts", "categoriesTopShops", "categoriesTopCreators", "categoriesLayers", "categoriesHistory", "categoriesSiblings"
    ],
    "The detail pages' other lists, totals and records by id: the page tools, their daily series and main lists cover research; these stay REST routes"
  ),
  noTool(ShopDetailApi, ["productOtherVisits", "categoryVisitEvents", "detailVisitEvents"], "The dashboard's visit counters"),
  noTool(
    ShopProductDetailApi,
    ["productDetailTotal", "productDetailSalesTrend", "productDetailSearchCreators", "productDetailSearchVideos", "productDetailCreatorGetConversionRadio", "productDetailById"],
    "The product page's other lists, totals and records by id: get_product_detail, its daily series and main lists cover research"
  ),
  noTool(ShopFavoritesApi, ["list", "toggle", "add", "remove", "check"], "Account settings are not research"),
  noTool(ShopPresetsApi, ["list", "save", "update", "delete"], "Account settings are not research"),
  noTool(
    AdTranscriptsApi,
    ["generate", "similarScript"],
    "Generation is offered only where a browser session stands behind the credential (S6): the session-only video routes are the tools"
  ),
  noTool(
    WorkspaceApi,
    ["renameFolder", "moveFolder", "deleteFolder", "renameBoard", "moveBoard", "deleteBoard", "revokeShareLink"],
    "Rearranges or deletes what a user built, which a language model should not do on its own"
  ),
  noTool(WorkspaceApi, ["boardBrands", "shareLinks"], "Not among the workspace tools (the tree, create, add, remove, a board's ads, share): listing a board's brands and the links made stays REST"),
  noTool(DigestPrefsApi, ["update"], "Changing digest preferences is left to the dashboard"),
  noTool(
    WebhooksApi,
    ["create", "list", "remove", "rotateSecret", "test", "deliveries", "replay"],
    "Managing webhook endpoints and their deliveries is account settings, not research"
  ),
  noTool(AdLibraryExportApi, ["socialExport"], exportWhy),
  noTool(AdsExportApi, ["pinboardExport", "clipappExport", "searchExport"], exportWhy),
  noTool(SavedSearchesApi, ["create", "delete"], "Saving and deleting searches changes what the account is sent (inbox, events, webhooks): left to the user, not a language model")
]
