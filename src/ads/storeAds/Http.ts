import { Effect } from "effect"
import { StoreAdsContract } from "./Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import { StoreAds } from "./StoreAds.js"

const data = <A>(data: A) => ({ success: true as const, data })
const fields = <A extends object>(fields: A) => ({ success: true as const, ...fields })

/** `/api/v1/store/search-ads` and its sub-routes. */
export const StoreAdsLive = serveGroup(StoreAdsContract, "storeAds", (handlers) =>
  Effect.map(StoreAds, (store) =>
    handlers
      .handle("list", ({ urlParams }) => Effect.map(store.list(urlParams), fields))
      .handle("count", ({ urlParams }) => Effect.map(store.count(urlParams), fields))
      .handle("detail", ({ urlParams }) => Effect.map(store.detail(urlParams), data))
      .handle("overview", ({ urlParams }) => Effect.map(store.overview(urlParams), fields))
      .handle("advertiser", ({ urlParams }) => Effect.map(store.advertisers(urlParams), data))
      .handle("creative", ({ urlParams }) => Effect.map(store.creative(urlParams), data))))
