import { Effect } from "effect"
import { Caller } from "../../access/gateway/Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import { Workspace } from "../workspace/Workspace.js"
import { SavedAdsContract } from "./Api.js"

const done = { success: true as const }
const fields = <A extends object>(fields: A) => ({ success: true as const, ...fields })
const account = Effect.map(Caller, (caller) => caller.accountId)

/** `/api/v1/saved-ads`, `save`, `unsave`, `annotate`: the caller's own saved ads. */
export const SavedAdsLive = serveGroup(SavedAdsContract, "savedAds", (handlers) =>
  Effect.map(Workspace, (workspace) =>
    handlers
      .handle("list", ({ urlParams }) => Effect.map(Effect.flatMap(account, (a) => workspace.savedAds(a, urlParams)), fields))
      .handle("save", ({ payload }) => Effect.as(Effect.flatMap(account, (a) => workspace.save(a, payload)), done))
      .handle("unsave", ({ payload }) => Effect.as(Effect.flatMap(account, (a) => workspace.unsave(a, payload)), done))
      .handle("annotate", ({ payload }) => Effect.map(Effect.flatMap(account, (a) => workspace.annotate(a, payload)), (data) => fields({ data })))))
