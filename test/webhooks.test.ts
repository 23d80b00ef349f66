import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Clock, ConfigProvider, Context, Effect, Either, Fiber, Layer, Option, Queue, TestClock } from "effect"
import { AccountEvents } from "../src/access/events/AccountEvents.js"
import { AccountAlerts } from "../src/notifications/alerts/AccountAlerts.js"
import { Inbox } from "../src/notifications/inbox/Inbox.js"
import { Deliveries, retryDelays } from "../src/notifications/webhooks/Deliveries.js"
import { webhookSettings } from "../src/notifications/webhooks/WebhooksConfig.js"
import { account, call, keyHeader, TestServer } from "./support/TestServer.js"
import {
  countAt,
  deliveriesOf,
  error,
  fresh,
  get,
  loopbackOn,
  nextAt,
  type Receipt,
  Receiver,
  register,
  replica,
  send,
  stamp,
  usedOf,
  verifies,
  verify,
  world
} from "./support/Webhooks.js"

/**
 * Webhooks (issue 32; INTERPRETATIONS H2, H3) against a real receiver: an HTTP server on
 * 127.0.0.1 that this file starts, reached with `WEBHOOK_ALLOW_LOOPBACK=true`. Signatures are
 * checked with the `standardwebhooks` package, never our own code. The world's replica polls
 * once a year, so a test sends its passes by hand (`Deliveries.pass`) after moving the
 * TestClock; tests of the polling loop build their own replica that polls every 2 s. A service
 * killed with deliveries in flight: webhooksRestart.test.ts.
 */

