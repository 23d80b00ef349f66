import type { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AdIntelApi } from "../Api.js"
import { Caller } from "../gateway/Api.js"
import * as Metered from "../gateway/Http.js"
import type { CallerInfo } from "../gateway/Api.js"
import { type DetailPath, details, type DetailSpec, endpointName, endpointNamesOf, ShopDetailApi, ShopProductDetailApi } from "./Api.js"
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

const withCaller = <A, E, R>(f: (caller: CallerInfo) => Effect.Effect<A, E, R>) => Effect.flatMap(Caller, f)

type Handler = (request: any) => Effect.Effect<any, any, any>

/** Every detail route's handler, by endpoint name: one table for both groups. */
const handlersOf = (detail: ShopDetail): Record<string, Handler> => {
  const table: Record<string, Handler> = {}
  for (const path of Object.keys(details) as Array<DetailPath>) {
    const spec: DetailSpec = details[path]
    if (spec.page) {
      table[endpointName(path)] = ({ payload }) => withCaller((caller) => detail.full(path, caller, payload))
      table[endpointName(`${path}/total`)] = ({ payload }) => withCaller((caller) => detail.total(path, caller, payload))
    }
    for (const series of spec.series) {
      table[endpointName(`${path}/${series}`)] = ({ payload }) => withCaller((caller) => detail.series(spec.entity, series, caller, payload))
    }
    for (const sub of Object.keys(spec.lists)) {
      table[endpointName(`${path}/${sub}`)] = ({ payload }) => withCaller((caller) => detail.list(path, sub, caller, payload))
    }
  }
  const byId = (f: (caller: CallerInfo, selection: any) => Effect.Effect<any, any, any>): Handler => ({ path, urlParams }) =>
    withCaller((caller) => f(caller, { ...urlParams, id: path.id }))
  const byQuery = (f: (caller: CallerInfo, selection: any) => Effect.Effect<any, any, any>): Handler => ({ urlParams }) =>
    withCaller((caller) => f(caller, urlParams))
  return {
    ...table,
    shopDetailExtraTotal: ({ payload }) => withCaller((caller) => detail.shopExtra(caller, payload)),
    shopDetailSalesStrategySelfPromotion: ({ payload }) => withCaller((caller) => detail.shopStrategy(caller, payload, true)),
    shopDetailSalesStrategyAffiliate: ({ payload }) => withCaller((caller) => detail.shopStrategy(caller, payload, false)),
    productDetailCreatorGetConversionRadio: ({ payload }) => withCaller((caller) => detail.conversion(caller, payload)),
    productDetails: byQuery((caller, selection) => detail.full("product-detail", caller, selection)),
    productDetailById: byId((caller, selection) => detail.full("product-detail", caller, selection)),
    categoriesHierarchy: ({ urlParams }) => withCaller((caller) => detail.hierarchy(caller, urlParams.country)),
    categoriesLayers: ({ urlParams }) => withCaller((caller) => detail.layers(caller, urlParams.country)),
    categoriesSummary: byQuery(detail.categorySummary),
    categoriesHistory: byQuery((caller, selection) => detail.series("categories", "history", caller, selection)),
    categoriesSiblings: byQuery(detail.siblings),
    shopsSummary: byQuery(detail.shopSummary),
    shopsDetails: byQuery((caller, selection) => detail.profile("shops", caller, selection)),
    shopDetails: byQuery((caller, selection) => detail.profile("shops", caller, selection)),
    products: byQuery(detail.products),
    productSalesChannel: byId(detail.salesChannels),
    video: byId((caller, selection) => detail.profile("videos", caller, selection)),
    videoMetrics: byId(detail.videoMetrics),
    videoHistory: byId((caller, selection) => detail.series("videos", "history", caller, selection)),
    videoProducts: byId((caller, selection) => detail.videoList(caller, selection, "products")),
    videoSimilar: byId((caller, selection) => detail.videoList(caller, selection, "similar")),
    creatorHistory: byId((caller, selection) => detail.series("creators", "history", caller, selection)),
    productOtherVisits: byQuery(detail.otherVisits),
    categoryVisitEvents: byQuery((caller, selection) => detail.visitEvents("categories", caller, selection)),
    detailVisitEvents: byQuery((caller, selection) => detail.visitEvents(entityOfVisit[selection.type as VisitType], caller, selection))
  }
}

/** Attaches each endpoint of a group to its handler in the table (a missing one fails at start-up). */
const attach = (handlers: AnyHandlers, names: ReadonlyArray<string>, table: Record<string, Handler>) =>
  names.reduce((acc: AnyHandlers, name) => {
    const handler = table[name]
    if (handler === undefined) throw new Error(`shopDetail: no handler for endpoint ${name}`)
    return acc.handle(name, handler)
  }, handlers)

export const ShopDetailLive = Metered.group(AdIntelApi, "shopDetail", (handlers) =>
  Effect.map(ShopDetail, (detail) => attach(handlers as AnyHandlers, endpointNamesOf(ShopDetailApi), handlersOf(detail)) as AllHandled<typeof handlers>))

export const ShopProductDetailLive = Metered.group(AdIntelApi, "shopProductDetail", (handlers) =>
  Effect.map(ShopDetail, (detail) =>
    attach(handlers as AnyHandlers, endpointNamesOf(ShopProductDetailApi), handlersOf(detail)) as AllHandled<typeof handlers>))
