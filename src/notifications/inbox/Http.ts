import { Effect } from "effect"
import { Caller } from "../../access/gateway/Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import { NotificationsContract } from "./Api.js"
import { Inbox } from "./Inbox.js"

const fields = <A extends object>(fields: A) => ({ success: true as const, ...fields })

/** `/api/v1/notifications*`: the caller's own inbox. */
export const NotificationsLive = serveGroup(NotificationsContract, "notifications", (handlers) =>
  Effect.map(Inbox, (inbox) =>
    handlers
      .handle("list", ({ urlParams }) => Effect.map(Effect.flatMap(Caller, (c) => inbox.list(c.accountId, urlParams)), fields))
      .handle("unreadCount", () => Effect.map(Effect.flatMap(Caller, (c) => inbox.unreadCount(c.accountId)), (count) => fields({ count })))
      .handle("markRead", ({ payload }) =>
        Effect.map(Effect.flatMap(Caller, (c) => inbox.markRead(c.accountId, payload)), (updated) => fields({ updated })))
      .handle("markAllRead", () => Effect.map(Effect.flatMap(Caller, (c) => inbox.markAllRead(c.accountId)), (updated) => fields({ updated })))))