describe("webhooks (H2, H3)", () => {
  it.effect("WEBHOOK_MAX_PER_ACCOUNT_PER_MINUTE: 600 by default, 1 to 60000, anything else refused by name", () =>
    Effect.gen(function*() {
      const read = (env: Record<string, string>) =>
        Effect.map(
          Effect.either(Effect.withConfigProvider(webhookSettings, ConfigProvider.fromMap(new Map(Object.entries(env))))),
          Either.match({ onLeft: String, onRight: (settings) => settings.maxPerAccountPerMinute })
        )
      expect(yield* read({})).toBe(600)
      for (const n of [1, 60_000]) expect(yield* read({ WEBHOOK_MAX_PER_ACCOUNT_PER_MINUTE: String(n) })).toBe(n)
      for (const bad of ["0", "60001", "ten"]) {
        expect(yield* read({ WEBHOOK_MAX_PER_ACCOUNT_PER_MINUTE: bad })).toContain("WEBHOOK_MAX_PER_ACCOUNT_PER_MINUTE")
      }
    }))

  layer(world, { timeout: 120_000 })((it) => {
    it.effect("register, list, test event signed per Standard Webhooks, replay; each management call 1 credit, deliveries none", () =>
      Effect.gen(function*() {
        yield* fresh
        const { url } = yield* Receiver
        const a = yield* account()
        const deliveries = yield* Deliveries
        const created = yield* send(a.api_key, "POST", "/api/v1/webhooks", {
          url: `${url}/hook-a`,
          events: ["brand.ads_new", "webhook.test"],
          description: "Competitor watch"
        })
        const at = new Date(yield* Clock.currentTimeMillis).toISOString()
        const id: string = created.json.webhook.id
        const secret: string = created.json.secret
        expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
        const webhook = { id, url: `${url}/hook-a`, events: ["brand.ads_new", "webhook.test"], description: "Competitor watch", enabled: true, created_at: at }
        expect([created.status, created.body]).toEqual([200, JSON.stringify({ success: true, webhook, secret })])

        const list = yield* get(a.api_key, "/api/v1/webhooks")
        expect([list.status, list.body]).toEqual([200, JSON.stringify({ success: true, data: [webhook], total: 1, page: 1, page_size: 20 })])
        expect(list.body).not.toContain(secret.slice(6))

        const tested = yield* send(a.api_key, "POST", `/api/v1/webhooks/${id}/test`)
        expect(tested.status).toBe(200)
        expect(Object.keys(tested.json)).toEqual(["success", "delivery_id"])
        const usedBefore = yield* usedOf(a.id)
        expect(yield* deliveries.pass).toBe(1)
        const receipt = yield* nextAt("/hook-a")
        const event = JSON.parse(receipt.body)
        expect(verify(secret, receipt)).toEqual(event)
        expect(event).toEqual({ id: receipt.headers["webhook-id"], type: "webhook.test", created_at: at, data: { webhook_id: id } })
        expect(receipt.headers["webhook-id"]).toMatch(/^evt_/)
        expect(stamp(receipt)).toBe(Math.floor((yield* Clock.currentTimeMillis) / 1000))
        // Sending cost nothing.
        expect(yield* usedOf(a.id)).toBe(usedBefore)

        // An event of a subscribed type reaches the endpoint; one of another type does not.
        const events = yield* AccountEvents
        yield* events.emit([
          { accountId: a.id, type: "brand.ads_new", data: { brand_id: "b1", count: 2, ad_ids: ["x", "y"] } },
          { accountId: a.id, type: "saved_search.matches_new", data: { saved_search_id: "s", count: 1, ad_ids: ["z"] } }
        ], new Date(yield* Clock.currentTimeMillis))
        expect(yield* deliveries.pass).toBe(1)
        const news = yield* nextAt("/hook-a")
        expect(JSON.parse(news.body)).toMatchObject({ type: "brand.ads_new", data: { brand_id: "b1", count: 2, ad_ids: ["x", "y"] } })
        expect(verifies(secret, news)).toBe(true)

        const log = yield* get(a.api_key, `/api/v1/webhooks/${id}/deliveries`)
        const row = (type: string, event_id: string) =>
          ({ id: expect.any(String), event_id, type, status: "delivered", attempts: 1, last_status_code: 200, created_at: at, delivered_at: at })
        expect({ ...log.json, data: undefined }).toEqual({ success: true, total: 2, page: 1, page_size: 20 })
        expect(log.json.data).toHaveLength(2)
        expect(log.json.data).toEqual(expect.arrayContaining([
          row("webhook.test", receipt.headers["webhook-id"]!),
          row("brand.ads_new", news.headers["webhook-id"]!)
        ]))
        expect(log.json.data.find((d: { type: string }) => d.type === "webhook.test").id).toBe(tested.json.delivery_id)

        // Replay: queued again now, the same event id, a new round of attempts.
        const replayed = yield* send(a.api_key, "POST", `/api/v1/webhooks/${id}/deliveries/${tested.json.delivery_id}/replay`)
        expect([replayed.status, replayed.body]).toEqual([200, JSON.stringify({ success: true, delivery_id: tested.json.delivery_id })])
        yield* deliveries.pass
        expect((yield* nextAt("/hook-a")).headers["webhook-id"]).toBe(receipt.headers["webhook-id"])

        // create, list, test, deliveries, replay: one credit each, nothing for the three sendings.
        expect(yield* usedOf(a.id)).toBe(usedBefore + 2)
      }))

    it.effect("a receiver answering 500, then timing out past 10 s, then 200 gets the same webhook-id three times on the backoff schedule", () =>
      Effect.gen(function*() {
        yield* fresh
        const receiver = yield* Receiver
        const deliveries = yield* Deliveries
        const a = yield* account()
        receiver.script.set("/hook-b", ["error", "hang", "ok"])
        const { id } = yield* register(a.api_key, "/hook-b")
        yield* send(a.api_key, "POST", `/api/v1/webhooks/${id}/test`)

        yield* deliveries.pass
        const first = yield* nextAt("/hook-b")
        const afterFirst = yield* deliveriesOf(a.api_key, id)
        expect(afterFirst).toMatchObject([{ status: "pending", attempts: 1, last_status_code: 500, delivered_at: null }])

        /**
         * Passes a second apart until the receiver is called (the pass of a hanging call is left
         * running), from `quiet` seconds on: a call due earlier is sent by the first pass, at `quiet`.
         */
        const untilCalled = (quiet: number) => Effect.gen(function*() {
          yield* TestClock.adjust(`${quiet} seconds`)
          for (let s = 0; s < 3600; s++) {
            yield* TestClock.adjust("1 second")
            const pass = yield* Effect.fork(deliveries.pass)
            const got = yield* Effect.raceFirst(Effect.map(nextAt("/hook-b"), Option.some), Effect.as(Fiber.join(pass), Option.none()))
            if (Option.isSome(got)) return { receipt: got.value, pass }
          }
          return yield* Effect.dieMessage("never called")
        })

        const second = yield* untilCalled(0)
        // Stamps in whole seconds: the first retry after 5 s to 6 s (jitter), passes a second apart.
        expect(stamp(second.receipt) - stamp(first)).toBeGreaterThanOrEqual(5)
        expect(stamp(second.receipt) - stamp(first)).toBeLessThanOrEqual(Math.ceil(5 * 1.2) + 1)
        // The receiver hangs: the attempt gives up after 10 s.
        yield* TestClock.adjust("10 seconds")
        yield* Fiber.join(second.pass)
        expect(yield* deliveriesOf(a.api_key, id)).toMatchObject([{ status: "pending", attempts: 2, last_status_code: null }])

        // Nothing is due within the first 5 minutes: the passes start just before.
        const third = yield* untilCalled(298)
        yield* Fiber.join(third.pass)
        // 5 to 6 min after the timed-out attempt ended (10 s after it was sent).
        const gap = stamp(third.receipt) - stamp(second.receipt) - 10
        expect(gap).toBeGreaterThanOrEqual(300)
        expect(gap).toBeLessThanOrEqual(300 * 1.2 + 1)
        expect([first, second.receipt, third.receipt].map((r) => r.headers["webhook-id"])).toEqual(Array(3).fill(first.headers["webhook-id"]))
        expect(yield* deliveriesOf(a.api_key, id)).toMatchObject([{ status: "delivered", attempts: 3, last_status_code: 200 }])
        expect(yield* countAt("/hook-b")).toBe(3)
      }))

    it.effect("a redirect is an answer, never followed; a long answer is read only to 256 KB and a 2xx is delivered", () =>
      Effect.gen(function*() {
        yield* fresh
        const receiver = yield* Receiver
        const deliveries = yield* Deliveries
        const a = yield* account()
        receiver.script.set("/hook-moved", ["redirect"])
        receiver.script.set("/hook-huge", ["huge"])
        const moved = yield* register(a.api_key, "/hook-moved")
        const huge = yield* register(a.api_key, "/hook-huge")
        yield* send(a.api_key, "POST", `/api/v1/webhooks/${moved.id}/test`)
        yield* send(a.api_key, "POST", `/api/v1/webhooks/${huge.id}/test`)
        expect(yield* deliveries.pass).toBe(2)
        expect(yield* countAt("/hook-moved-redirected")).toBe(0)
        expect(yield* deliveriesOf(a.api_key, moved.id)).toMatchObject([{ status: "pending", attempts: 1, last_status_code: 302 }])
        expect(yield* deliveriesOf(a.api_key, huge.id)).toMatchObject([{ status: "delivered", attempts: 1, last_status_code: 200 }])
      }))

    it.effect("retries stop after the schedule (at least 24 h): failed; an endpoint failing for 3 days is disabled, with an inbox item", () =>
      Effect.gen(function*() {
        yield* fresh
        const receiver = yield* Receiver
        const deliveries = yield* Deliveries
        const a = yield* account()
        receiver.script.set("/hook-down", Array(100).fill("error"))
        const { id } = yield* register(a.api_key, "/hook-down")
        yield* send(a.api_key, "POST", `/api/v1/webhooks/${id}/test`)
        const start = yield* Clock.currentTimeMillis
        const stamps: Array<number> = []
        // Passes every 10 minutes for 36 hours (the schedule, its jitter at most, and the passes' step).
        for (let m = 0; m <= 36 * 60; m += 10) {
          yield* deliveries.pass
          while ((yield* countAt("/hook-down")) > stamps.length) stamps.push(stamp(yield* nextAt("/hook-down")))
          yield* TestClock.adjust("10 minutes")
        }
        expect(stamps.length).toBe(retryDelays.length + 1)
        expect(stamps[stamps.length - 1]! - stamps[0]!).toBeGreaterThanOrEqual(24 * 3600)
        expect(yield* deliveriesOf(a.api_key, id)).toMatchObject([{ status: "failed", attempts: 8, last_status_code: 500 }])

        // Still failing on the fourth day: disabled, and the owner hears of it once.
        yield* TestClock.adjust((3 * 24 + 1) * 3600_000 - ((yield* Clock.currentTimeMillis) - start))
        yield* send(a.api_key, "POST", `/api/v1/webhooks/${id}/test`)
        yield* deliveries.pass
        const list = yield* get(a.api_key, "/api/v1/webhooks")
        expect(list.json.data).toMatchObject([{ id, enabled: false }])
        const inbox = yield* Inbox
        const items = (yield* inbox.list(a.id, {})).data.filter((n) => n.type === "webhook_disabled")
        expect(items).toMatchObject([{ title: "A webhook endpoint was disabled", data: { webhook_id: id, url: `${receiver.url}/hook-down` } }])
        // A disabled endpoint is sent nothing more.
        const sent = yield* countAt("/hook-down")
        yield* send(a.api_key, "POST", `/api/v1/webhooks/${id}/test`)
        yield* TestClock.adjust("1 hour")
        yield* deliveries.pass
        expect(yield* countAt("/hook-down")).toBe(sent)
      }))

    it.effect("old events and finished deliveries are pruned at a pass at most once an hour per replica, by the Clock", () =>
      Effect.gen(function*() {
        yield* fresh
        const deliveries = yield* Deliveries
        const events = yield* AccountEvents
        const sql = yield* SqlClient.SqlClient
        const a = yield* account()
        const { id } = yield* register(a.api_key, "/hook-prune", ["brand.ads_new"])
        // An hour after any earlier pass: this one prunes.
        yield* TestClock.adjust("1 hour")
        yield* deliveries.pass
        // An event and its delivery, finished 31 days ago: past retention.
        const old = new Date((yield* Clock.currentTimeMillis) - 31 * 86_400_000)
        const [event] = yield* events.emit([{ accountId: a.id, type: "brand.ads_new", data: { brand_id: "b", count: 0, ad_ids: [] } }], old)
        yield* sql`update webhook_deliveries set status = 'failed', finished_at = ${old} where endpoint_id = ${id}::uuid`
        const kept = Effect.map(
          sql<{ events: number; deliveries: number }>`
            select (select count(*)::int from outbox_events where id = ${event!.id}) as events,
                   (select count(*)::int from webhook_deliveries where endpoint_id = ${id}::uuid) as deliveries`,
          (rows) => rows[0]
        )
        expect(yield* kept).toEqual({ events: 1, deliveries: 1 })
        yield* TestClock.adjust("2 seconds")
        yield* deliveries.pass
        yield* TestClock.adjust("59 minutes")
        yield* deliveries.pass
        expect(yield* kept).toEqual({ events: 1, deliveries: 1 })
        // An hour after the last prune.
        yield* TestClock.adjust("58 seconds")
        yield* deliveries.pass
        expect(yield* kept).toEqual({ events: 0, deliveries: 0 })
      }))

    it.effect("credits.threshold: one event per threshold per period, as the inbox's item, delivered to a subscribed endpoint", () =>
      Effect.gen(function*() {
        yield* fresh
        const deliveries = yield* Deliveries
        const alerts = yield* AccountAlerts
        const a = yield* account({ patch: { monthly_limit: 10 } })
        const { secret } = yield* register(a.api_key, "/hook-credits", ["credits.threshold"])
        // The registration was the first of 10 credits; 7 more make 80 %.
        yield* Effect.forEach(Array.from({ length: 7 }), () => call("/api/v1/credits", keyHeader(a.api_key)), { discard: true })
        yield* alerts.pass
        yield* alerts.pass
        yield* deliveries.pass
        const eighty = yield* nextAt("/hook-credits")
        expect(verifies(secret, eighty)).toBe(true)
        expect(JSON.parse(eighty.body)).toMatchObject({ type: "credits.threshold", data: { percent: 80, used: 8, limit: 10 } })
        yield* Effect.forEach(Array.from({ length: 2 }), () => call("/api/v1/credits", keyHeader(a.api_key)), { discard: true })
        yield* alerts.pass
        yield* alerts.pass
        yield* deliveries.pass
        expect(JSON.parse((yield* nextAt("/hook-credits")).body)).toMatchObject({ type: "credits.threshold", data: { percent: 100, used: 10, limit: 10 } })
        yield* alerts.pass
        yield* deliveries.pass
        expect(yield* countAt("/hook-credits")).toBe(2)
      }))

    it.effect("rotation: during the overlap both signatures verify, each with its own secret; after it only the new one", () =>
      Effect.gen(function*() {
        yield* fresh
        const deliveries = yield* Deliveries
        const a = yield* account()
        const { id, secret: old } = yield* register(a.api_key, "/hook-r")
        const rotated = yield* send(a.api_key, "POST", `/api/v1/webhooks/${id}/rotate-secret`)
        const secret: string = rotated.json.secret
        expect([rotated.status, rotated.body]).toEqual([200, JSON.stringify({ success: true, secret })])
        expect(secret).not.toBe(old)

        yield* send(a.api_key, "POST", `/api/v1/webhooks/${id}/test`)
        yield* deliveries.pass
        const during = yield* nextAt("/hook-r")
        expect(during.headers["webhook-signature"]!.split(" ")).toHaveLength(2)
        expect([verifies(old, during), verifies(secret, during)]).toEqual([true, true])

        yield* TestClock.adjust("24 hours")
        yield* TestClock.adjust("1 second")
        yield* send(a.api_key, "POST", `/api/v1/webhooks/${id}/test`)
        yield* deliveries.pass
        const after = yield* nextAt("/hook-r")
        expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1)
        expect([verifies(old, after), verifies(secret, after)]).toEqual([false, true])
      }))

    it.effect("404 for another account's endpoint; the plan's cap; unknown event type and refused URL kinds are 400 naming the field", () =>
      Effect.gen(function*() {
        yield* fresh
        const a = yield* account()
        const b = yield* account()
        const ids: Array<string> = []
        for (let i = 0; i < 3; i++) ids.push((yield* register(a.api_key, `/hook-cap-${i}`)).id)
        const { url } = yield* Receiver
        const over = yield* send(a.api_key, "POST", "/api/v1/webhooks", { url: `${url}/hook-cap-3`, events: ["webhook.test"] })
        expect([over.status, over.body]).toEqual([403, error("Webhook endpoint limit reached: 3 endpoints on the Basic plan")])

        const notFound = [404, error("Webhook not found")]
        const id = ids[0]!
        for (const [method, path] of [
          ["DELETE", `/api/v1/webhooks/${id}`],
          ["POST", `/api/v1/webhooks/${id}/rotate-secret`],
          ["POST", `/api/v1/webhooks/${id}/test`],
          ["GET", `/api/v1/webhooks/${id}/deliveries`],
          ["POST", `/api/v1/webhooks/${id}/deliveries/00000000-0000-4000-8000-000000000000/replay`],
          ["DELETE", "/api/v1/webhooks/not-a-webhook"]
        ] as const) {
          const answer = yield* send(b.api_key, method, path)
          expect([answer.status, answer.body], `${method} ${path}`).toEqual(notFound)
        }
        const missingDelivery = yield* send(a.api_key, "POST", `/api/v1/webhooks/${id}/deliveries/00000000-0000-4000-8000-000000000000/replay`)
        expect([missingDelivery.status, missingDelivery.body]).toEqual([404, error("Delivery not found")])
        expect((yield* get(b.api_key, "/api/v1/webhooks")).body).toBe(JSON.stringify({ success: true, data: [], total: 0, page: 1, page_size: 20 }))

        // Deleting one frees a place.
        const removed = yield* send(a.api_key, "DELETE", `/api/v1/webhooks/${id}`)
        expect([removed.status, removed.body]).toEqual([200, `{"success":true}`])
        yield* register(a.api_key, "/hook-cap-3")

        const unknown = yield* send(b.api_key, "POST", "/api/v1/webhooks", { url: "https://example.com/hook", events: ["webhook.test", "ads.everything"] })
        expect([unknown.status, unknown.body]).toEqual([400, error("events.1: must be one of brand.ads_new, brand.ads_stopped, saved_search.matches_new, credits.threshold, api_key.regenerated, webhook.test")])
      }))

    it.effect("one enabled endpoint per URL and account, as stored (no fragment, WHATWG's form): the same again is a 409 naming url, also when sent at once; a disabled one's URL may be registered again", () =>
      Effect.gen(function*() {
        yield* fresh
        const sql = yield* SqlClient.SqlClient
        const { url } = yield* Receiver
        const a = yield* account({ plan: "premium" })
        const b = yield* account()
        const taken = [409, error("url: a webhook endpoint with this URL already exists")]
        const registered = (key: string, target: string) =>
          Effect.map(send(key, "POST", "/api/v1/webhooks", { url: target, events: ["webhook.test"] }), (answer) => ({
            status: answer.status,
            body: answer.body,
            url: answer.json.webhook?.url as string | undefined
          }))
        // Stored as WHATWG serialises it, the fragment dropped.
        const first = yield* registered(a.api_key, `${url.replace("http:", "HTTP:")}/x/../hook-dup#first`)
        expect([first.status, first.url]).toEqual([200, `${url}/hook-dup`])
        for (const same of [`${url}/hook-dup`, `${url}/hook-dup#other`, `${url}/./hook-dup`, `${url.replace("127.0.0.1", "127.000.000.001")}/hook-dup`]) {
          const again = yield* registered(a.api_key, same)
          expect([again.status, again.body], same).toEqual(taken)
        }
        // Another path, query or account is another endpoint.
        for (const other of [`${url}/hook-dup/`, `${url}/hook-dup?v=2`]) expect((yield* registered(a.api_key, other)).status, other).toBe(200)
        expect((yield* registered(b.api_key, `${url}/hook-dup`)).status).toBe(200)
        expect((yield* get(a.api_key, "/api/v1/webhooks")).json.total).toBe(3)

        // Four at once (an account's calls in flight): one is registered, three are the 409.
        const racing = yield* Effect.all(Array.from({ length: 4 }, () => registered(a.api_key, `${url}/hook-race`)), { concurrency: "unbounded" })
        expect(racing.map((r) => r.status).sort()).toEqual([200, 409, 409, 409])
        expect(racing.filter((r) => r.status === 409).map((r) => [r.status, r.body])).toEqual(Array(3).fill(taken))

        // Disabled (as after failing for 3 days): registering it again is how one resumes.
        yield* sql`update webhook_endpoints set enabled = false where url = ${`${url}/hook-race`}`
        expect((yield* registered(a.api_key, `${url}/hook-race`)).status).toBe(200)
        expect((yield* registered(a.api_key, `${url}/hook-race`)).status).toBe(409)
        // A URL longer than 2048 characters once stored is the schema's 400.
        const long = yield* registered(a.api_key, `${url}/${"é".repeat(400)}`)
        expect([long.status, long.body]).toEqual([400, error("url: must be a URL of at most 2048 characters")])
      }))

    it.scoped("refused URL kinds at registration (exact 400); a loopback endpoint is refused at delivery, without connecting, once the flag is off", () =>
      Effect.gen(function*() {
        yield* fresh
        const receiver = yield* Receiver
        const a = yield* account()
        const refusals: ReadonlyArray<readonly [string, string]> = [
          ["http://example.com/hook", "url: must be an https URL"],
          ["ftp://example.com/hook", "url: must be an https URL"],
          ["not a url", "url: must be an https URL"],
          ["https://10.1.2.3/hook", "url: address not allowed: webhooks are sent only to public internet addresses"],
          ["https://192.168.1.10/hook", "url: address not allowed: webhooks are sent only to public internet addresses"],
          ["https://169.254.169.254/latest/meta-data/", "url: address not allowed: webhooks are sent only to public internet addresses"],
          ["https://metadata.google.internal/computeMetadata/v1/", "url: address not allowed: webhooks are sent only to public internet addresses"],
          ["https://[fd00:ec2::254]/hook", "url: address not allowed: webhooks are sent only to public internet addresses"],
          ["https://[fc00::1]/hook", "url: address not allowed: webhooks are sent only to public internet addresses"],
          ["https://[::ffff:10.0.0.1]/hook", "url: address not allowed: webhooks are sent only to public internet addresses"],
          // Issue 44: 6to4 (here carrying 169.254.169.254), Teredo and local-use NAT64.
          ["https://[2002:a9fe:a9fe::1]/", "url: address not allowed: webhooks are sent only to public internet addresses"],
          ["https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook", "url: address not allowed: webhooks are sent only to public internet addresses"],
          ["https://[64:ff9b:1::a9fe:a9fe]/hook", "url: address not allowed: webhooks are sent only to public internet addresses"]
        ]
        for (const [url, message] of refusals) {
          const answer = yield* send(a.api_key, "POST", "/api/v1/webhooks", { url, events: ["webhook.test"] })
          expect([answer.status, answer.body], url).toEqual([400, error(message)])
        }

        // The same service with WEBHOOK_ALLOW_LOOPBACK unset: loopback is refused too.
        const off = yield* Layer.build(replica({}))
        const offUrl = Context.get(off, TestServer).url
        yield* Context.get(off, Deliveries).started
        for (const [url, message] of [
          [`${receiver.url}/hook-off`, "url: must be an https URL"],
          ["https://127.0.0.1/hook", "url: address not allowed: webhooks are sent only to public internet addresses"],
          ["https://[::1]/hook", "url: address not allowed: webhooks are sent only to public internet addresses"],
          ["https://localhost/hook", "url: address not allowed: webhooks are sent only to public internet addresses"]
        ] as const) {
          const answer = yield* send(a.api_key, "POST", "/api/v1/webhooks", { url, events: ["webhook.test"] }, offUrl)
          expect([answer.status, answer.body], url).toEqual([400, error(message)])
        }

        // Registered while the flag was on; that replica's attempt is refused before connecting.
        const { id } = yield* register(a.api_key, "/hook-off")
        yield* send(a.api_key, "POST", `/api/v1/webhooks/${id}/test`)
        expect(yield* Context.get(off, Deliveries).pass).toBe(1)
        expect(yield* countAt("/hook-off")).toBe(0)
        expect(yield* deliveriesOf(a.api_key, id)).toMatchObject([{ status: "pending", attempts: 1, last_status_code: null, delivered_at: null }])
      }))

    it.scoped("polling replicas: a new event arrives within 15 s; two instances on one database send each attempt once", () =>
      Effect.gen(function*() {
        yield* fresh
        const fast = { ...loopbackOn, WEBHOOK_POLL_EVERY: "2 seconds" }
        const one = yield* Layer.build(replica(fast))
        const two = yield* Layer.build(replica(fast))
        const passesOne = yield* Context.get(one, Deliveries).passes
        const passesTwo = yield* Context.get(two, Deliveries).passes
        const a = yield* account()
        const { id, secret } = yield* register(a.api_key, "/hook-many", ["brand.ads_new", "brand.ads_stopped"])

        const events = yield* AccountEvents
        const emitted = yield* events.emit(
          Array.from({ length: 40 }, (_, i) => ({ accountId: a.id, type: i % 2 === 0 ? "brand.ads_new" as const : "brand.ads_stopped" as const, data: { n: i } })),
          new Date(yield* Clock.currentTimeMillis)
        )
        /** Two seconds on: both replicas pass once, at the 2-second boundary crossed (the loops keep to boundaries). */
        const step = Effect.gen(function*() {
          yield* TestClock.adjust("2 seconds")
          const boundary = Math.floor((yield* Clock.currentTimeMillis) / 2000) * 2000
          for (const passes of [passesOne, passesTwo]) while ((yield* Queue.take(passes)).getTime() < boundary);
        })
        for (let s = 2; (yield* countAt("/hook-many")) < 40; s += 2) {
          expect(s, "every event within 15 s").toBeLessThanOrEqual(14)
          yield* step
        }
        // Another few passes of both: nothing is sent again.
        for (let s = 0; s < 3; s++) yield* step
        const { all } = yield* Receiver
        const got = all.filter((r) => r.path === "/hook-many")
        expect(got.map((r) => r.headers["webhook-id"]).sort()).toEqual(emitted.map((e) => e.id).sort())
        expect(got.every((r) => verifies(secret, r))).toBe(true)
        const log = yield* get(a.api_key, `/api/v1/webhooks/${id}/deliveries?page_size=100`)
        expect(log.json.total).toBe(40)
        expect(log.json.data.every((d: { status: string; attempts: number }) => d.status === "delivered" && d.attempts === 1)).toBe(true)
      }))

    /**
     * Two replicas (whole services on the file's database) with the caps of the next two tests:
     * 3 in flight overall, 2 per endpoint. Their first passes (at start) are over: from then on
     * only the test's own passes send.
     */
    const cappedReplicas = Effect.gen(function*() {
      const caps = { ...loopbackOn, WEBHOOK_MAX_CONCURRENT: "3", WEBHOOK_MAX_PER_ENDPOINT: "2" }
      const replicas = [Context.get(yield* Layer.build(replica(caps)), Deliveries), Context.get(yield* Layer.build(replica(caps)), Deliveries)] as const
      for (const r of replicas) yield* r.started
      return replicas
    })
    /** The next `n` requests the receiver got on any of `paths`. */
    const nextOn = (paths: ReadonlyArray<string>, n: number) =>
      Effect.gen(function*() {
        const got: Array<Receipt> = []
        while (got.length < n) got.push(yield* nextAt(paths))
        return got
      })

    it.scoped("concurrency caps over two replicas on one database: never more than WEBHOOK_MAX_CONCURRENT in flight, nor WEBHOOK_MAX_PER_ENDPOINT at one endpoint; each event delivered once", () =>
      Effect.gen(function*() {
        yield* fresh
        const receiver = yield* Receiver
        const [one, two] = yield* cappedReplicas
        const a = yield* account()
        const paths = ["/cap-a", "/cap-b"]
        const endpoints: Array<string> = []
        for (const path of paths) {
          endpoints.push((yield* register(a.api_key, path, ["brand.ads_new"])).id)
          receiver.script.set(path, ["hold", "hold"])
        }
        const events = yield* AccountEvents
        const emit = (n: number) =>
          Effect.flatMap(Clock.currentTimeMillis, (ms) =>
            events.emit(Array.from({ length: n }, (_, i) => ({ accountId: a.id, type: "brand.ads_new" as const, data: { i } })), new Date(ms)))
        const emitted = [...yield* emit(5)]
        // Replica one's first attempts are held open at the receiver: 3 (2 at one endpoint, 1 at
        // the other), and replica two then finds no room.
        const first = yield* Effect.fork(one.pass)
        const held = yield* nextOn(paths, 3)
        expect(paths.map((path) => held.filter((r) => r.path === path).length).sort()).toEqual([1, 2])
        expect(yield* two.pass).toBe(0)
        // Answered: replica one claims again, 3 at a time, until all 10 are sent.
        for (const path of paths) receiver.script.set(path, [])
        yield* receiver.release
        expect(yield* Fiber.join(first)).toBe(10)
        // Both replicas' passes at once over 10 more.
        emitted.push(...yield* emit(5))
        const [byOne, byTwo] = yield* Effect.all([one.pass, two.pass], { concurrency: 2 })
        expect(byOne + byTwo).toBe(10)
        // At the receiver: at most 3 at once, 2 at one endpoint, and the caps reached.
        const atOnce = receiver.peaks.map((open) => paths.map((path) => open.get(path) ?? 0))
        expect(Math.max(...atOnce.map(([x, y]) => x! + y!))).toBe(3)
        expect(Math.max(...atOnce.flat())).toBe(2)
        // Each event reached each endpoint once, recorded delivered after one attempt.
        for (const path of paths) {
          const ids = receiver.all.filter((r) => r.path === path).map((r) => r.headers["webhook-id"])
          expect(ids.sort()).toEqual(emitted.map((e) => e.id).sort())
        }
        for (const endpoint of endpoints) {
          const log = yield* deliveriesOf(a.api_key, endpoint)
          expect(log.map((d: { status: string; attempts: number }) => [d.status, d.attempts])).toEqual(Array(10).fill(["delivered", 1]))
        }
      }))

    it.scoped("at the limit: WEBHOOK_MAX_PER_ENDPOINT in flight at one endpoint leaves it no room on any replica; a dead replica's attempts count until their lease runs out", () =>
      Effect.gen(function*() {
        yield* fresh
        const receiver = yield* Receiver
        const [one, two] = yield* cappedReplicas
        const a = yield* account()
        const { id } = yield* register(a.api_key, "/cap-edge", ["brand.ads_new"])
        receiver.script.set("/cap-edge", ["hold", "hold"])
        const events = yield* AccountEvents
        const emitted = yield* events.emit(
          Array.from({ length: 4 }, (_, n) => ({ accountId: a.id, type: "brand.ads_new" as const, data: { n } })),
          new Date(yield* Clock.currentTimeMillis)
        )
        const ids = (receipts: ReadonlyArray<Receipt>) => receipts.map((r) => r.headers["webhook-id"]).sort()
        // Replica one sends 2, the endpoint's cap (3 may be in flight overall): replica two finds no room.
        const dying = yield* Effect.fork(one.pass)
        const inFlight = yield* nextOn(["/cap-edge"], 2)
        expect(receiver.open.get("/cap-edge")).toBe(2)
        expect(yield* two.pass).toBe(0)
        // Replica one dies with both in flight: until their lease (10 s + 30 s) runs out they still count.
        yield* Fiber.interrupt(dying)
        expect(yield* two.pass).toBe(0)
        yield* TestClock.adjust("39 seconds")
        expect(yield* two.pass).toBe(0)
        // Then the two never tried go first (due the longest), then the dead replica's two again.
        yield* TestClock.adjust("1 second")
        expect(yield* two.pass).toBe(4)
        const after = receiver.all.filter((r) => r.path === "/cap-edge").slice(2)
        expect(ids(after.slice(0, 2))).toEqual(emitted.map((e) => e.id).filter((e) => !ids(inFlight).includes(e)).sort())
        expect(ids(after.slice(2))).toEqual(ids(inFlight))
        expect(Math.max(...receiver.peaks.map((open) => open.get("/cap-edge") ?? 0))).toBe(2)
        const log = yield* deliveriesOf(a.api_key, id)
        expect(log.map((d: { status: string }) => d.status)).toEqual(Array(4).fill("delivered"))
        expect(log.map((d: { attempts: number }) => d.attempts).sort()).toEqual([1, 1, 2, 2])
      }))

    it.scoped("at the limit: WEBHOOK_MAX_PER_ACCOUNT_PER_MINUTE attempts start for one account in any 60 s, over two replicas and all its endpoints; the rest wait, due, never attempted; another account goes on", () =>
      Effect.gen(function*() {
        yield* fresh
        const receiver = yield* Receiver
        const paced = { ...loopbackOn, WEBHOOK_MAX_PER_ACCOUNT_PER_MINUTE: "5" }
        const one = Context.get(yield* Layer.build(replica(paced)), Deliveries)
        const two = Context.get(yield* Layer.build(replica(paced)), Deliveries)
        for (const r of [one, two]) yield* r.started
        const a = yield* account()
        const b = yield* account()
        const endpoints: Array<string> = []
        for (const path of ["/pace-a1", "/pace-a2"]) endpoints.push((yield* register(a.api_key, path, ["brand.ads_new"])).id)
        yield* register(b.api_key, "/pace-b", ["brand.ads_new"])
        const events = yield* AccountEvents
        const emitted = yield* Effect.flatMap(Clock.currentTimeMillis, (ms) =>
          events.emit([
            ...Array.from({ length: 4 }, (_, n) => ({ accountId: a.id, type: "brand.ads_new" as const, data: { n } })),
            ...Array.from({ length: 2 }, (_, n) => ({ accountId: b.id, type: "brand.ads_new" as const, data: { n } }))
          ], new Date(ms)))
        const sent = (prefix: string) => receiver.all.filter((r) => r.path.startsWith(prefix)).length
        const logOfA = Effect.map(Effect.forEach(endpoints, (id) => deliveriesOf(a.api_key, id)), (logs) =>
          logs.flat().map((d: { status: string; attempts: number }) => `${d.status} ${d.attempts}`).sort())

        // 8 deliveries are due for a, 2 for b: a's 5, b's 2 start; the other replica finds no room for a.
        expect(yield* one.pass).toBe(7)
        expect([sent("/pace-a"), sent("/pace-b")]).toEqual([5, 2])
        expect(yield* two.pass).toBe(0)
        expect(yield* logOfA).toEqual([...Array(5).fill("delivered 1"), ...Array(3).fill("pending 0")])
        // Still none in the 60th second; at 60 s the other three.
        yield* TestClock.adjust("59 seconds")
        expect([yield* one.pass, yield* two.pass]).toEqual([0, 0])
        yield* TestClock.adjust("1 second")
        expect((yield* two.pass) + (yield* one.pass)).toBe(3)
        expect(yield* logOfA).toEqual(Array(8).fill("delivered 1"))
        for (const path of ["/pace-a1", "/pace-a2"]) {
          const ids = receiver.all.filter((r) => r.path === path).map((r) => r.headers["webhook-id"]).sort()
          expect(ids).toEqual(emitted.filter((e) => e.account_id === a.id).map((e) => e.id).sort())
        }
      }))
  })
})
