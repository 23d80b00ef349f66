import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Clock, Deferred, Duration, Effect, Fiber, Layer, Stream, TestClock } from "effect"
import * as net from "node:net"
import { Gateway } from "../src/access/gateway/Gateway.js"
import { InFlight } from "../src/access/gateway/InFlight.js"
import { makeClient } from "../src/rpc.js"
import { eventually as eventuallyReal } from "./support/StreamingReplicas.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, balanceOf, TestServer, testServer } from "./support/TestServer.js"

/**
 * The credit of a metered call, end to end on REST, RPC and MCP (issue 43; G4): every row of the
 * credit table (access/gateway/CallCharge.ts) on each path, and the two leaks the issue found
 * (a client that gives up while it waits for a slot in flight; one that hangs up in the middle
 * of its body). One slot in flight per account; `IN_FLIGHT_WAIT` runs on the server's TestClock.
 * A call is held by locking the ads it reads; the ledger says what each call was charged.
 */

/** `eventually` on the real clock: it polls what PostgreSQL and the server show in real time (the TestClock stays still). */
const eventually = <A, E, R>(read: Effect.Effect<A, E, R>, holds: (a: A) => boolean) => Effect.withClock(eventuallyReal(read, holds), Clock.make())

/** How a call answered, whatever the path: its status, as REST would have answered it. */
type Outcome = number

interface Path {
  readonly name: string
  /** The ledger's route for the searches. */
  readonly route: string
  /** A search of the social ads (it reads `ads`); interrupting it hangs up its client. */
  readonly search: (key: string) => Effect.Effect<Outcome, never, TestServer>
  /** A lookup of an ad that does not exist (a typed 404). */
  readonly missing: (key: string) => Effect.Effect<Outcome, never, TestServer>
}

/** A fetch that the fiber's interruption aborts: the client hangs up. */
const fetched = (path: string, init: RequestInit) =>
  Effect.flatMap(TestServer, ({ url }) =>
    Effect.promise(async (signal) => {
      const response = await fetch(url + path, { ...init, signal })
      return { status: response.status, body: await response.text() }
    }))

const rest: Path = {
  name: "REST",
  route: "/api/v1/adlibrary",
  search: (key) => Effect.map(fetched("/api/v1/adlibrary?limit=5", { headers: { "x-api-key": key } }), (answer) => answer.status),
  missing: (key) => Effect.map(fetched("/api/v1/clipapp-ads/no-such-ad", { headers: { "x-api-key": key } }), (answer) => answer.status)
}

/** RPC's typed failures as the status REST answers them with. */
const statusOfTag: Record<string, number> = { NotFound: 404, TooManyInFlight: 429, InternalServerError: 500 }

const rpcCall = <A, E extends { readonly _tag: string }>(key: string, call: (client: Effect.Effect.Success<ReturnType<typeof makeClient>>) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.gen(function*() {
    const { url } = yield* TestServer
    const client = yield* makeClient(url, key)
    return yield* call(client).pipe(Effect.match({ onSuccess: () => 200, onFailure: (error) => statusOfTag[error._tag] ?? 0 }))
  }))

const rpc: Path = {
  name: "RPC",
  route: "/rpc/SearchSocialAds",
  search: (key) => rpcCall(key, (client) => client.SearchSocialAds({ limit: 5 })),
  missing: (key) => rpcCall(key, (client) => client.GetShortVideoAd({ id: "no-such-ad" }))
}

/** MCP's refusals (`isError` results) as the status REST answers them with, by their text. */
const statusOfText = (text: string): number =>
  text === "Ad not found" ? 404 : text.startsWith("Too many requests in flight") ? 429 : text === "Internal server error" ? 500 : 0

const toolCall = (key: string, name: string, args: Record<string, unknown>) =>
  Effect.map(
    fetched("/mcp", {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } })
    }),
    (answer) => {
      const { result } = JSON.parse(answer.body) as { result: { isError: boolean; content: Array<{ text: string }> } }
      return result.isError ? statusOfText(result.content[0]!.text) : 200
    }
  )

