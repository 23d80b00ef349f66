import { HttpApi, HttpApiClient, HttpClient, type HttpClientResponse, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { AdIntelApi } from "../src/app/Api.js"
import { ShopApi } from "../src/shop/account/Api.js"
import { ShopRecordId } from "../src/shop/catalog/Entities.js"
import { ShopDetailApi, ShopProductDetailApi } from "../src/shop/detail/Api.js"
import { ShopExploreApi } from "../src/shop/explore/Api.js"
import { loadedSmallWorldServer, recordsOf, smallWorld, type WorldRecord } from "./support/AdWorld.js"
import { account, TestServer } from "./support/TestServer.js"

/** A record of each kind in the small world's US region. */
const first = (entity: keyof typeof smallWorld.records, keep: (r: WorldRecord) => boolean = () => true) =>
  ShopRecordId.make(recordsOf(entity).find((r) => r.region === "US" && keep(r))!.external_id)
const product = first("shop-products")
const shop = first("shop-shops")
const creator = first("shop-creators")
const video = first("shop-videos")
const category = first("shop-categories")

/** Every endpoint of the short-video shop groups, as the API describes itself (G9's wildcards aside). */
const shopGroups = new Set<string>([ShopApi, ShopExploreApi, ShopDetailApi, ShopProductDetailApi].map((group) => group.identifier))
const shopEndpoints: Array<string> = []
HttpApi.reflect(AdIntelApi, {
  predicate: ({ group }) => shopGroups.has(group.identifier),
  onGroup: () => {},
  onEndpoint: ({ endpoint, group }) => {
    if (!endpoint.name.startsWith("unknown")) shopEndpoints.push(`${group.identifier}.${endpoint.name}`)
  }
})

const clientOf = Effect.gen(function*() {
  const { api_key } = yield* account({ plan: "premium" })
  const { url } = yield* TestServer
  return yield* HttpApiClient.make(AdIntelApi, {
    baseUrl: url,
    transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("x-api-key", api_key))
  })
})
type Client = Effect.Effect.Success<typeof clientOf>

/** A call of the typed client, by the endpoint it calls: its answer decoded, and the response. */
type Call = readonly [endpoint: string, call: Effect.Effect<readonly [unknown, HttpClientResponse.HttpClientResponse], unknown>]

/**
 * A valid request of every route, each through its own typed method: the record in the path,
 * the query string or the body, typed as the contract declares it (a missing `id` or a
 * parameter a route does not take would not compile).
 */
