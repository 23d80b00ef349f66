import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Layer, Option, Queue, Scope, Stream, TestClock } from "effect"
import { AccountEvents } from "../src/access/events/AccountEvents.js"
import { Accounts } from "../src/access/accounts/Accounts.js"
import { InFlight } from "../src/access/gateway/InFlight.js"
import { TooManyInFlight, type StreamedEvent } from "../src/rpc.js"
import { clientFor, eventually, takeAdvancing } from "./support/RpcCalls.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, balanceOf, call, testServer } from "./support/TestServer.js"

/**
 * RPC `Events` under abuse (issue 44) on the real server and PostgreSQL: a cap on an account's
 * open streams, a lifetime, the opening credit kept once the stream is open, and a stream that
 * ends when its key or plan would no longer be admitted. The feeds' logic on fakes:
 * test/eventFeeds.test.ts.
 */

/** An `Events` stream of `key` in a scope of its own, its events queued as they come. */
const openEvents = (key: string, after_seq?: number) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const client = yield* Scope.extend(clientFor(key), scope)
    const received = yield* Queue.unbounded<StreamedEvent>()
    const stream = client.Events(after_seq === undefined ? {} : { after_seq })
    const fiber = yield* Effect.forkIn(Stream.runForEach(stream, (event) => Queue.offer(received, event)), scope)
    return { scope, received, fiber }
  })

/** The account's `Events` charges the ledger has completed, and how. */
const completedOpenings = (accountId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ status: number }>`select status from request_ledger
                             where account_id = ${accountId}::uuid and route = '/rpc/Events' and completed_at is not null and refunded_at is null`)

/** Moves the TestClock a second at a time until `fiber` ends (at most a minute of it). */
const endOf = <A, E>(fiber: Fiber.RuntimeFiber<A, E>) =>
  Effect.gen(function*() {
    for (let seconds = 0; seconds < 60 && Option.isNone(yield* Fiber.poll(fiber)); seconds++) {
      yield* TestClock.adjust("1 second")
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
    }
    return yield* Fiber.await(fiber)
  })

describe("RPC Events under abuse (issue 44)", () => {
  const server = testServer({ config: { maxStreamsPerAccount: 2, streamMaxLifetime: Duration.minutes(1) } })
  layer(AccountEvents.Default.pipe(Layer.provideMerge(server), Layer.provideMerge(TestDatabase)), { timeout: 60_000 })((it) => {
    it.scoped("past MAX_STREAMS_PER_ACCOUNT (2): TooManyInFlight at once, its credit back; the open ones' credits are kept from their opening; a closed one frees its place", () =>
      Effect.gen(function*() {
        const inFlight = yield* InFlight
        const { api_key, id } = yield* account({ plan: "pro" })
        const first = yield* openEvents(api_key)
        const second = yield* openEvents(api_key)
        yield* eventually(inFlight.streams(id), (open) => open === 2)
        // Kept at once: completed as answered while the streams are still open.
        expect(yield* eventually(completedOpenings(id), (rows) => rows.length === 2)).toEqual([{ status: 200 }, { status: 200 }])
        const client = yield* clientFor(api_key)
        const refused = yield* Effect.flip(Stream.runDrain(client.Events({})))
        expect(refused).toEqual(TooManyInFlight.atMost(2))
        expect((yield* balanceOf(id)).used).toBe(2)
        // Streams hold no slot of the calls in flight: a call still answers.
        expect((yield* client.Credits({})).credits.used).toBe(3)
        yield* Scope.close(first.scope, Exit.void)
        yield* eventually(inFlight.streams(id), (open) => open === 1)
        const third = yield* openEvents(api_key)
        yield* eventually(inFlight.streams(id), (open) => open === 2)
        expect((yield* balanceOf(id)).used).toBe(4)
        yield* Effect.forEach([second, third], ({ scope }) => Scope.close(scope, Exit.void), { discard: true })
        yield* eventually(inFlight.streams(id), (open) => open === 0)
      }))

    it.scoped("a regenerated key ends its open stream with Unauthorized, a plan lowered with PlanRequired, at the next look", () =>
      Effect.gen(function*() {
        const accounts = yield* Accounts
        const inFlight = yield* InFlight
        const regenerated = yield* account({ plan: "pro" })
        const lowered = yield* account({ plan: "pro" })
        const [onOldKey, onLoweredPlan] = yield* Effect.all([openEvents(regenerated.api_key), openEvents(lowered.api_key)])
        yield* eventually(Effect.zipWith(inFlight.streams(regenerated.id), inFlight.streams(lowered.id), (a, b) => a + b), (open) => open === 2)
        yield* accounts.regenerateKey(regenerated.id)
        yield* accounts.update(lowered.id, { plan: "free" })
        expect(yield* endOf(onOldKey.fiber)).toEqual(Exit.fail(expect.objectContaining({ _tag: "Unauthorized", error: "Unauthorized" })))
        expect(yield* endOf(onLoweredPlan.fiber)).toEqual(
          Exit.fail(expect.objectContaining({ _tag: "PlanRequired", error: "AdIntel Basic plan or higher required" }))
        )
        yield* Effect.forEach([onOldKey, onLoweredPlan], ({ scope }) => Scope.close(scope, Exit.void), { discard: true })
        yield* eventually(inFlight.streams(regenerated.id), (open) => open === 0)
      }))

    it.scoped("a stream ends after STREAM_MAX_LIFETIME (1 minute); the client resumes with after_seq and misses nothing", () =>
      Effect.gen(function*() {
        const events = yield* AccountEvents
        const { api_key, id } = yield* account({ plan: "pro" })
        // From the account's start (it has no event yet): nothing emitted below can fall before it.
        const stream = yield* openEvents(api_key, 0)
        const [first] = yield* events.emit([{ accountId: id, type: "webhook.test", data: { n: 1 } }], new Date(0))
        expect((yield* takeAdvancing(stream.received)).id).toBe(first!.id)
        expect(yield* endOf(stream.fiber)).toEqual(Exit.void)
        const [missed] = yield* events.emit([{ accountId: id, type: "webhook.test", data: { n: 2 } }], new Date(0))
        const resumed = yield* openEvents(api_key, first!.seq)
        expect((yield* takeAdvancing(resumed.received)).id).toBe(missed!.id)
        yield* Scope.close(resumed.scope, Exit.void)
      }))
  })
})

