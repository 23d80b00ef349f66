import { Effect } from "effect"
import type { AccountId } from "../../kernel/Ids.js"
import { type AccountEvent, AccountEventsRepo, type CreditUsage, type EventPosition, type KeyOrigin } from "./AccountEventsRepo.js"
import { type CommitPosition, type CommittedEvent, type NewEvent, OutboxRepo, type StoredEvent } from "./OutboxRepo.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

export type { AccountEvent, CommitPosition, CommittedEvent, CreditUsage, EventPosition, KeyOrigin, NewEvent, StoredEvent }

/**
 * What access tells the products above it about an account, without knowing them (issue 19):
 * access records events in its own tables as part of the change itself, and exposes them and the
 * meters' state here; a product (notifications, webhooks, the RPC event stream) reads them on its
 * own schedule. Nothing here runs on the metered path: the gateway's admission is untouched.
 *
 * The outbox (issue 32; INTERPRETATIONS H3) is the account's public event stream: a product
 * records an event with `emit` inside the transaction of the change that caused it.
 */
export class AccountEvents extends Effect.Service<AccountEvents>()("adintel/AccountEvents", {
  effect: Effect.gen(function*() {
    const repo = yield* AccountEventsRepo
    const outbox = yield* OutboxRepo
    return {
      /**
       * Records a key regeneration, and its `api_key.regenerated` event (call it inside the
       * transaction that replaces the key: both are kept or neither).
       */
      keyRegenerated: Effect.fn("AccountEvents.keyRegenerated", serviceSpan)((accountId: AccountId, origin: KeyOrigin, at: Date) =>
        Effect.zipRight(
          repo.keyRegenerated(accountId, origin, at),
          outbox.emit([{ accountId, type: "api_key.regenerated", data: { via: origin.via } }], at)
        )),
      /** Events that occurred at or after `from`, oldest first, paged by position. */
      since: Effect.fn("AccountEvents.since", serviceSpan)(repo.since),
      /** Accounts at or above `percent` % of their monthly credits in the current period, paged by account id. */
      creditUsage: Effect.fn("AccountEvents.creditUsage", serviceSpan)(repo.creditUsage),
      /** Records outbox events in one statement, in the caller's transaction when there is one. */
      emit: Effect.fn("AccountEvents.emit", serviceSpan)(outbox.emit),
      /** The same, as a part (`with e as (...)`) of the caller's statement that selects them. */
      emitFrom: outbox.insertFrom,
      /** The account's outbox events after stream position `seq`, oldest first. */
      eventsAfter: Effect.fn("AccountEvents.eventsAfter", serviceSpan)(outbox.after),
      /** The account's last outbox stream position (0 before its first event). */
      latestEvent: Effect.fn("AccountEvents.latestEvent", serviceSpan)(outbox.latest),
      /** Every account's outbox events of one type since an instant, after a commit position, in commit order (products turn them into items). */
      eventsOfType: Effect.fn("AccountEvents.eventsOfType", serviceSpan)(outbox.ofType),
      /** Forgets outbox events created before an instant, a bounded batch at a time. */
      pruneEvents: Effect.fn("AccountEvents.pruneEvents", serviceSpan)(outbox.prune)
      // `emitFrom` answers SQL to embed, not an effect to run: a span around it would bind it as a value.
    }
  }),
  dependencies: [AccountEventsRepo.Default, OutboxRepo.Default]
}) {}
