import { Effect } from "effect"
import { ShopFavoritesContract } from "./Api.js"
import { Caller } from "../../access/gateway/Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import { ShopFavorites } from "./ShopFavorites.js"

const fields = <A extends object>(fields: A) => ({ success: true as const, ...fields })
const favorited = <A>(favorited: A) => ({ success: true as const, favorited })

/** `/api/v1/clipapp-shop/favorites*`, and their legacy session paths (S4): the caller's own favorites. */
export const ShopFavoritesLive = serveGroup(ShopFavoritesContract, "shopFavorites", (handlers) =>
  Effect.map(ShopFavorites, (favorites) =>
    handlers
      .handle("list", ({ urlParams }) => Effect.map(Effect.flatMap(Caller, (c) => favorites.list(c.accountId, urlParams)), fields))
      .handle("toggle", ({ payload }) => Effect.map(Effect.flatMap(Caller, (c) => favorites.toggle(c.accountId, payload)), favorited))
      .handle("add", ({ payload }) => Effect.map(Effect.flatMap(Caller, (c) => favorites.add(c.accountId, payload)), favorited))
      .handle("remove", ({ payload }) => Effect.map(Effect.flatMap(Caller, (c) => favorites.remove(c.accountId, payload)), favorited))
      .handle("check", ({ payload }) => Effect.map(Effect.flatMap(Caller, (c) => favorites.check(c.accountId, payload)), favorited))))
