import { Effect } from "effect"
import { AdIntelApi } from "../Api.js"
import { Caller } from "../gateway/Api.js"
import * as Metered from "../gateway/Http.js"
import { pathOf } from "../gateway/Http.js"
import { UnknownShopEndpoint } from "./Api.js"
import { SearchQuota } from "./SearchQuota.js"

const unknown = ({ request }: { readonly request: { readonly method: string; readonly url: string } }) =>
  Effect.fail(UnknownShopEndpoint.of(request.method, pathOf(request.url)))

export const ShopLive = Metered.group(AdIntelApi, "shop", (handlers) =>
  Effect.gen(function*() {
    const quota = yield* SearchQuota
    return handlers
      .handle("credits", () => Effect.map(Caller, quota.balance))
      .handle("unknownGet", unknown)
      .handle("unknownPost", unknown)
      .handle("unknownPut", unknown)
      .handle("unknownPatch", unknown)
      .handle("unknownDelete", unknown)
  }))
