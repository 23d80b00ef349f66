import { describe, expect, layer } from "@effect/vitest"
import { ConfigProvider, Deferred, Effect, Fiber, Layer, Queue, TestClock } from "effect"
import * as crypto from "node:crypto"
import { readFile } from "node:fs/promises"
import * as net from "node:net"
import { Deliveries } from "../src/notifications/webhooks/Deliveries.js"
import { RemoteMedia } from "../src/platform/media/RemoteMedia.js"
import { DnsServer, DnsServerLive, nextQueries } from "./support/DnsServer.js"
import { TestDatabaseUrlLive } from "./support/TestDatabase.js"
import { account } from "./support/TestServer.js"
import { countAt, deliveriesOf, error, fresh, loopbackOn, nextAt, Receiver, ReceiverLive, register, replica, send } from "./support/Webhooks.js"

/**
 * Issue 44, finding 1: webhook hosts are resolved by c-ares (`dns.promises.Resolver`), not by
 * `dns.lookup` on libuv's four threads, within `DNS_TIMEOUT`, through `DNS_SERVERS`: here a name
 * server on 127.0.0.1 that this file starts (support/DnsServer.ts), which answers, refuses or
 * drops each name as a test says. Names are under `.test` (RFC 2606): nothing leaves loopback.
 */

const notPublic = "url: address not allowed: webhooks are sent only to public internet addresses"

/** The service on the file's database, its resolver asking the file's name server. */
const world = Layer.unwrapEffect(Effect.map(DnsServer, ({ address }) => replica({ ...loopbackOn, DNS_SERVERS: address, DNS_TIMEOUT: "8 seconds" }))).pipe(
  Layer.provideMerge(Layer.mergeAll(TestDatabaseUrlLive, ReceiverLive, DnsServerLive))
)

/** A TCP server on 127.0.0.1 that accepts and never says a word: an attempt to it hangs until its timeout. */
const blackHole = Effect.gen(function*() {
  const connected = yield* Queue.unbounded<void>()
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on("error", () => undefined)
    Queue.unsafeOffer(connected, undefined)
  })
  yield* Effect.acquireRelease(
    Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
    () => Effect.sync(() => {
      for (const socket of sockets) socket.destroy()
      server.close()
    })
  )
  const address = server.address()
  return { port: typeof address === "object" && address !== null ? address.port : 0, connected }
})

const register400 = (key: string, url: string) =>
  Effect.map(send(key, "POST", "/api/v1/webhooks", { url, events: ["webhook.test"] }), ({ body, status }) => [status, body])

/** Work for libuv's thread pool (`crypto.pbkdf2`, `fs.promises.readFile`), more at once than it has threads; done when all is. */
const threadPoolWork = Effect.promise(() =>
  Promise.all([
    ...Array.from({ length: 8 }, () => new Promise((resolve, reject) => crypto.pbkdf2("x", "salt", 1, 32, "sha256", (e, key) => e ? reject(e) : resolve(key)))),
    ...Array.from({ length: 4 }, () => readFile(new URL(import.meta.url)))
  ]))

