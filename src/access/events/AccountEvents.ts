import { Effect } from "effect"
import { type AccountEvent, AccountEventsRepo, type CreditUsage, type EventPosition, type KeyOrigin } from "./AccountEventsRepo.js"
import { traced } from "../../platform/telemetry/Tracing.js"

export type { AccountEvent, CreditUsage, EventPosition, KeyOrigin }

/**
 * What access tells the products above it about an account, without knowing them (issue 19):
 * access records events in its own table as part of the change itself, and exposes them and the
 * meters' state here; a product (notifications) reads them on its own schedule. Nothing here
 * runs on the metered path: the gateway's admission is untouched.
 */
export class AccountEvents extends Effect.Service<AccountEvents>()("adintel/AccountEvents", {
  effect: Effect.map(AccountEventsRepo, (repo) => traced("AccountEvents", {
    /** Records a key regeneration (call it inside the transaction that replaces the key). */
    keyRegenerated: repo.keyRegenerated,
    /** Events that occurred at or after `from`, oldest first, paged by position. */
    since: repo.since,
    /** Accounts at or above `percent` % of their monthly credits in the current period, paged by account id. */
    creditUsage: repo.creditUsage
  })),
  dependencies: [AccountEventsRepo.Default]
}) {}
