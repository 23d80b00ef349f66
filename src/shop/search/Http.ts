import { Effect } from "effect"
import { ShopSearchContract } from "./Api.js"
import { Caller } from "../../access/gateway/Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import { ShopSearch } from "./ShopSearch.js"

/** `/api/v1/clipapp-shop/{trending,search,suggestions}` and their legacy session paths (S4). */
export const ShopSearchLive = serveGroup(ShopSearchContract, "shopSearch", (handlers) =>
  Effect.map(ShopSearch, (search) =>
    handlers
      .handle("trending", ({ urlParams }) => Effect.flatMap(Caller, (c) => search.trending(c.accountId, urlParams)))
      .handle("search", ({ urlParams }) => Effect.flatMap(Caller, (c) => search.search(c.accountId, urlParams)))
      .handle("suggestions", ({ urlParams }) => Effect.flatMap(Caller, (c) => search.suggestions(c.accountId, urlParams)))))
