import { HttpApi, HttpApiClient, type HttpApiEndpoint, HttpClient, HttpClientRequest } from "@effect/platform"
import type { HttpMethod } from "@effect/platform/HttpMethod"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { AdIntelApi } from "../src/Api.js"
import { ShopApi } from "../src/shop/Api.js"
import { ShopDetailApi, ShopProductDetailApi } from "../src/shopDetail/Api.js"
import { ShopExploreApi } from "../src/shopExplore/Api.js"
import { loadSmallWorld, recordsOf, smallWorld, smallWorldServer, type WorldRecord } from "./support/AdWorld.js"
import { account, TestServer } from "./support/TestServer.js"

/** A record of each kind in the small world's US region. */
const first = (entity: keyof typeof smallWorld.records, keep: (r: WorldRecord) => boolean = () => true): WorldRecord =>
  recordsOf(entity).find((r) => r.region === "US" && keep(r))!
const ids: Record<"product" | "shop" | "creator" | "video" | "category", string> = {
  product: first("shop-products").external_id,
  shop: first("shop-shops").external_id,
  creator: first("shop-creators").external_id,
  video: first("shop-videos").external_id,
  category: first("shop-categories").external_id
}

/** The record a route is about, from its path. */
const recordOf = (path: string): string => {
  const route = path.replace("/api/v1/clipapp-shop/", "")
  if (/^(shop-detail|shops\/|shop-details)/.test(route)) return ids.shop
  if (/^(creator-detail|creators\/)/.test(route)) return ids.creator
  if (/^(product|products\/)/.test(route)) return ids.product
  if (/^videos\//.test(route)) return ids.video
  return ids.category
}

/** A valid request for an endpoint: the record in the path, the query string or the body. */
const requestOf = (endpoint: { readonly name: string; readonly path: string; readonly method: string }) => {
  const id = recordOf(endpoint.path)
  const needsId = !/(explore|count|hierarchy|layers|request-country|credits)$/.test(endpoint.path) && !endpoint.path.endsWith("clipapp-shop/products")
  if (endpoint.path.includes(":id")) return { path: { id }, urlParams: {} }
  if (endpoint.name === "detailVisitEvents") return { urlParams: { type: "product", id: ids.product } }
  if (endpoint.method === "POST") return { urlParams: {}, payload: needsId ? { id } : {} }
  return { urlParams: needsId ? { id } : {} }
}

/**
 * Every endpoint of the short-video shop groups, as the API describes itself. These groups are
 * built in loops, so their types know an endpoint only as "some endpoint": the test reaches each
 * one by name, as the handlers do.
 */
const shopGroups = new Set<string>([ShopApi, ShopExploreApi, ShopDetailApi, ShopProductDetailApi].map((group) => group.identifier))
const shopEndpoints: Array<{ readonly group: string; readonly endpoint: HttpApiEndpoint.HttpApiEndpoint<string, HttpMethod> }> = []
HttpApi.reflect(AdIntelApi, {
  predicate: ({ group }) => shopGroups.has(group.identifier),
  onGroup: () => {},
  onEndpoint: ({ group, endpoint }) => shopEndpoints.push({ group: group.identifier, endpoint })
})

/** A client method as the test calls it: with a request built for its endpoint. */
type Call = (request: unknown) => Effect.Effect<unknown, unknown>
const isCall = (method: unknown): method is Call => typeof method === "function"

describe("every short-video shop route through the client derived from the contract", () => {
  layer(
    smallWorldServer()
  )((it) => {
    it.effect("loads the small demo world", () => loadSmallWorld, { timeout: 60_000 })

    it.effect("answers each route with the shape its contract declares (the client decodes every answer)", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const { url } = yield* TestServer
        const client = yield* HttpApiClient.make(AdIntelApi, {
          baseUrl: url,
          transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("x-api-key", api_key))
        })
        const methods = new Map(Object.entries(client).map(([group, calls]) => [group, new Map<string, unknown>(Object.entries(calls))]))
        let called = 0
        for (const { group, endpoint } of shopEndpoints) {
          if (endpoint.name.startsWith("unknown")) continue // G9's wildcards
          const method = methods.get(group)?.get(endpoint.name)
          if (!isCall(method)) return yield* Effect.die(`the client has no method ${group}.${endpoint.name}`)
          const outcome = yield* Effect.either(method(requestOf(endpoint)))
          expect([endpoint.method, endpoint.path, outcome._tag, outcome._tag === "Left" ? String(outcome.left) : ""]).toEqual([
            endpoint.method,
            endpoint.path,
            "Right",
            ""
          ])
          called++
        }
        expect(called).toBeGreaterThan(70)
      }).pipe(Effect.provide(NodeHttpClient.layerUndici)), { timeout: 60_000 })
  })
})