const mcp: Path = {
  name: "MCP",
  route: "search_social_ads",
  search: (key) => toolCall(key, "search_social_ads", { limit: 5 }),
  missing: (key) => toolCall(key, "get_short_video_ad", { id: "no-such-ad" })
}

const paths = [rest, rpc, mcp]

/** The account's ledger, oldest first: what each call was charged, how it ended, whether it was given back. */
const ledgerOf = (accountId: string) =>
  Effect.flatMap(Gateway, (gateway) => gateway.flush).pipe(
    Effect.zipRight(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ route: string; status: number | null; refunded: boolean }>`
        select route, status, refunded_at is not null as refunded from request_ledger where account_id = ${accountId}::uuid order by id`))
  )

const waitingOnLocks = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    (rows) => rows[0]!.n
  ))

/** The ads locked until the returned effect runs: every search waits on them meanwhile. */
const lockAds = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const locked = yield* Deferred.make<void>()
  const release = yield* Deferred.make<void>()
  const holder = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
    yield* sql`lock table ads in access exclusive mode`
    yield* Deferred.succeed(locked, undefined)
    yield* Deferred.await(release)
  })))
  yield* Deferred.await(locked)
  return Effect.zipRight(Deferred.succeed(release, undefined), Fiber.join(holder))
})

/** A search in flight, held on the locked ads (its slot taken), for `body`; the ads are released after. */
const withHeldSearch = <A, E, R>(path: Path, key: string, body: (held: Fiber.RuntimeFiber<Outcome>) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const release = yield* lockAds
    const before = yield* waitingOnLocks
    const held = yield* Effect.fork(path.search(key))
    yield* eventually(waitingOnLocks, (n) => n > before)
    const result = yield* body(held)
    yield* release
    return result
  })

