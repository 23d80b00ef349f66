import { Effect } from "effect"
import { Caller } from "../../access/gateway/Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import { LandersContract } from "./Api.js"
import { Landers } from "./Landers.js"

const fields = <A extends object>(fields: A) => ({ success: true as const, ...fields })
const favorited = (favorited: boolean) => ({ success: true as const, favorited })

/** `/api/v1/landers/explore` and the caller's favorite landers. */
export const LandersLive = serveGroup(LandersContract, "landers", (handlers) =>
  Effect.map(Landers, (landers) =>
    handlers
      .handle("explore", ({ payload }) => Effect.map(landers.explore(payload), fields))
      .handle("favorites", ({ urlParams }) => Effect.map(Effect.flatMap(Caller, (c) => landers.favorites(c.accountId, urlParams)), fields))
      .handle("toggle", ({ payload }) => Effect.map(Effect.flatMap(Caller, (c) => landers.toggle(c.accountId, payload)), favorited))))
