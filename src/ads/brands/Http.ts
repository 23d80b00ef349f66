import { Effect } from "effect"
import { Caller } from "../../access/gateway/Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import { BrandTrackerContract } from "./Api.js"
import { BrandTracker } from "./BrandTracker.js"

const fields = <A extends object>(fields: A) => ({ success: true as const, ...fields })

/** `/api/v1/brands`, `follow`, `unfollow`, `ads`, and their legacy session paths (S4, S5): the caller's own brands. */
export const BrandTrackerLive = serveGroup(BrandTrackerContract, "brandTracker", (handlers) =>
  Effect.map(BrandTracker, (brands) =>
    handlers
      .handle("list", ({ urlParams }) => Effect.map(Effect.flatMap(Caller, (c) => brands.list(c.accountId, urlParams)), fields))
      .handle("follow", ({ payload }) => Effect.map(Effect.flatMap(Caller, (c) => brands.follow(c, payload.id)), (brand) => fields({ brand })))
      .handle("unfollow", ({ payload }) => Effect.as(Effect.flatMap(Caller, (c) => brands.unfollow(c.accountId, payload.id)), fields({})))
      .handle("ads", ({ urlParams }) => Effect.map(brands.ads(urlParams), fields))))
