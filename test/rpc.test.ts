import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { RpcClient, RpcSerialization } from "@effect/rpc"
import { SqlClient } from "@effect/sql"
import { existsSync, readFileSync } from "node:fs"
import { runChild } from "../src/platform/ChildProcess.js"
import { describe, expect, layer } from "@effect/vitest"
import { Chunk, Deferred, Effect, Exit, Fiber, Layer, Option, Queue, Scope, Stream, TestClock } from "effect"
import { AccountEvents } from "../src/access/events/AccountEvents.js"
import { InFlight } from "../src/access/gateway/InFlight.js"
import { AdIntelRpcs, type StreamedEvent } from "../src/rpc.js"
import { clientFor, eventually, rpcExchange, takeAdvancing, untilSleepingFor } from "./support/RpcCalls.js"
import { loadedSmallWorldServer, smallWorld } from "./support/AdWorld.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, balanceOf, call, keyHeader, TestServer, testServer } from "./support/TestServer.js"

/** The `@effect/rpc` surface over HTTP (issue 32; H4): the typed client against the real server. */

type Json = Record<string, any>

const socialIds = (Array.from(smallWorld.records.ads()) as Array<Json>).filter((ad) => ad.library === "social").length

/** A client sending the key as `Authorization: Bearer` instead of `X-API-Key`. */
const bearerClient = (key: string) =>
  Effect.flatMap(TestServer, ({ url }) =>
    Effect.flatMap(
      Layer.build(RpcClient.layerProtocolHttp({ url: `${url}/rpc`, transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(key)) }).pipe(
        Layer.provide([RpcSerialization.layerNdjson, FetchHttpClient.layer])
      )),
      (context) => Effect.provide(RpcClient.make(AdIntelRpcs), context)
    ))

/** Every ad of the REST social search, walked by its tokens. */
const restSocial = (key: string, query = "") =>
  Effect.gen(function*() {
    const ads: Array<Json> = []
    let answer = yield* call(`/api/v1/adlibrary?limit=50${query}`, keyHeader(key))
    for (;;) {
      const json = JSON.parse(answer.body)
      ads.push(...json.data)
      if (!json.has_more) return ads
      answer = yield* call(`/api/v1/adlibrary?scroll_token=${encodeURIComponent(json.scroll_token)}`, keyHeader(key))
    }
  })