/** One line of an NDJSON exchange whose payload is `payload`, as JSON text. */
const requestLine = (tag: string, payload: string) => `{"_tag":"Request","id":"0","tag":"${tag}","payload":${payload},"headers":[]}\n`

describe("/rpc admits before it decodes (issue 44)", () => {
  layer(testServer().pipe(Layer.provideMerge(TestDatabase)), { timeout: 60_000 })((it) => {
    const exchange = (key: string | null, body: string) =>
      call("/rpc", { method: "POST", headers: { "content-type": "application/ndjson", ...(key === null ? {} : { "X-API-Key": key }) }, body })

    it.scoped("without a key, a payload that does not decode is Unauthorized, and nothing is said about the schema", () =>
      Effect.gen(function*() {
        const answer = yield* exchange(null, requestLine("SearchSocialAds", `{"limit":"lots","sort":42}`))
        expect(answer.status).toBe(200)
        expect(answer.body).toContain(`"_tag":"Unauthorized"`)
        expect(answer.body).not.toMatch(/Die|Expected|limit|sort/)
      }))

    it.scoped("with a key, a payload that does not decode is InvalidRequest naming the field, metered as REST's 400 (G11)", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "pro" })
        const client = yield* clientFor(api_key)
        const answer = yield* exchange(api_key, requestLine("SearchSocialAds", `{"limit":"lots"}`))
        expect(answer.status).toBe(200)
        const exit = JSON.parse(answer.body.trim().split("\n").at(-1)!)
        expect(exit).toMatchObject({ _tag: "Exit", exit: { _tag: "Failure", cause: { _tag: "Fail", error: { _tag: "InvalidRequest" } } } })
        // The message REST answers for the same value of the same parameter.
        const rest = yield* call("/api/v1/adlibrary?limit=lots", { headers: { "X-API-Key": api_key } })
        expect(exit.exit.cause.error.error).toBe(JSON.parse(rest.body).error)
        expect((yield* balanceOf(id)).used).toBe(2)
        // A stream's payload alike.
        const stream = yield* Effect.flip(Stream.runDrain(client.ExportSearch({ library: "social", filters: { limit: "5" } })))
        expect(stream).toMatchObject({ _tag: "InvalidRequest" })
      }))

    it.scoped("a body nested 20,000 deep, or not JSON: 401 without a key; with one, REST's 400 for such a body, metered, never a 500", () =>
      Effect.gen(function*() {
        const deep = "[".repeat(20_000) + "]".repeat(20_000)
        const body = requestLine("SearchSocialAds", `{"q":${deep}}`)
        const refused = yield* exchange(null, body)
        expect([refused.status, refused.body]).toEqual([401, `{"success":false,"error":"Unauthorized"}`])
        const { api_key, id } = yield* account({ plan: "pro" })
        const answer = yield* exchange(api_key, body)
        expect([answer.status, answer.body]).toEqual([400, `{"success":false,"error":"Malformed request body: JSON nested deeper than 32 levels"}`])
        expect(answer.headers.get("ratelimit-policy")).toBe(`"minute";q=60;w=60`)
        expect((yield* balanceOf(id)).used).toBe(1)
        // A body that is not NDJSON at all: REST's 400 for a body that is not JSON, after admission too.
        expect((yield* exchange(null, "this is not json\n")).status).toBe(401)
        const garbled = yield* exchange(api_key, "this is not json\n")
        expect([garbled.status, garbled.body]).toEqual([400, `{"success":false,"error":"Malformed request body: expected JSON"}`])
        expect((yield* balanceOf(id)).used).toBe(2)
        // At the limit: a payload 32 deep is read, and refused by its schema.
        const atLimit = yield* exchange(api_key, requestLine("SearchSocialAds", `{"q":${"[".repeat(31)}${"]".repeat(31)}}`))
        expect(atLimit.status).toBe(200)
        expect(atLimit.body).toContain(`"_tag":"InvalidRequest"`)
      }))
  })
})
