import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { AdIntelApi } from "../src/Api.js"
import { ShopApi } from "../src/shop/Api.js"
import { ShopDetailApi, ShopProductDetailApi } from "../src/shopDetail/Api.js"
import { ShopExploreApi } from "../src/shopExplore/Api.js"
import { loadSmallWorld, smallWorld, smallWorldServer } from "./support/AdWorld.js"
import { account, TestServer } from "./support/TestServer.js"

/** A record of each kind in the small world's US region. */
type Rec = Record<string, any>
const first = (entity: string, keep: (r: Rec) => boolean = () => true) =>
  (Array.from(smallWorld.records[entity as keyof typeof smallWorld.records]()) as Array<Rec>).find((r) => r.region === "US" && keep(r))!
const ids = {
  product: first("shop-products").external_id as string,
  shop: first("shop-shops").external_id as string,
  creator: first("shop-creators").external_id as string,
  video: first("shop-videos").external_id as string,
  category: first("shop-categories").external_id as string
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

type Call = (request: unknown) => Effect.Effect<unknown, unknown>

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
        const groups = [ShopApi, ShopExploreApi, ShopDetailApi, ShopProductDetailApi]
        let called = 0
        for (const group of groups) {
          // These groups are built in loops: their endpoints (and so the client's methods) are
          // typed as "some endpoint"; the test reaches them by name, as the handlers do.
          const methods = (client as unknown as Record<string, Record<string, Call>>)[group.identifier]!
          for (const endpoint of Object.values(group.endpoints) as unknown as Array<{ name: string; path: string; method: string }>) {
            if (endpoint.name.startsWith("unknown")) continue // G9's wildcards
            const request = requestOf(endpoint)
            const outcome = yield* Effect.either(methods[endpoint.name]!(request))
            expect([endpoint.method, endpoint.path, outcome._tag, outcome._tag === "Left" ? String(outcome.left) : ""]).toEqual([
              endpoint.method,
              endpoint.path,
              "Right",
              ""
            ])
            called++
          }
        }
        expect(called).toBeGreaterThan(70)
      }).pipe(Effect.provide(NodeHttpClient.layerUndici)), { timeout: 60_000 })
  })
})