describe("RPC over HTTP", () => {
  layer(AccountEvents.Default.pipe(Layer.provideMerge(loadedSmallWorldServer())), { timeout: 120_000 })((it) => {
    it.scoped("a search by RPC is the REST search's answer, and costs one credit", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "pro" })
        const client = yield* clientFor(api_key)
        const rest = JSON.parse((yield* call("/api/v1/pinboard-ads?limit=5&sort=oldest", keyHeader(api_key))).body)
        const before = (yield* balanceOf(id)).used
        const answer = yield* client.SearchPinboardAds({ limit: 5, sort: "oldest" })
        expect(answer.data).toEqual(rest.data)
        expect(answer.has_more).toBe(rest.has_more)
        expect((yield* balanceOf(id)).used - before).toBe(1)
        // The next page by the token, as on REST.
        const next = yield* client.SearchPinboardAds({ scroll_token: answer.scroll_token! })
        const restNext = JSON.parse((yield* call(`/api/v1/pinboard-ads?scroll_token=${encodeURIComponent(rest.scroll_token)}`, keyHeader(api_key))).body)
        expect(next.data).toEqual(restNext.data)
        // A route's own typed failure: an unknown ad is its NotFound.
        const missing = yield* Effect.flip(client.GetShortVideoAd({ id: "no-such-ad" }))
        expect(missing).toMatchObject({ _tag: "NotFound", error: "Ad not found" })
        const credits = yield* client.Credits({})
        expect(credits.credits).toEqual(yield* balanceOf(id))
        // The key may come as `Authorization: Bearer` too (G1).
        const bearer = yield* bearerClient(api_key)
        expect((yield* bearer.Credits({})).credits.used).toBe(credits.credits.used + 1)
      }))

    it.scoped("refusals arrive typed: 401 Unauthorized, 403 PlanRequired; both cost nothing", () =>
      Effect.gen(function*() {
        const nobody = yield* clientFor("adi_" + "0".repeat(48))
        expect(yield* Effect.flip(nobody.SearchSocialAds({}))).toEqual(expect.objectContaining({ _tag: "Unauthorized", error: "Unauthorized" }))
        const { api_key, id } = yield* account({ plan: "free" })
        const free = yield* clientFor(api_key)
        const refused = yield* Effect.flip(free.SearchSocialAds({}))
        expect(refused).toMatchObject({ _tag: "PlanRequired", error: "AdIntel Basic plan or higher required" })
        const stream = yield* Effect.flip(Stream.runDrain(free.ExportSearch({ library: "social" })))
        expect(stream._tag).toBe("PlanRequired")
        expect((yield* balanceOf(id)).used).toBe(0)
      }))

    it.scoped("ExportSearch streams every match, a page of 100 at a time, one credit per page", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "pro" })
        const expected = yield* restSocial(api_key)
        expect(expected.length).toBe(socialIds)
        const client = yield* clientFor(api_key)
        const before = (yield* balanceOf(id)).used
        const pages = Chunk.toReadonlyArray(yield* Stream.runCollect(client.ExportSearch({ library: "social" })))
        expect(pages.map((page) => [page.page, page.data.length])).toEqual([[1, 100], [2, 100], [3, socialIds - 200]])
        expect(pages.flatMap((page) => page.data)).toEqual(expected)
        expect((yield* balanceOf(id)).used - before).toBe(3)
      }))

    it.scoped("ExportSearch cut by credit exhaustion: the pages paid for, then CreditsExhausted", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "pro", patch: { monthly_limit: 2 } })
        const client = yield* clientFor(api_key)
        const received: Array<number> = []
        const end = yield* Effect.flip(Stream.runForEach(client.ExportSearch({ library: "social", filters: {} }), (page) =>
          Effect.sync(() => received.push(page.data.length))))
        expect(received).toEqual([100, 100])
        expect(end).toMatchObject({
          _tag: "CreditsExhausted",
          credits: { used: 2, limit: 2, remaining: 0, addon_remaining: 0, total_remaining: 0 }
        })
        expect((yield* balanceOf(id)).total_remaining).toBe(0)
        // With nothing left, the next export is refused at once.
        expect((yield* Effect.flip(Stream.runDrain(client.ExportSearch({ library: "social" }))))._tag).toBe("CreditsExhausted")
      }))

    it.scoped("a client that disconnects mid-stream is charged nothing after: the charge of the page it waited for is cancelled", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const inFlight = yield* InFlight
        const { api_key, id } = yield* account({ plan: "pro" })
        const waitingOnLocks = sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
                                                   where datname = current_database() and wait_event_type = 'Lock'`
        // Gate 1: the ads are locked, so the export's first read waits (its call is admitted).
        const adsLocked = yield* Deferred.make<void>()
        const releaseAds = yield* Deferred.make<void>()
        const adsLock = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
          yield* sql`lock table ads in access exclusive mode`
          yield* Deferred.succeed(adsLocked, undefined)
          yield* Deferred.await(releaseAds)
        })))
        yield* Deferred.await(adsLocked)

        const clientScope = yield* Scope.make()
        const client = yield* Scope.extend(clientFor(api_key), clientScope)
        const pages = yield* Queue.unbounded<number>()
        const consumer = yield* Effect.fork(Stream.runForEach(client.ExportSearch({ library: "social" }), (page) => Queue.offer(pages, page.page)))
        yield* eventually(waitingOnLocks, ([row]) => row!.n >= 1)

        // Gate 2: the account's meter row is held, so the charge of page 2 waits.
        const meterLocked = yield* Deferred.make<void>()
        const releaseMeter = yield* Deferred.make<void>()
        const meterLock = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
          yield* sql`select 1 from account_meters where account_id = ${id}::uuid for update`
          yield* Deferred.succeed(meterLocked, undefined)
          yield* Deferred.await(releaseMeter)
        })))
        yield* Deferred.await(meterLocked)
        yield* Deferred.succeed(releaseAds, undefined)
        yield* Fiber.join(adsLock)

        // Page 1 arrives (it is the call's own credit); page 2's charge waits on the meter row.
        expect(yield* Queue.take(pages)).toBe(1)
        yield* eventually(waitingOnLocks, ([row]) => row!.n >= 1)
        expect((yield* balanceOf(id)).used).toBe(1)

        // The client goes away while its next page's charge waits.
        yield* Scope.close(clientScope, Exit.void)
        yield* Fiber.interrupt(consumer)
        // The server sees the client go (in its own time, later under load) and cancels the
        // charge that waits on the meter row: no statement waits on a lock any more.
        yield* eventually(waitingOnLocks, ([row]) => row!.n === 0)
        yield* Deferred.succeed(releaseMeter, undefined)
        yield* Fiber.join(meterLock)
        // The server's stream has ended once the account holds no call in flight.
        yield* eventually(inFlight.users(id), (users) => users === 0)
        expect(yield* Queue.size(pages)).toBe(0)
        expect((yield* balanceOf(id)).used).toBe(1)
      }))

    it.scoped("Events yields an event recorded after connecting (one credit to open); after_seq resumes", () =>
      Effect.gen(function*() {
        const events = yield* AccountEvents
        const { api_key, id } = yield* account({ plan: "pro" })
        const [earlier] = yield* events.emit([{ accountId: id, type: "webhook.test", data: { n: 1 } }], new Date(0))
        const client = yield* clientFor(api_key)
        const received = yield* Queue.unbounded<StreamedEvent>()
        yield* Effect.forkScoped(Stream.runForEach(client.Events({}), (event) => Queue.offer(received, event)))
        // Opened once it waits for its next look, a second from now (TestClock): "now" is after `earlier`.
        yield* untilSleepingFor(1_000)
        expect((yield* balanceOf(id)).used).toBe(1)
        const [later] = yield* events.emit([{ accountId: id, type: "brand.ads_new", data: { ad_ids: ["ad-1"], count: 1 } }], new Date(0))
        expect(yield* takeAdvancing(received)).toEqual({
          seq: later!.seq,
          id: later!.id,
          type: "brand.ads_new",
          created_at: "1970-01-01T00:00:00.000Z",
          data: { ad_ids: ["ad-1"], count: 1 }
        })
        // From a position: everything after it, the earlier event included; what it yields is free.
        const resumed = yield* Stream.runCollect(Stream.take(client.Events({ after_seq: earlier!.seq - 1 }), 2))
        expect(Chunk.toReadonlyArray(resumed).map((event) => event.id)).toEqual([earlier!.id, later!.id])
        expect((yield* balanceOf(id)).used).toBe(2)
      }))

    it.effect("the example script exports every match over RPC against a live server", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const { api_key } = yield* account({ plan: "pro" })
        const active = (yield* restSocial(api_key, "&status=active")).length
        const result = yield* runChild(process.execPath, ["--import", "tsx", "examples/rpc-export.ts", url, api_key], { timeout: "60 seconds" })
        expect(result.code).toBe(0)
        expect(result.stdout).toContain(`exported ${active} ads`)
      }), { timeout: 90_000 })

    it("the package exports the RPC client's compiled entry point and its types (adintel/rpc)", () => {
      const pkg = JSON.parse(readFileSync("package.json", "utf8"))
      expect(pkg.exports["./rpc"]).toEqual({ types: "./dist/rpc.d.ts", default: "./dist/rpc.js" })
      expect(existsSync("src/rpc.ts")).toBe(true)
    })
  })
})

describe("RPC rate window", () => {
  layer(testServer({ config: { rateLimitPerMinute: 1 } }).pipe(Layer.provideMerge(TestDatabase)), { timeout: 60_000 })((it) => {
    it.scoped("past the rate window: RateLimited, typed, and no credit", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "pro" })
        const client = yield* clientFor(api_key)
        yield* client.Credits({})
        const refused = yield* Effect.flip(client.Credits({}))
        expect(refused).toMatchObject({ _tag: "RateLimited", error: "Rate limit exceeded. Max 1 requests per minute." })
        expect((yield* balanceOf(id)).used).toBe(1)
      }))
  })
})

describe("RPC rate-limit fields", () => {
  layer(testServer({ config: { rateLimitPerMinute: 3 } }).pipe(Layer.provideMerge(TestDatabase)), { timeout: 60_000 })((it) => {
    it.scoped("an RPC answer carries the window of its call, shared with REST; past it, Retry-After; 401 carries none", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "pro" })
        const first = yield* rpcExchange(api_key, [{ tag: "Credits", payload: {} }])
        expect(first.status).toBe(200)
        expect(first.body).toContain(`"_tag":"Success"`)
        expect(first.headers.get("ratelimit-policy")).toBe(`"minute";q=3;w=60`)
        expect(first.headers.get("ratelimit")).toBe(`"minute";r=2;t=60`)
        expect(first.headers.get("retry-after")).toBeNull()
        // A REST call takes its slot of the same window.
        const rest = yield* call("/api/v1/credits", keyHeader(api_key))
        expect(rest.headers.get("ratelimit")).toBe(`"minute";r=1;t=60`)
        yield* TestClock.adjust("15 seconds")
        const last = yield* rpcExchange(api_key, [{ tag: "Credits", payload: {} }])
        expect(last.headers.get("ratelimit")).toBe(`"minute";r=0;t=45`)
        const refused = yield* rpcExchange(api_key, [{ tag: "Credits", payload: {} }])
        expect(refused.status).toBe(200)
        expect(refused.body).toContain(`"_tag":"RateLimited"`)
        expect(refused.headers.get("ratelimit-policy")).toBe(`"minute";q=3;w=60`)
        expect(refused.headers.get("ratelimit")).toBe(`"minute";r=0;t=45`)
        expect(refused.headers.get("retry-after")).toBe("45")
        expect((yield* balanceOf(id)).used).toBe(3)
        // Refusals before the window (a wrong key) do not show the quota (G5).
        const unknown = yield* rpcExchange("not-a-key", [{ tag: "Credits", payload: {} }])
        expect(unknown.body).toContain(`"_tag":"Unauthorized"`)
        expect(unknown.headers.get("ratelimit")).toBeNull()
        expect(unknown.headers.get("ratelimit-policy")).toBeNull()
        expect(unknown.headers.get("retry-after")).toBeNull()
      }))

    it.scoped("a stream's answer carries the window of its opening", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "pro" })
        const exported = yield* rpcExchange(api_key, [{ tag: "ExportSearch", payload: { library: "social", filters: { q: "nothing-matches-this-zzz" } } }])
        expect(exported.status).toBe(200)
        expect(exported.headers.get("ratelimit")).toBe(`"minute";r=2;t=60`)
        expect(exported.headers.get("ratelimit-policy")).toBe(`"minute";q=3;w=60`)
      }))

    it.scoped("a call refused for the calls in flight: TooManyInFlight, Retry-After: 1 and its window, its credit back", () =>
      Effect.gen(function*() {
        const inFlight = yield* InFlight
        const { api_key, id } = yield* account({ plan: "pro" })
        // The account's four slots held (as by four calls running).
        const holding = yield* Scope.make()
        yield* Effect.forEach(Array.from({ length: 4 }), () => Scope.extend(inFlight.take(id), holding), { discard: true })
        const fifth = yield* Effect.fork(rpcExchange(api_key, [{ tag: "Credits", payload: {} }]))
        yield* eventually(inFlight.users(id), (users) => users === 5)
        // The server's clock is the test's: it moves until the wait (IN_FLIGHT_WAIT, 2 s) has passed.
        while (Option.isNone(yield* Fiber.poll(fifth))) {
          yield* TestClock.adjust("500 millis")
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
        }
        const refused = yield* Fiber.join(fifth)
        expect(refused.body).toContain(`"_tag":"TooManyInFlight"`)
        expect(refused.headers.get("retry-after")).toBe("1")
        expect(refused.headers.get("ratelimit")).toBe(`"minute";r=2;t=60`)
        expect((yield* balanceOf(id)).used).toBe(0)
        yield* Scope.close(holding, Exit.void)
      }))
  })
})

