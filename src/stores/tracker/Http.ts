import { Effect } from "effect"
import { Caller } from "../../access/gateway/Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import { mediaBase } from "../media/MediaBase.js"
import { StoreTrackerContract } from "./Api.js"
import { StoreTracker } from "./StoreTracker.js"

const fields = <A extends object>(fields: A) => ({ success: true as const, ...fields })

/** `/api/v1/store-tracker*` and their alias `/api/store-tracker*` (S3): the caller's own tracker. */
export const StoreTrackerLive = serveGroup(StoreTrackerContract, "storeTracker", (handlers) =>
  Effect.map(StoreTracker, (tracker) =>
    handlers
      .handle("status", () => Effect.map(Effect.flatMap(Caller, (c) => tracker.status(c.accountId, c.plan)), fields))
      .handle("track", ({ payload }) =>
        Effect.map(Effect.flatMap(Effect.zip(Caller, mediaBase), ([c, base]) => tracker.track(c.accountId, c.plan, payload, base)), fields))
      .handle("untrack", ({ payload }) => Effect.map(Effect.flatMap(Caller, (c) => tracker.untrack(c.accountId, c.plan, payload)), fields))
      .handle("stores", ({ urlParams }) =>
        Effect.map(Effect.flatMap(Effect.zip(Caller, mediaBase), ([c, base]) => tracker.stores(c.accountId, urlParams, base)), fields))))
