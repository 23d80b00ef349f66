import { Effect } from "effect"
import { ShopExploreContract } from "./Api.js"
import { Caller } from "../../access/gateway/Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import { type ExploreParams, shopEntities, type ShopEntity } from "../catalog/Entities.js"
import { handleAll } from "../../kernel/Handlers.js"
import { ShopExplore } from "./ShopExplore.js"

/** What a GET or POST form of a route carries: the query string, and the body (P3). */
interface ExploreRequest {
  readonly urlParams: ExploreParams
  readonly payload?: ExploreParams
}

/** Every entity's count, by its two endpoints' names. */
const counts = shopEntities.flatMap((entity) => [[`${entity}Count`, entity], [`${entity}CountPost`, entity]] as const)
const countNames = counts.map(([name]) => name)
const entityOfCount = new Map<string, ShopEntity>(counts)

/** Every entity's endpoints, handled by the one engine: its explore pages by entity (their answers differ), every count alike. */
export const ShopExploreLive = serveGroup(ShopExploreContract, "shopExplore", (handlers) =>
  Effect.map(ShopExplore, (explore) => {
    /** An entity's explore pages, GET and POST: the names, and their handler. */
    const pages = <E extends ShopEntity>(entity: E) =>
      [
        [`${entity}Explore`, `${entity}ExplorePost`],
        () => ({ payload, urlParams }: ExploreRequest) => Effect.flatMap(Caller, (caller) => explore.explore(entity, caller, urlParams, payload))
      ] as const
    return handlers.pipe(
      (h) => handleAll(h, ...pages("categories")),
      (h) => handleAll(h, ...pages("shops")),
      (h) => handleAll(h, ...pages("creators")),
      (h) => handleAll(h, ...pages("videos")),
      (h) => handleAll(h, ...pages("products")),
      (h) =>
        handleAll(h, countNames, (name) => ({ payload, urlParams }: ExploreRequest) =>
          Effect.flatMap(Caller, (caller) => explore.count(entityOfCount.get(name)!, caller, urlParams, payload)))
    )
  }))
