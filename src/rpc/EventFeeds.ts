import { Chunk, Deferred, Duration, Effect, Fiber, Option, Scope, Stream } from "effect"
import { AccountEvents, type StoredEvent } from "../access/events/AccountEvents.js"
import type { PlanRequired, Unauthorized } from "../access/gateway/Api.js"
import { Gateway } from "../access/gateway/Gateway.js"
import type { AccountId } from "../kernel/Ids.js"
import { serviceSpan } from "../platform/telemetry/Tracing.js"

/**
 * The account event streams of RPC `Events` (issue 44): one feed per account with open streams,
 * shared by all of them. Each `pollEvery` the feed runs one query for the account's new events
 * and one for the standing of every stream's key and plan, however many streams are open:
 * - new events wake the account's streams, each of which reads its own events after its own
 *   position (in the outbox's commit order, as `after_seq` resumes), only when its client pulls
 *   for more: a stream keeps no queue, whatever its client reads;
 * - a stream whose key was revoked or regenerated, or whose account's plan no longer has API
 *   access, ends with `Unauthorized` or `PlanRequired`, as an export's next page is refused.
 * A feed ends with its account's last stream.
 */

/** How often a feed looks for new events and re-checks its streams' keys and plans. */
export const pollEvery = Duration.seconds(1)
/** The most events a stream reads at a time. */
export const readBatch = 100

type Refusal = Unauthorized | PlanRequired

interface Listener {
  /** The stream's charge (its key and plan), none for a session's. */
  readonly chargeId: string | null
  readonly refused: Deferred.Deferred<never, Refusal>
}

interface Feed {
  readonly listeners: Set<Listener>
  /** Completed, and replaced, when the feed finds new events. */
  next: Deferred.Deferred<void>
  fiber: Option.Option<Fiber.RuntimeFiber<unknown>>
}

export class EventFeeds extends Effect.Service<EventFeeds>()("adintel/EventFeeds", {
  effect: Effect.gen(function*() {
    const events = yield* AccountEvents
    const gateway = yield* Gateway
    const feeds = new Map<AccountId, Feed>()

    /** One look: the streams' standings, then the account's events after `cursor`; the new cursor. */
    const look = (accountId: AccountId, feed: Feed, cursor: number, first: boolean) =>
      Effect.gen(function*() {
        const charged = [...feed.listeners].filter((listener) => listener.chargeId !== null)
        const standings = yield* gateway.standings(charged.map((listener) => listener.chargeId!))
        for (const listener of charged) {
          const refusal = standings.get(listener.chargeId!) ?? Option.none()
          if (Option.isSome(refusal)) yield* Deferred.fail(listener.refused, refusal.value)
        }
        const batch = yield* events.eventsAfter(accountId, cursor, readBatch)
        // The first look wakes every stream: one may have read before the feed knew where to start.
        if (batch.length > 0 || first) {
          const woken = feed.next
          feed.next = yield* Deferred.make<void>()
          yield* Deferred.succeed(woken, undefined)
        }
        return batch.length > 0 ? batch[batch.length - 1]!.seq : cursor
      })

    const run = (accountId: AccountId, feed: Feed) =>
      Effect.gen(function*() {
        let cursor = yield* events.latestEvent(accountId)
        for (let first = true; ; first = false) {
          yield* Effect.sleep(pollEvery)
          cursor = yield* look(accountId, feed, cursor, first)
        }
      })

    const join = (accountId: AccountId, listener: Listener) =>
      Effect.gen(function*() {
        const existing = feeds.get(accountId)
        if (existing !== undefined) {
          existing.listeners.add(listener)
          return existing
        }
        const feed: Feed = { listeners: new Set([listener]), next: yield* Deferred.make<void>(), fiber: Option.none() }
        feeds.set(accountId, feed)
        // (Interruptible: joining is not, and a fork inherits that; `leave` interrupts it.)
        feed.fiber = Option.some(yield* Effect.forkDaemon(Effect.interruptible(run(accountId, feed))))
        return feed
      })

    const leave = (accountId: AccountId, feed: Feed, listener: Listener) =>
      Effect.suspend(() => {
        feed.listeners.delete(listener)
        if (feed.listeners.size > 0 || feeds.get(accountId) !== feed) return Effect.void
        feeds.delete(accountId)
        return Option.match(feed.fiber, { onNone: () => Effect.void, onSome: Fiber.interruptFork })
      })

    return {
      /** How many accounts have a feed (open streams) on this replica. */
      accounts: Effect.sync(() => feeds.size),
      /**
       * The account's events after position `after` (in commit order), for as long as the scope
       * lasts, read only as its consumer pulls; ended by the refusal its charge's key or plan
       * would now meet.
       */
      stream: Effect.fn("EventFeeds.stream", serviceSpan)(function*(accountId: AccountId, chargeId: string | null, after: number) {
        const listener: Listener = { chargeId, refused: yield* Deferred.make<never, Refusal>() }
        const feed = yield* Effect.uninterruptible(Effect.tap(join(accountId, listener), (feed) =>
          Effect.flatMap(Effect.scope, (scope) => Scope.addFinalizer(scope, leave(accountId, feed, listener)))))
        let cursor = after
        const pull: Effect.Effect<Chunk.Chunk<StoredEvent>, Refusal> = Effect.gen(function*() {
          for (;;) {
            const refusal = yield* Deferred.poll(listener.refused)
            if (Option.isSome(refusal)) return yield* refusal.value
            const next = feed.next
            const batch = yield* events.eventsAfter(accountId, cursor, readBatch)
            if (batch.length > 0) {
              cursor = batch[batch.length - 1]!.seq
              return Chunk.fromIterable(batch)
            }
            yield* Effect.raceFirst(Deferred.await(next), Deferred.await(listener.refused))
          }
        })
        return Stream.repeatEffectChunk(pull)
      })
    }
  }),
  dependencies: [AccountEvents.Default, Gateway.Default]
}) {}