const everyRoute = (client: Client): ReadonlyArray<Call> => {
  const withResponse = true as const
  const explore = client.shopExplore
  const detail = client.shopDetail
  const productDetail = client.shopProductDetail
  const inQuery = (id: ShopRecordId) => ({ urlParams: { id }, withResponse })
  const inBody = (id: ShopRecordId) => ({ payload: { id }, withResponse })
  const inPath = (id: ShopRecordId) => ({ path: { id }, urlParams: {}, withResponse })
  const none = { urlParams: {}, withResponse }
  const both = { urlParams: {}, payload: {}, withResponse }
  return [
    ["shop.credits", client.shop.credits({ withResponse })],
    ["shop.requestCountry", client.shop.requestCountry({ payload: {}, withResponse })],

    ["shopExplore.categoriesExplore", explore.categoriesExplore(none)],
    ["shopExplore.categoriesExplorePost", explore.categoriesExplorePost(both)],
    ["shopExplore.categoriesCount", explore.categoriesCount(none)],
    ["shopExplore.categoriesCountPost", explore.categoriesCountPost(both)],
    ["shopExplore.shopsExplore", explore.shopsExplore(none)],
    ["shopExplore.shopsExplorePost", explore.shopsExplorePost(both)],
    ["shopExplore.shopsCount", explore.shopsCount(none)],
    ["shopExplore.shopsCountPost", explore.shopsCountPost(both)],
    ["shopExplore.creatorsExplore", explore.creatorsExplore(none)],
    ["shopExplore.creatorsExplorePost", explore.creatorsExplorePost(both)],
    ["shopExplore.creatorsCount", explore.creatorsCount(none)],
    ["shopExplore.creatorsCountPost", explore.creatorsCountPost(both)],
    ["shopExplore.videosExplore", explore.videosExplore(none)],
    ["shopExplore.videosExplorePost", explore.videosExplorePost(both)],
    ["shopExplore.videosCount", explore.videosCount(none)],
    ["shopExplore.videosCountPost", explore.videosCountPost(both)],
    ["shopExplore.productsExplore", explore.productsExplore(none)],
    ["shopExplore.productsExplorePost", explore.productsExplorePost(both)],
    ["shopExplore.productsCount", explore.productsCount(none)],
    ["shopExplore.productsCountPost", explore.productsCountPost(both)],

    ["shopDetail.shopDetail", detail.shopDetail(inBody(shop))],
    ["shopDetail.shopDetailTotal", detail.shopDetailTotal(inBody(shop))],
    ["shopDetail.shopDetailHistory", detail.shopDetailHistory(inBody(shop))],
    ["shopDetail.shopDetailProductQueryList", detail.shopDetailProductQueryList(inBody(shop))],
    ["shopDetail.shopDetailSearchNewProducts", detail.shopDetailSearchNewProducts(inBody(shop))],
    ["shopDetail.shopDetailSearchVideos", detail.shopDetailSearchVideos(inBody(shop))],
    ["shopDetail.shopDetailSearchCooperativeCreators", detail.shopDetailSearchCooperativeCreators(inBody(shop))],
    ["shopDetail.creatorDetail", detail.creatorDetail(inBody(creator))],
    ["shopDetail.creatorDetailTotal", detail.creatorDetailTotal(inBody(creator))],
    ["shopDetail.creatorDetailHistory", detail.creatorDetailHistory(inBody(creator))],
    ["shopDetail.creatorDetailVideoQueryList", detail.creatorDetailVideoQueryList(inBody(creator))],
    ["shopDetail.creatorDetailSearchProducts", detail.creatorDetailSearchProducts(inBody(creator))],
    ["shopDetail.creatorDetailSearchShopList", detail.creatorDetailSearchShopList(inBody(creator))],
    ["shopDetail.creatorDetailSearchCooperativeShops", detail.creatorDetailSearchCooperativeShops(inBody(creator))],
    ["shopDetail.shopsProducts", detail.shopsProducts(inBody(shop))],
    ["shopDetail.categoriesTopProducts", detail.categoriesTopProducts(inBody(category))],
    ["shopDetail.categoriesTopShops", detail.categoriesTopShops(inBody(category))],
    ["shopDetail.categoriesTopCreators", detail.categoriesTopCreators(inBody(category))],
    ["shopDetail.shopDetailExtraTotal", detail.shopDetailExtraTotal(inBody(shop))],
    ["shopDetail.shopDetailSalesStrategySelfPromotion", detail.shopDetailSalesStrategySelfPromotion(inBody(shop))],
    ["shopDetail.shopDetailSalesStrategyAffiliate", detail.shopDetailSalesStrategyAffiliate(inBody(shop))],
    ["shopDetail.productDetails", detail.productDetails(inQuery(product))],
    ["shopDetail.categoriesHierarchy", detail.categoriesHierarchy(none)],
    ["shopDetail.categoriesLayers", detail.categoriesLayers(none)],
    ["shopDetail.categoriesSummary", detail.categoriesSummary(inQuery(category))],
    ["shopDetail.categoriesHistory", detail.categoriesHistory(inQuery(category))],
    ["shopDetail.categoriesSiblings", detail.categoriesSiblings(inQuery(category))],
    ["shopDetail.shopsSummary", detail.shopsSummary(inQuery(shop))],
    ["shopDetail.shopsDetails", detail.shopsDetails(inQuery(shop))],
    ["shopDetail.shopDetails", detail.shopDetails(inQuery(shop))],
    ["shopDetail.products", detail.products(none)],
    ["shopDetail.productSalesChannel", detail.productSalesChannel(inPath(product))],
    ["shopDetail.video", detail.video(inPath(video))],
    ["shopDetail.videoMetrics", detail.videoMetrics(inPath(video))],
    ["shopDetail.videoHistory", detail.videoHistory(inPath(video))],
    ["shopDetail.videoProducts", detail.videoProducts(inPath(video))],
    ["shopDetail.videoSimilar", detail.videoSimilar(inPath(video))],
    ["shopDetail.creatorHistory", detail.creatorHistory(inPath(creator))],
    ["shopDetail.productOtherVisits", detail.productOtherVisits(inQuery(product))],
    ["shopDetail.categoryVisitEvents", detail.categoryVisitEvents(inQuery(category))],
    ["shopDetail.detailVisitEvents", detail.detailVisitEvents({ urlParams: { type: "product", id: product }, withResponse })],

    ["shopProductDetail.productDetail", productDetail.productDetail(inBody(product))],
    ["shopProductDetail.productDetailTotal", productDetail.productDetailTotal(inBody(product))],
    ["shopProductDetail.productDetailHistory", productDetail.productDetailHistory(inBody(product))],
    ["shopProductDetail.productDetailSalesTrend", productDetail.productDetailSalesTrend(inBody(product))],
    ["shopProductDetail.productDetailCreatorQueryList", productDetail.productDetailCreatorQueryList(inBody(product))],
    ["shopProductDetail.productDetailSearchCreators", productDetail.productDetailSearchCreators(inBody(product))],
    ["shopProductDetail.productDetailVideoQueryList", productDetail.productDetailVideoQueryList(inBody(product))],
    ["shopProductDetail.productDetailSearchVideos", productDetail.productDetailSearchVideos(inBody(product))],
    ["shopProductDetail.productDetailCreatorGetConversionRadio", productDetail.productDetailCreatorGetConversionRadio(inBody(product))],
    ["shopProductDetail.productDetailById", productDetail.productDetailById(inPath(product))]
  ]
}