describe("a metered call's credit on REST, RPC and MCP (issue 43; G4)", () => {
  layer(testServer({ config: { maxCallsInFlight: 1, inFlightWait: Duration.seconds(10) } }).pipe(Layer.provideMerge(TestDatabase)), { timeout: 120_000 })(
    (it) => {
      it.effect("an answer keeps its credit, a typed 404 keeps it too", () =>
        Effect.gen(function*() {
          for (const path of paths) {
            const { api_key, id } = yield* account({ plan: "pro" })
            expect([path.name, yield* path.search(api_key), yield* path.missing(api_key)]).toEqual([path.name, 200, 404])
            expect((yield* balanceOf(id)).used).toBe(2)
          }
        }))

      it.effect("a call whose statement fails (a defect, the 500 envelope) gets its credit back", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          for (const path of paths) {
            const { api_key, id } = yield* account({ plan: "pro" })
            const status = yield* withHeldSearch(path, api_key, (held) =>
              Effect.zipRight(
                sql`select pg_cancel_backend(pid) from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
                Fiber.join(held)
              ))
            expect([path.name, status]).toEqual([path.name, 500])
            expect(yield* ledgerOf(id)).toEqual([{ route: path.route, status: 500, refunded: true }])
          }
        }))

      it.effect("a client gone while it waits for its answer gets its credit back", () =>
        Effect.gen(function*() {
          for (const path of paths) {
            const { api_key, id } = yield* account({ plan: "pro" })
            yield* withHeldSearch(path, api_key, (held) =>
              Effect.gen(function*() {
                yield* Fiber.interrupt(held)
                // The server sees its client go and cancels the statement that waits.
                yield* eventually(waitingOnLocks, (n) => n === 0)
              }))
            yield* eventually(ledgerOf(id), (rows) => rows.length === 1 && rows[0]!.refunded)
            expect([path.name, (yield* balanceOf(id)).used]).toEqual([path.name, 0])
          }
        }))

      it.effect("a client that gives up while it waits for a slot in flight gets its credit back; the call holding the slot keeps its own", () =>
        Effect.gen(function*() {
          const inFlight = yield* InFlight
          for (const path of paths) {
            const { api_key, id } = yield* account({ plan: "pro" })
            const held = yield* withHeldSearch(path, api_key, (held) =>
              Effect.gen(function*() {
                const waiting = yield* Effect.fork(path.search(api_key))
                yield* eventually(inFlight.users(id), (users) => users === 2)
                yield* Fiber.interrupt(waiting)
                yield* eventually(inFlight.users(id), (users) => users === 1)
                return held
              }))
            expect([path.name, yield* Fiber.join(held)]).toEqual([path.name, 200])
            yield* eventually(inFlight.users(id), (users) => users === 0)
            const ledger = yield* ledgerOf(id)
            expect(ledger.map((row) => row.refunded).sort()).toEqual([false, true])
            expect((yield* balanceOf(id)).used).toBe(1)
          }
        }))

      it.effect("no slot within IN_FLIGHT_WAIT: the 429 of the calls in flight, its credit back", () =>
        Effect.gen(function*() {
          const inFlight = yield* InFlight
          for (const path of paths) {
            const { api_key, id } = yield* account({ plan: "pro" })
            const refused = yield* withHeldSearch(path, api_key, () =>
              Effect.gen(function*() {
                const waiting = yield* Effect.fork(path.search(api_key))
                yield* eventually(inFlight.users(id), (users) => users === 2)
                yield* TestClock.adjust(Duration.seconds(10))
                return yield* Fiber.join(waiting)
              }))
            expect([path.name, refused]).toEqual([path.name, 429])
            yield* eventually(inFlight.users(id), (users) => users === 0)
            expect(yield* ledgerOf(id)).toEqual([
              { route: path.route, status: 200, refunded: false },
              { route: path.route, status: 429, refunded: true }
            ])
          }
        }))

      it.scoped("a client that hangs up in the middle of its body gets its credit back (REST), or is never charged (RPC and MCP read the body first)", () =>
        Effect.gen(function*() {
          const { url } = yield* TestServer
          const port = Number(new URL(url).port)
          const gateway = yield* Gateway
          const refunds = yield* gateway.refunds
          /**
           * Sends the headers and the first bytes of a 100-byte JSON body, waits for `sent` (what
           * the server has done with it by then), then closes the socket.
           */
          const hangUp = <A, E, R>(path: string, key: string, sent: Effect.Effect<A, E, R>) =>
            Effect.acquireUseRelease(
              Effect.async<net.Socket>((resume) => {
                const socket = net.connect(port, "127.0.0.1", () => {
                  socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"text":`)
                  resume(Effect.succeed(socket))
                })
              }),
              () => sent,
              (socket) => Effect.async<void>((resume) => {
                socket.on("close", () => resume(Effect.void))
                socket.destroy()
              })
            )
          const restCaller = yield* account({ plan: "pro" })
          // Hung up once its call is admitted and charged, while the server waits for the rest of its body.
          yield* hangUp("/api/v1/magic-ai", restCaller.api_key, eventually(ledgerOf(restCaller.id), (rows) => rows.length === 1))
          const refunded = yield* Stream.runHead(Stream.fromQueue(refunds))
          expect(refunded._tag).toBe("Some")
          expect(yield* ledgerOf(restCaller.id)).toEqual([{ route: "/api/v1/magic-ai", status: 499, refunded: true }])
          for (const [path, route] of [["/rpc", "/rpc/SearchSocialAds"], ["/mcp", "search_social_ads"]] as const) {
            const caller = yield* account({ plan: "pro" })
            yield* hangUp(path, caller.api_key, Effect.void)
            // A call after it, on the same account: the only one charged.
            expect(yield* (route === "search_social_ads" ? mcp : rpc).search(caller.api_key)).toBe(200)
            expect(yield* ledgerOf(caller.id)).toEqual([{ route, status: 200, refunded: false }])
          }
        }))
    }
  )
})
