import { Effect, Exit, Scope } from "effect"
import { AppConfig } from "../../platform/AppConfig.js"
import { rateLimitRefusals, record } from "../../platform/telemetry/Metrics.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"
import { TooManyInFlight } from "./Api.js"
import type { AccountId } from "../../kernel/Ids.js"

/**
 * Fair use of the database (issue 28): one account holds at most `MAX_CALLS_IN_FLIGHT` calls in
 * flight at once on a replica, keys and sessions alike, so no account can hold the connection
 * pool while others wait. A call past it waits up to `IN_FLIGHT_WAIT` for one of the account's
 * calls to end, then is refused (429, `Retry-After`). Per replica: each holds its own pool.
 * Its open RPC streams are counted apart (`openStream`).
 */
export class InFlight extends Effect.Service<InFlight>()("adintel/InFlight", {
  effect: Effect.gen(function*() {
    const { inFlightWait, maxCallsInFlight, maxStreamsPerAccount } = yield* AppConfig
    /** The accounts with calls in flight or waiting: an entry goes with its last user. */
    const accounts = new Map<AccountId, { readonly semaphore: Effect.Semaphore; users: number }>()
    /** The accounts' open streams, by account: an entry goes with its last stream. */
    const streams = new Map<AccountId, number>()

    const enter = (accountId: AccountId) =>
      Effect.gen(function*() {
        const existing = accounts.get(accountId)
        const entry = existing ?? { semaphore: yield* Effect.makeSemaphore(maxCallsInFlight), users: 0 }
        if (existing === undefined) accounts.set(accountId, entry)
        entry.users++
        return entry
      })
    const leave = (accountId: AccountId, entry: { users: number }) =>
      Effect.sync(() => {
        if (--entry.users === 0) accounts.delete(accountId)
      })

    // `take` is on the path of every metered call, as the gateway's methods are: its span shows
    // how long a call waited for a slot.
    const span = serviceSpan
    return {
      max: maxCallsInFlight,
      /** How many accounts have calls in flight or waiting: the map holds no other. */
      accounts: Effect.withSpan(Effect.sync(() => accounts.size), "InFlight.accounts", span),
      /** An account's calls in flight or waiting for a slot. */
      users: Effect.fn("InFlight.users", span)((accountId: AccountId) => Effect.sync(() => accounts.get(accountId)?.users ?? 0)),
      /** An account's open streams. */
      streams: Effect.fn("InFlight.streams", span)((accountId: AccountId) => Effect.sync(() => streams.get(accountId) ?? 0)),
      /**
       * One of the account's slots, held until the scope (the request's) closes; refused with
       * `TooManyInFlight` once `IN_FLIGHT_WAIT` passes without one.
       */
      take: Effect.fn("InFlight.take", span)((accountId: AccountId): Effect.Effect<void, TooManyInFlight, Scope.Scope> =>
        // The wait is interruptible (its timeout interrupts it; so does a client that goes away);
        // a slot taken is released with the scope, whatever happens after.
        Effect.uninterruptibleMask((restore) =>
          Effect.gen(function*() {
            const entry = yield* enter(accountId)
            const taken = yield* Effect.exit(restore(entry.semaphore.take(1).pipe(
              Effect.timeoutFail({ duration: inFlightWait, onTimeout: () => TooManyInFlight.atMost(maxCallsInFlight) })
            )))
            if (Exit.isFailure(taken)) {
              yield* record(rateLimitRefusals, 1, { limit: "in_flight" })
              yield* leave(accountId, entry)
              return yield* taken
            }
            // On the scope itself (not `Effect.addFinalizer`, which diffs every fiber ref around it).
            yield* Scope.addFinalizer(yield* Effect.scope, Effect.zipRight(entry.semaphore.release(1), leave(accountId, entry)))
          })
        )),
      /**
       * One of the account's open streams (RPC `Events`, issue 44), held until the scope (the
       * stream's) closes: a stream waits more than it reads, so it takes no slot of the calls in
       * flight but one of `MAX_STREAMS_PER_ACCOUNT`, refused at once with `TooManyInFlight`
       * past them (a stream does not end soon enough to wait for).
       */
      openStream: Effect.fn("InFlight.openStream", span)((accountId: AccountId): Effect.Effect<void, TooManyInFlight, Scope.Scope> =>
        Effect.uninterruptible(Effect.gen(function*() {
          const open = streams.get(accountId) ?? 0
          if (open >= maxStreamsPerAccount) {
            yield* record(rateLimitRefusals, 1, { limit: "streams" })
            return yield* TooManyInFlight.atMost(maxStreamsPerAccount)
          }
          streams.set(accountId, open + 1)
          yield* Scope.addFinalizer(yield* Effect.scope, Effect.sync(() => {
            const left = (streams.get(accountId) ?? 1) - 1
            if (left === 0) streams.delete(accountId)
            else streams.set(accountId, left)
          }))
        })))
    }
  })
}) {}
