import type { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AdIntelApi } from "../Api.js"
import { Caller } from "../gateway/Api.js"
import * as Metered from "../gateway/Http.js"
import { endpointNames } from "./Api.js"
import { shopEntities } from "./Entities.js"
import { ShopExplore } from "./ShopExplore.js"

type AnyHandlers = HttpApiBuilder.Handlers<any, any, any, any>
/** The same handlers with every endpoint handled. */
type AllHandled<H> = H extends HttpApiBuilder.Handlers<infer E, infer P, infer R, any> ? HttpApiBuilder.Handlers<E, P, R, never> : never

/** Every entity's four endpoints, handled by the one engine (the group is built in a loop too). */
export const ShopExploreLive = Metered.group(AdIntelApi, "shopExplore", (handlers) =>
  Effect.map(ShopExplore, (explore) =>
    shopEntities.reduce((acc: AnyHandlers, entity) => {
      const names = endpointNames(entity)
      return acc
        .handle(names.explore, ({ urlParams }: any) => Effect.flatMap(Caller, (caller) => explore.explore(entity, caller, urlParams)))
        .handle(names.explorePost, ({ payload, urlParams }: any) =>
          Effect.flatMap(Caller, (caller) => explore.explore(entity, caller, urlParams, payload)))
        .handle(names.count, ({ urlParams }: any) => Effect.flatMap(Caller, (caller) => explore.count(entity, caller, urlParams)))
        .handle(names.countPost, ({ payload, urlParams }: any) =>
          Effect.flatMap(Caller, (caller) => explore.count(entity, caller, urlParams, payload)))
    }, handlers as AnyHandlers) as AllHandled<typeof handlers>))
