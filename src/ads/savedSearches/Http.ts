import { Effect } from "effect"
import { Caller } from "../../access/gateway/Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import { SavedSearchesContract } from "./Api.js"
import { SavedSearches } from "./SavedSearches.js"

const fields = <A extends object>(fields: A) => ({ success: true as const, ...fields })

/** `/api/v1/saved-searches` and `/{id}`, `/{id}/matches`: the caller's own saved searches (H1). */
export const SavedSearchesLive = serveGroup(SavedSearchesContract, "savedSearches", (handlers) =>
  Effect.map(SavedSearches, (searches) =>
    handlers
      .handle("create", ({ payload }) => Effect.map(Effect.flatMap(Caller, (c) => searches.create(c, payload)), (saved_search) => fields({ saved_search })))
      .handle("list", ({ urlParams }) => Effect.map(Effect.flatMap(Caller, (c) => searches.list(c.accountId, urlParams)), fields))
      .handle("delete", ({ path }) => Effect.as(Effect.flatMap(Caller, (c) => searches.remove(c.accountId, path.id)), fields({})))
      .handle("matches", ({ path, urlParams }) => Effect.map(Effect.flatMap(Caller, (c) => searches.matches(c.accountId, path.id, urlParams)), fields))))