describe("webhook hosts resolved by c-ares through DNS_SERVERS (issue 44)", () => {
  layer(world, { timeout: 60_000 })((it) => {
    it.effect("a name resolves through the configured server, both families, every address judged; none is `url: cannot resolve host`; localhost asks nobody", () =>
      Effect.gen(function*() {
        yield* fresh
        const dns = yield* DnsServer
        const receiver = yield* Receiver
        const port = new URL(receiver.url).port
        const a = yield* account({ plan: "premium" })
        dns.names.set("hook.adintel.test", { a: ["127.0.0.1"] })
        dns.names.set("private.adintel.test", { a: ["10.1.2.3"] })
        dns.names.set("mixed.adintel.test", { a: ["127.0.0.1"], aaaa: ["fd00::1"] })

        const resolved = yield* send(a.api_key, "POST", "/api/v1/webhooks", { url: `https://hook.adintel.test:${port}/hook-dns`, events: ["webhook.test"] })
        expect(resolved.status, resolved.body).toBe(200)
        expect(dns.queries.filter((q) => q.name === "hook.adintel.test").map((q) => q.type).sort()).toEqual(["A", "AAAA"])
        expect(yield* register400(a.api_key, "https://private.adintel.test/hook")).toEqual([400, error(notPublic)])
        // A public-enough A record does not save a private AAAA one.
        expect(yield* register400(a.api_key, "https://mixed.adintel.test/hook")).toEqual([400, error(notPublic)])
        expect(yield* register400(a.api_key, "https://missing.adintel.test/hook")).toEqual([400, error("url: cannot resolve host missing.adintel.test")])

        // localhost is 127.0.0.1 and ::1 without a query; a delivery to it arrives.
        const before = dns.queries.length
        const local = yield* send(a.api_key, "POST", "/api/v1/webhooks", { url: `http://localhost:${port}/hook-localhost`, events: ["webhook.test"] })
        expect(local.status, local.body).toBe(200)
        const id: string = local.json.webhook.id
        yield* send(a.api_key, "POST", `/api/v1/webhooks/${id}/test`)
        expect(yield* (yield* Deliveries).pass).toBe(1)
        expect((yield* nextAt("/hook-localhost")).headers["host"]).toBe(`localhost:${port}`)
        expect(dns.queries.length).toBe(before)

        // Media fetching asks the same resolver.
        dns.names.set("media.adintel.test", { a: ["127.0.0.1"] })
        const media = yield* Effect.provide(
          RemoteMedia,
          RemoteMedia.layerWith({ allow: ["127.0.0.1"] }).pipe(
            Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["DNS_SERVERS", dns.address]]))))
          )
        )
        const fetched = yield* media.fetch(`http://media.adintel.test:${port}/media`)
        expect(Buffer.from(fetched.bytes).toString()).toBe("ok")
        expect(yield* countAt("/media")).toBe(1)
      }))

    it.effect("a name server that never answers: registrations wait on c-ares, not on libuv's threads, and answer the 400 at DNS_TIMEOUT", () =>
      Effect.gen(function*() {
        yield* fresh
        const dns = yield* DnsServer
        const silent = (i: number) => `silent-${i}.adintel.test`
        for (let i = 0; i < 6; i++) dns.names.set(silent(i), "drop")
        // Six registrations at once, two per account (an account has 4 calls in flight at most).
        const keys = [(yield* account()).api_key, (yield* account()).api_key, (yield* account()).api_key]
        const answered = yield* Deferred.make<void>()
        const registrations = yield* Effect.fork(Effect.all(
          Array.from({ length: 6 }, (_, i) => register400(keys[i % 3]!, `https://${silent(i)}/hook`)),
          { concurrency: "unbounded" }
        ).pipe(Effect.ensuring(Deferred.succeed(answered, undefined))))
        // Every registration has asked (A and AAAA) and waits: the thread pool still serves others at once.
        yield* nextQueries((name) => name.startsWith("silent-"), 12)
        yield* threadPoolWork
        expect(yield* Deferred.isDone(answered)).toBe(false)
        // At DNS_TIMEOUT (the Clock's) each is the 400 naming the field and the host.
        yield* TestClock.adjust("8 seconds")
        expect(yield* Fiber.join(registrations)).toEqual(
          Array.from({ length: 6 }, (_, i) => [400, error(`url: cannot resolve host ${silent(i)}`)])
        )
        // One try per family: nothing more was asked.
        expect(dns.queries.filter((q) => q.name.startsWith("silent-")).length).toBe(12)
      }))

    it.effect("past the plan's cap a registration is refused before any look-up: no query reaches the name server", () =>
      Effect.gen(function*() {
        yield* fresh
        const dns = yield* DnsServer
        const full = yield* account()
        for (let i = 0; i < 3; i++) yield* register(full.api_key, `/hook-full-${i}`)
        expect(yield* register400(full.api_key, "https://capped.adintel.test/hook")).toEqual(
          [403, error("Webhook endpoint limit reached: 3 endpoints on the Basic plan")]
        )
        expect(dns.queries.filter((q) => q.name === "capped.adintel.test")).toEqual([])
        // With room, the same name is asked (and, unknown, refused).
        const roomy = yield* account()
        expect(yield* register400(roomy.api_key, "https://capped.adintel.test/hook")).toEqual(
          [400, error("url: cannot resolve host capped.adintel.test")]
        )
        expect(dns.queries.filter((q) => q.name === "capped.adintel.test").length).toBe(2)
      }))

    it.scoped("the look-up is part of the attempt's 10 s: 7 s to resolve leave the connection 3 s, then the attempt has failed", () =>
      Effect.gen(function*() {
        yield* fresh
        const dns = yield* DnsServer
        const deliveries = yield* Deliveries
        const hole = yield* blackHole
        const a = yield* account()
        dns.names.set("slow.adintel.test", { a: ["127.0.0.1"] })
        const created = yield* send(a.api_key, "POST", "/api/v1/webhooks", { url: `https://slow.adintel.test:${hole.port}/hook`, events: ["webhook.test"] })
        expect(created.status, created.body).toBe(200)
        const id: string = created.json.webhook.id
        // Its name server turns slow: the attempt's look-up waits for it.
        dns.names.set("slow.adintel.test", { a: ["127.0.0.1"], held: true })
        yield* send(a.api_key, "POST", `/api/v1/webhooks/${id}/test`)
        yield* Queue.takeAll(dns.received)
        const pass = yield* Effect.fork(deliveries.pass)
        yield* nextQueries((name) => name === "slow.adintel.test", 2)
        yield* TestClock.adjust("7 seconds")
        yield* dns.release("slow.adintel.test")
        // The attempt connects to the address the name server gave and is never answered.
        yield* Queue.take(hole.connected)
        yield* TestClock.adjust("3 seconds")
        expect(yield* Fiber.join(pass)).toBe(1)
        expect(yield* deliveriesOf(a.api_key, id)).toMatchObject([{ status: "pending", attempts: 1, last_status_code: null, delivered_at: null }])
      }), 20_000)
  })
})
