import { describe, expect, it } from "@effect/vitest"
import { Chunk, Context, Effect, Exit, Fiber, Layer, Option, Queue, Scope, Stream, TestClock } from "effect"
import { AccountEvents, type StoredEvent } from "../src/access/events/AccountEvents.js"
import { PlanRequired, Unauthorized } from "../src/access/gateway/Api.js"
import { Gateway } from "../src/access/gateway/Gateway.js"
import { AccountId } from "../src/kernel/Ids.js"
import { EventFeeds } from "../src/rpc/EventFeeds.js"
import { makeTestLayer } from "./support/TestLayer.js"

/**
 * The account feeds behind RPC `Events` (issue 44), on fakes of the outbox and the gateway: the
 * subject is the logic (one look per account per second however many streams, the wake-ups,
 * the re-check of each stream's key and plan), moved by the TestClock in milliseconds. The
 * route on the real server and PostgreSQL: test/rpcAbuse.test.ts.
 */

const alice = AccountId.make("00000000-0000-4000-8000-00000000000a")
const bob = AccountId.make("00000000-0000-4000-8000-00000000000b")

type Standing = "admitted" | "unauthorized" | "plan_required"

/** The fakes: an outbox per account, the reads of it counted by account, each charge's standing. */
const world = Effect.gen(function*() {
  const outbox = new Map<AccountId, Array<StoredEvent>>()
  const reads = new Map<AccountId, number>()
  const standings = new Map<string, Standing>()
  let seq = 0
  const emit = (accountId: AccountId) => {
    const event: StoredEvent = { seq: ++seq, id: `evt_${seq}`, account_id: accountId, type: "webhook.test", data: { n: seq }, created_at: new Date(0) }
    outbox.set(accountId, [...(outbox.get(accountId) ?? []), event])
    return event
  }
  const events = makeTestLayer(AccountEvents)({
    eventsAfter: (accountId, after, limit) =>
      Effect.sync(() => {
        reads.set(accountId, (reads.get(accountId) ?? 0) + 1)
        return (outbox.get(accountId) ?? []).filter((event) => event.seq > after).slice(0, limit)
      }),
    latestEvent: (accountId) => Effect.sync(() => outbox.get(accountId)?.at(-1)?.seq ?? 0)
  })
  const gateway = makeTestLayer(Gateway)({
    standings: (chargeIds) =>
      Effect.sync(() => new Map(chargeIds.map((id) => {
        const standing = standings.get(id) ?? "admitted"
        return [id, standing === "admitted" ? Option.none() : Option.some(standing === "unauthorized" ? new Unauthorized() : PlanRequired.forService("AdIntel"))] as const
      })))
  })
  const context = yield* Layer.build(EventFeeds.DefaultWithoutDependencies.pipe(Layer.provide([events, gateway])))
  return { feeds: Context.get(context, EventFeeds), emit, reads: (accountId: AccountId) => reads.get(accountId) ?? 0, standings }
})

/** A stream opened in its own scope, its events and its end gathered as they come. */
const open = (feeds: EventFeeds, accountId: AccountId, chargeId: string | null, after = 0) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const received = yield* Queue.unbounded<StoredEvent>()
    const stream = yield* Scope.extend(feeds.stream(accountId, chargeId, after), scope)
    const fiber = yield* Effect.forkIn(Stream.runForEach(stream, (event) => Queue.offer(received, event)), scope)
    return { scope, received, fiber }
  })

/** Lets every fiber that can run do so (the fakes answer at once). */
const settle = Effect.repeatN(Effect.yieldNow(), 20)

/** Moves the TestClock a second at a time, `n` times. */
const seconds = (n: number) => Effect.repeatN(Effect.zipRight(TestClock.adjust("1 second"), settle), n - 1)

