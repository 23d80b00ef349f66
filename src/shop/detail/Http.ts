import { Effect } from "effect"
import { ShopDetailContract } from "./Api.js"
import { Caller, type CallerInfo } from "../../access/gateway/Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import type { ExploreParams, ShopEntity } from "../catalog/Entities.js"
import { handleAll } from "../../kernel/Handlers.js"
import { type DetailPath, details, type DetailSelection, endpointName, listRoutes, type PagePath, seriesRoutes } from "./Api.js"
import type { VisitType } from "./DetailRepo.js"
import { ShopDetail } from "./ShopDetail.js"

const entityOfVisit: Record<VisitType, ShopEntity> = {
  product: "products",
  shop: "shops",
  creator: "creators",
  video: "videos",
  category: "categories"
}

const withCaller = <A, E, R>(f: (caller: CallerInfo) => Effect.Effect<A, E, R>) => Effect.flatMap(Caller, f)

/** A record named in the path, its period in the query string. */
interface InPath {
  readonly path: { readonly id: DetailSelection["id"] }
  readonly urlParams: Omit<DetailSelection, "id">
}

/**
 * The detail routes' handlers, for the two groups (`shopDetail`, and `shopProductDetail` with its
 * legacy mirror). The routes the declaration generates are handled by family, a family being
 * routes of one answer type: a page's detail, a page's totals, the daily series, the lists of one
 * entity. The others one by one. Each group's handlers are demanded at compile time.
 */
const familiesOf = (detail: ShopDetail) => ({
  page: <P extends PagePath>(path: P) =>
    [[endpointName(path)], () => ({ payload }: { readonly payload: DetailSelection & { readonly tabs?: ReadonlyArray<string> | undefined } }) =>
      withCaller((caller) => detail.full(path, caller, payload))] as const,

  total: <P extends PagePath>(path: P) =>
    [[endpointName(`${path}/total`)], () => ({ payload }: { readonly payload: DetailSelection }) =>
      withCaller((caller) => detail.total(path, caller, payload))] as const,

  series: <P extends DetailPath>(paths: ReadonlyArray<P>) => {
    const { names, route } = seriesRoutes(paths)
    return [names, (name: string) => {
      const { kind, path } = route(name)
      return ({ payload }: { readonly payload: DetailSelection }) => withCaller((caller) => detail.series(details[path].entity, kind, caller, payload))
    }] as const
  },

  lists: <P extends DetailPath, E extends ShopEntity>(paths: ReadonlyArray<P>, entity: E) => {
    const { names, route } = listRoutes(paths, entity)
    return [names, (name: string) => {
      const { list, path } = route(name)
      return ({ payload }: { readonly payload: DetailSelection & ExploreParams }) => withCaller((caller) => detail.list(path, list, caller, payload))
    }] as const
  }
})

export const ShopDetailLive = serveGroup(ShopDetailContract, "shopDetail", (handlers) =>
  Effect.map(ShopDetail, (detail) => {
    const family = familiesOf(detail)
    const paths = ["shop-detail", "creator-detail", "shops", "categories"] as const
    const byQuery = <A, E, R>(f: (caller: CallerInfo, selection: DetailSelection) => Effect.Effect<A, E, R>) =>
      ({ urlParams }: { readonly urlParams: DetailSelection }) => withCaller((caller) => f(caller, urlParams))
    const byId = <A, E, R>(f: (caller: CallerInfo, selection: DetailSelection) => Effect.Effect<A, E, R>) =>
      ({ path, urlParams }: InPath) => withCaller((caller) => f(caller, { ...urlParams, id: path.id }))
    return handlers.pipe(
      (h) => handleAll(h, ...family.page("shop-detail")),
      (h) => handleAll(h, ...family.total("shop-detail")),
      (h) => handleAll(h, ...family.page("creator-detail")),
      (h) => handleAll(h, ...family.total("creator-detail")),
      (h) => handleAll(h, ...family.series(paths)),
      (h) => handleAll(h, ...family.lists(paths, "products")),
      (h) => handleAll(h, ...family.lists(paths, "shops")),
      (h) => handleAll(h, ...family.lists(paths, "creators")),
      (h) => handleAll(h, ...family.lists(paths, "videos"))
    )
      .handle("shopDetailExtraTotal", ({ payload }) => withCaller((caller) => detail.shopExtra(caller, payload)))
      .handle("shopDetailSalesStrategySelfPromotion", ({ payload }) => withCaller((caller) => detail.shopStrategy(caller, payload, true)))
      .handle("shopDetailSalesStrategyAffiliate", ({ payload }) => withCaller((caller) => detail.shopStrategy(caller, payload, false)))
      .handle("productDetails", byQuery((caller, selection) => detail.full("product-detail", caller, selection)))
      .handle("categoriesHierarchy", ({ urlParams }) => withCaller((caller) => detail.hierarchy(caller, urlParams.country)))
      .handle("categoriesLayers", ({ urlParams }) => withCaller((caller) => detail.layers(caller, urlParams.country)))
      .handle("categoriesSummary", byQuery(detail.categorySummary))
      .handle("categoriesHistory", byQuery((caller, selection) => detail.series("categories", "history", caller, selection)))
      .handle("categoriesSiblings", byQuery(detail.siblings))
      .handle("shopsSummary", byQuery(detail.shopSummary))
      .handle("shopsDetails", byQuery((caller, selection) => detail.profile("shops", caller, selection)))
      .handle("shopDetails", byQuery((caller, selection) => detail.profile("shops", caller, selection)))
      .handle("products", ({ urlParams }) => withCaller((caller) => detail.products(caller, urlParams)))
      .handle("productSalesChannel", byId(detail.salesChannels))
      .handle("video", byId((caller, selection) => detail.profile("videos", caller, selection)))
      .handle("videoMetrics", byId(detail.videoMetrics))
      .handle("videoHistory", byId((caller, selection) => detail.series("videos", "history", caller, selection)))
      .handle("videoProducts", byId(detail.videoProducts))
      .handle("videoSimilar", byId(detail.videoSimilar))
      .handle("creatorHistory", byId((caller, selection) => detail.series("creators", "history", caller, selection)))
      .handle("productOtherVisits", byQuery(detail.otherVisits))
      .handle("categoryVisitEvents", byQuery((caller, selection) => detail.visitEvents("categories", caller, selection)))
      .handle("detailVisitEvents", ({ urlParams }) =>
        withCaller((caller) => detail.visitEvents(entityOfVisit[urlParams.type], caller, urlParams)))
  }))

export const ShopProductDetailLive = serveGroup(ShopDetailContract, "shopProductDetail", (handlers) =>
  Effect.map(ShopDetail, (detail) => {
    const family = familiesOf(detail)
    const paths = ["product-detail"] as const
    return handlers.pipe(
      (h) => handleAll(h, ...family.page("product-detail")),
      (h) => handleAll(h, ...family.total("product-detail")),
      (h) => handleAll(h, ...family.series(paths)),
      (h) => handleAll(h, ...family.lists(paths, "creators")),
      (h) => handleAll(h, ...family.lists(paths, "videos"))
    )
      .handle("productDetailCreatorGetConversionRadio", ({ payload }) => withCaller((caller) => detail.conversion(caller, payload)))
      .handle("productDetailById", ({ path, urlParams }) =>
        withCaller((caller) => detail.full("product-detail", caller, { ...urlParams, id: path.id })))
  }))
