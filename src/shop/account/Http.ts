import type { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { ShopAccountContract } from "./Api.js"
import { Caller } from "../../access/gateway/Api.js"
import { pathOf, serveGroup } from "../../access/gateway/Http.js"
import { UnknownShopEndpoint, unknownPathNames } from "./Api.js"
import { handleAll } from "../../kernel/Handlers.js"
import { SearchQuota } from "./SearchQuota.js"
import { ShopCountry } from "./ShopCountry.js"

/** G9: every wildcard endpoint answers the same way, naming the method and the path. */
const unknownPath = () => ({ request }: { readonly request: HttpServerRequest.HttpServerRequest }) =>
  Effect.fail(UnknownShopEndpoint.of(request.method, pathOf(request.url)))

export const ShopLive = serveGroup(ShopAccountContract, "shop", (handlers) =>
  Effect.gen(function*() {
    const quota = yield* SearchQuota
    const countries = yield* ShopCountry
    return handleAll(handlers, unknownPathNames, unknownPath)
      .handle("credits", () => Effect.map(Caller, quota.balance))
      .handle("requestCountry", ({ payload }) =>
        Effect.flatMap(Caller, (caller) =>
          Effect.map(countries.request(caller.accountId, payload.country), (country) => ({ success: true as const, country }))))
  }))
