import { CreditsApi } from "../access/credits/Api.js"
import { AdLibraryApi, AdsApi, MagicAiApi } from "../ads/library/Api.js"
import { StoreAdsApi } from "../ads/storeAds/Api.js"
import { ShopApi } from "../shop/account/Api.js"
import { ShopDetailApi, ShopProductDetailApi } from "../shop/detail/Api.js"
import { ShopExploreApi } from "../shop/explore/Api.js"
import { ShopSearchApi } from "../shop/search/Api.js"
import { AdTranscriptsApi, VideoTranscriptsApi } from "../transcripts/Api.js"
import { tool, type ToolDeclaration } from "./Tool.js"

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
  get_credits: tool(CreditsApi, "balance", {
    title: "API credits left",
    description: "The account's API credit balance: used and left this month, add-on credits, total left (after this call's own credit)."
  })
} satisfies Record<string, ToolDeclaration>

export type ToolName = keyof typeof tools
