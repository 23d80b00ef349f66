import type { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AdIntelApi } from "../Api.js"
import { Caller } from "../gateway/Api.js"
import * as Metered from "../gateway/Http.js"
import { type DetailPath, details, type DetailSpec, endpointName } from "./Api.js"
import type { ShopEntity } from "../shopExplore/Entities.js"
import type { VisitType } from "./DetailRepo.js"
import { ShopDetail } from "./ShopDetail.js"

type AnyHandlers = HttpApiBuilder.Handlers<any, any, any, any>

const entityOfVisit: Record<VisitType, ShopEntity> = {
  product: "products",
  shop: "shops",
  creator: "creators",
  video: "videos",
  category: "categories"
}
/** The same handlers with every endpoint handled. */
type AllHandled<H> = H extends HttpApiBuilder.Handlers<infer E, infer P, infer R, any> ? HttpApiBuilder.Handlers<E, P, R, never> : never

const withCaller = <A, E, R>(f: (caller: import("../gateway/Api.js").CallerInfo) => Effect.Effect<A, E, R>) => Effect.flatMap(Caller, f)

/** Every detail route, by the declaration's names (the group is built in a loop too). */
export const ShopDetailLive = Metered.group(AdIntelApi, "shopDetail", (handlers) =>
  Effect.map(ShopDetail, (detail) => {
    const each = (Object.keys(details) as Array<DetailPath>).reduce((acc: AnyHandlers, path) => {
      const spec: DetailSpec = details[path]
      let next = spec.page
        ? acc
          .handle(endpointName(path), ({ payload }: any) => withCaller((caller) => detail.full(path, caller, payload)))
          .handle(endpointName(`${path}/total`), ({ payload }: any) => withCaller((caller) => detail.total(path, caller, payload)))
        : acc
      for (const series of spec.series) {
        next = next.handle(endpointName(`${path}/${series}`), ({ payload }: any) =>
          withCaller((caller) => detail.series(spec.entity, series, caller, payload)))
      }
      for (const sub of Object.keys(spec.lists)) {
        next = next.handle(endpointName(`${path}/${sub}`), ({ payload }: any) => withCaller((caller) => detail.list(path, sub, caller, payload)))
      }
      return next
    }, handlers as AnyHandlers)
    return each
      .handle("shopDetailExtraTotal", ({ payload }: any) => withCaller((caller) => detail.shopExtra(caller, payload)))
      .handle("shopDetailSalesStrategySelfPromotion", ({ payload }: any) => withCaller((caller) => detail.shopStrategy(caller, payload, true)))
      .handle("shopDetailSalesStrategyAffiliate", ({ payload }: any) => withCaller((caller) => detail.shopStrategy(caller, payload, false)))
      .handle("productDetailCreatorGetConversionRadio", ({ payload }: any) => withCaller((caller) => detail.conversion(caller, payload)))
      .handle("productDetails", ({ urlParams }: any) => withCaller((caller) => detail.full("product-detail", caller, urlParams)))
      .handle("categoriesHierarchy", ({ urlParams }: any) => withCaller((caller) => detail.hierarchy(caller, urlParams.country)))
      .handle("categoriesLayers", ({ urlParams }: any) => withCaller((caller) => detail.layers(caller, urlParams.country)))
      .handle("categoriesSummary", ({ urlParams }: any) => withCaller((caller) => detail.categorySummary(caller, urlParams)))
      .handle("categoriesHistory", ({ urlParams }: any) => withCaller((caller) => detail.series("categories", "history", caller, urlParams)))
      .handle("shopsSummary", ({ urlParams }: any) => withCaller((caller) => detail.shopSummary(caller, urlParams)))
      .handle("shopsDetails", ({ urlParams }: any) => withCaller((caller) => detail.profile("shops", caller, urlParams)))
      .handle("shopDetails", ({ urlParams }: any) => withCaller((caller) => detail.profile("shops", caller, urlParams)))
      .handle("products", ({ urlParams }: any) => withCaller((caller) => detail.products(caller, urlParams)))
      .handle("productSalesChannel", ({ path, urlParams }: any) => withCaller((caller) => detail.salesChannels(caller, { ...urlParams, id: path.id })))
      .handle("video", ({ path, urlParams }: any) => withCaller((caller) => detail.profile("videos", caller, { ...urlParams, id: path.id })))
      .handle("videoMetrics", ({ path, urlParams }: any) => withCaller((caller) => detail.videoMetrics(caller, { ...urlParams, id: path.id })))
      .handle("videoHistory", ({ path, urlParams }: any) =>
        withCaller((caller) => detail.series("videos", "history", caller, { ...urlParams, id: path.id })))
      .handle("videoProducts", ({ path, urlParams }: any) => withCaller((caller) => detail.videoList(caller, { ...urlParams, id: path.id }, "products")))
      .handle("videoSimilar", ({ path, urlParams }: any) => withCaller((caller) => detail.videoList(caller, { ...urlParams, id: path.id }, "similar")))
      .handle("creatorHistory", ({ path, urlParams }: any) =>
        withCaller((caller) => detail.series("creators", "history", caller, { ...urlParams, id: path.id })))
      .handle("categoriesSiblings", ({ urlParams }: any) => withCaller((caller) => detail.siblings(caller, urlParams)))
      .handle("productOtherVisits", ({ urlParams }: any) => withCaller((caller) => detail.otherVisits(caller, urlParams)))
      .handle("categoryVisitEvents", ({ urlParams }: any) => withCaller((caller) => detail.visitEvents("categories", caller, urlParams)))
      .handle("detailVisitEvents", ({ urlParams }: any) =>
        withCaller((caller) => detail.visitEvents(entityOfVisit[urlParams.type as VisitType], caller, urlParams)))
      .handle("productDetailById", ({ path, urlParams }: any) =>
        withCaller((caller) => detail.full("product-detail", caller, { ...urlParams, id: path.id }))) as AllHandled<typeof handlers>
  }))