describe("every short-video shop route through the client derived from the contract", () => {
  layer(loadedSmallWorldServer())((it) => {
    it.effect("answers each route 200 with the shape its contract declares (the client decodes every answer)", () =>
      Effect.gen(function*() {
        const calls = everyRoute(yield* clientOf)
        for (const [endpoint, call] of calls) {
          const outcome = yield* Effect.either(call)
          expect([endpoint, outcome._tag === "Right" ? outcome.right[1].status : String(outcome.left)]).toEqual([endpoint, 200])
        }
        // every endpoint the shop groups declare, and each once
        expect(calls.map(([endpoint]) => endpoint).sort()).toEqual([...shopEndpoints].sort())
        expect(calls.length).toBeGreaterThan(70)
      }).pipe(Effect.provide(NodeHttpClient.layerUndici)), { timeout: 60_000 })

    it.effect("the methods are typed as their routes: parameters by name and type, answers as declared", () =>
      Effect.gen(function*() {
        const client = yield* clientOf
        const page = yield* client.shopExplore.productsExplore({ urlParams: { min_price: 10, sort: "gmv_growth", page_size: 5 } })
        expect(page.data.length).toBeGreaterThan(0)
        expect(page.data.every((p) => p.price_min >= 10 && p.region === "US")).toBe(true)
        expect(page.data.map((p) => p.period.metrics.gmv_growth ?? null)).toEqual(
          [...page.data.map((p) => p.period.metrics.gmv_growth ?? null)].sort((a, b) => (a === null ? 1 : b === null ? -1 : b - a))
        )
        const videos = yield* client.shopDetail.shopDetailSearchVideos({ payload: { id: shop, page_size: 3 } })
        expect(videos.data.every((v) => typeof v.is_ad === "boolean")).toBe(true)
        const history = yield* client.shopProductDetail.productDetailSalesTrend({ payload: { id: product, date_from: "1969-12-25" } })
        expect([history.data.id, history.data.series.length]).toEqual([product, 7])
        // A parameter the route does not take is refused by the client before any request.
        // @ts-expect-error min_prise is no parameter of products/explore
        const misspelt = yield* Effect.flip(client.shopExplore.productsExplore({ urlParams: { min_prise: 10 } }))
        expect(misspelt._tag).toBe("ParseError")
      }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
  })
})
