import type { HttpApiBuilder, HttpApiEndpoint, HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { AdIntelApi } from "../Api.js"
import { Caller } from "../gateway/Api.js"
import * as Metered from "../gateway/Http.js"
import { pathOf } from "../gateway/Http.js"
import { type UnknownPath, UnknownShopEndpoint, unknownPathNames } from "./Api.js"
import { SearchQuota } from "./SearchQuota.js"
import { ShopCountry } from "./ShopCountry.js"

const unknownPath = ({ request }: { readonly request: HttpServerRequest.HttpServerRequest }) =>
  Effect.fail(UnknownShopEndpoint.of(request.method, pathOf(request.url)))

/** G9: every wildcard endpoint answers the same way, naming the method and the path. */
const handleUnknownPaths = <E, P, R, Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any>(
  handlers: HttpApiBuilder.Handlers<E, P, R, Endpoints>
): HttpApiBuilder.Handlers<E, P, R, Exclude<Endpoints, UnknownPath>> =>
  // The names are a runtime list of the endpoints `UnknownPath` types; `handle` cannot be
  // typed across a loop.
  unknownPathNames.reduce((acc: any, name) => acc.handle(name, unknownPath), handlers)

export const ShopLive = Metered.group(AdIntelApi, "shop", (handlers) =>
  Effect.gen(function*() {
    const quota = yield* SearchQuota
    const countries = yield* ShopCountry
    return handleUnknownPaths(handlers)
      .handle("credits", () => Effect.map(Caller, quota.balance))
      .handle("requestCountry", ({ payload }) =>
        Effect.flatMap(Caller, (caller) =>
          Effect.map(countries.request(caller.accountId, payload.country), (country) => ({ success: true as const, country }))))
  }))
