import { Effect } from "effect"
import { type Page, pageOf, windowOf } from "../../kernel/Paging.js"
import type { MarkRead, Notification, NotificationsQuery } from "./Api.js"
import { type Delivery, InboxRepo } from "./InboxRepo.js"
import type { AccountId } from "../../kernel/Ids.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"
import { now } from "../../kernel/UtcDay.js"

export type { Delivery }

/** The brand digest items an account keeps: the newest ones (a digest writes one per brand). */
export const maxDigestItems = 500
/** Older items are dropped, whatever their type. */
export const retentionDays = 365

/**
 * The inbox (issue 19; W5): an account reads and marks its own items; the sources (digests,
 * credit and key alerts) deliver into it, each item once per key.
 */
export class Inbox extends Effect.Service<Inbox>()("adintel/Inbox", {
  effect: Effect.gen(function*() {
    const repo = yield* InboxRepo
    const fresh = (items: ReadonlyArray<Delivery>): Effect.Effect<ReadonlyArray<Delivery>> =>
      Effect.flatMap(now, (at) => repo.deliver(items, { maxDigestItems, before: new Date(at.getTime() - retentionDays * 86_400_000) }))

    return {
      /** P2 page of the account's items, newest first. */
      list: Effect.fn("Inbox.list", serviceSpan)((account: AccountId, query: NotificationsQuery): Effect.Effect<Page<Notification>> => {
        const window = windowOf(query)
        return Effect.map(repo.page(account, query.unread === true, window), ({ items, total }) => pageOf(window, items, total))
      }),

      unreadCount: Effect.fn("Inbox.unreadCount", serviceSpan)((account: AccountId): Effect.Effect<number> => repo.unread(account)),

      /** W5: ids of other accounts (or of none) are ignored, never an error that reveals them. */
      markRead: Effect.fn("Inbox.markRead", serviceSpan)((account: AccountId, { ids }: MarkRead): Effect.Effect<number> =>
        Effect.flatMap(now, (at) => repo.markRead(account, [...new Set(ids.map((id) => id.toLowerCase()))], at))),

      markAllRead: Effect.fn("Inbox.markAllRead", serviceSpan)((account: AccountId): Effect.Effect<number> => Effect.flatMap(now, (at) => repo.markAllRead(account, at))),

      /**
       * Writes what the sources found; an item whose key the account already has is left out.
       * How many were new. Joins the caller's transaction when there is one.
       */
      deliver: Effect.fn("Inbox.deliver", serviceSpan)((items: ReadonlyArray<Delivery>): Effect.Effect<number> =>
        Effect.map(fresh(items), (delivered) => delivered.length)),

      /** The same, answering the items that were new (a source that also records an event for each, once). */
      deliverFresh: Effect.fn("Inbox.deliverFresh", serviceSpan)(fresh)
    }
  }),
  dependencies: [InboxRepo.Default]
}) {}