describe("EventFeeds (RPC Events, issue 44)", () => {
  it.scoped("three streams of one account share one look a second; each reads again only when it is woken", () =>
    Effect.gen(function*() {
      const { emit, feeds, reads } = yield* world
      const streams = yield* Effect.all([open(feeds, alice, "1"), open(feeds, alice, "2"), open(feeds, alice, "3"), open(feeds, bob, "4")])
      yield* settle
      // Each stream's first read, then the first look of each account's feed, which wakes its streams once.
      yield* seconds(1)
      const afterFirst = reads(alice)
      expect(afterFirst).toBe(3 + 1 + 3)
      expect(yield* feeds.accounts).toBe(2)
      // Idle: one read a second for the account, whatever the number of its streams.
      yield* seconds(10)
      expect(reads(alice) - afterFirst).toBe(10)
      expect(reads(bob)).toBe(1 + 1 + 1 + 10)
      // A new event: every stream of the account gets it at the next look, bob's none.
      const event = emit(alice)
      yield* seconds(1)
      for (const { received } of streams.slice(0, 3)) expect(Chunk.toReadonlyArray(yield* Queue.takeAll(received))).toEqual([event])
      expect(yield* Queue.size(streams[3]!.received)).toBe(0)
      // The last stream of an account closed: its feed ends and reads no more.
      yield* Scope.close(streams[3]!.scope, Exit.void)
      yield* settle
      expect(yield* feeds.accounts).toBe(1)
      const bobReads = reads(bob)
      yield* seconds(5)
      expect(reads(bob)).toBe(bobReads)
      yield* Effect.forEach(streams.slice(0, 3), ({ scope }) => Scope.close(scope, Exit.void), { discard: true })
      yield* settle
      expect(yield* feeds.accounts).toBe(0)
    }))

  it.scoped("a stream from a position reads everything after it first, 100 at a time, as its consumer pulls", () =>
    Effect.gen(function*() {
      const { emit, feeds } = yield* world
      const earlier = Array.from({ length: 250 }, () => emit(alice))
      const scope = yield* Scope.make()
      const stream = yield* Scope.extend(feeds.stream(alice, "1", earlier[9]!.seq), scope)
      const read = yield* Stream.runCollect(Stream.take(stream, 240))
      expect(Chunk.toReadonlyArray(read)).toEqual(earlier.slice(10))
      yield* Scope.close(scope, Exit.void)
    }))

  it.scoped("a key revoked or regenerated ends its stream with Unauthorized at the next look, a plan lowered with PlanRequired; the account's other streams go on", () =>
    Effect.gen(function*() {
      const { emit, feeds, standings } = yield* world
      const [revoked, lowered, kept] = yield* Effect.all([open(feeds, alice, "1"), open(feeds, alice, "2"), open(feeds, alice, "3")])
      yield* seconds(1)
      standings.set("1", "unauthorized")
      standings.set("2", "plan_required")
      yield* seconds(1)
      expect(yield* Fiber.await(revoked.fiber)).toEqual(Exit.fail(new Unauthorized()))
      expect(yield* Fiber.await(lowered.fiber)).toEqual(Exit.fail(PlanRequired.forService("AdIntel")))
      const event = emit(alice)
      yield* seconds(1)
      expect(Chunk.toReadonlyArray(yield* Queue.takeAll(kept.received))).toEqual([event])
      expect(Option.isNone(yield* Fiber.poll(kept.fiber))).toBe(true)
      yield* Effect.forEach([revoked, lowered, kept], ({ scope }) => Scope.close(scope, Exit.void), { discard: true })
    }))

  it.scoped("a session's stream (no charge) is never re-checked, and is not ended by a key's standing", () =>
    Effect.gen(function*() {
      const { emit, feeds } = yield* world
      const session = yield* open(feeds, alice, null)
      yield* seconds(2)
      const event = emit(alice)
      yield* seconds(1)
      expect(Chunk.toReadonlyArray(yield* Queue.takeAll(session.received))).toEqual([event])
      yield* Scope.close(session.scope, Exit.void)
    }))
})
