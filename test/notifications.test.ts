import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Chunk, Clock, Context, Effect, Layer, Queue, TestClock } from "effect"
import { Accounts } from "../src/access/accounts/Accounts.js"
import type { AccountId } from "../src/kernel/Ids.js"
import { Ingest } from "../src/ingest/Ingest.js"
import { AccountAlerts } from "../src/notifications/alerts/AccountAlerts.js"
import { Digests } from "../src/notifications/digest/Digests.js"
import { type Delivery, Inbox, maxDigestItems } from "../src/notifications/inbox/Inbox.js"
import { advertiser, type BrandAd, ingestBrands } from "./support/BrandWorld.js"
import { clientOn, TestDatabaseUrlLive } from "./support/TestDatabase.js"
import { account, balanceOf, call, keyHeader, signIn, TestServer, testServer } from "./support/TestServer.js"
import { mailHeader, mimePart, type ReceivedMail, TestSmtp, TestSmtpLive } from "./support/TestSmtp.js"

/**
 * The inbox (issue 19; INTERPRETATIONS W5) and its sources: the brand digest across a TestClock
 * week with two replicas' jobs on one database (no digest made or mailed twice), its e-mail as a
 * real SMTP server received it, the API key regenerated, monthly credits crossing 80 % and 100 %.
 */

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** One replica: the whole service on its own pool, digests mailed to the test's SMTP server. */
const replica = Layer.unwrapEffect(
  Effect.map(TestSmtp, ({ url }) => Layer.mergeAll(testServer({ env: { SMTP_URL: url, DIGEST_CHECK_EVERY: "1 hour" } }), Ingest.Default).pipe(Layer.provideMerge(clientOn)))
)
const world = Layer.effectDiscard(ingestBrands([
  advertiser("brand-glow", "GlowLab Skincare", "glowlab.example.com"),
  advertiser("brand-amp", "Glow & Co <Labs>", "amp.example.com")
], [
  // Seen before anyone follows: never in a digest.
  { id: "glow-old", brand: "brand-glow", firstDaysAgo: 3, lastDaysAgo: 0, status: "active", format: "video", domain: "glowlab.example.com" }
])).pipe(Layer.provideMerge(replica), Layer.provideMerge(Layer.mergeAll(TestDatabaseUrlLive, TestSmtpLive)))

const answerOf = (answer: { status: number; body: string }) => ({ ...answer, json: JSON.parse(answer.body) })
const get = (key: string, path: string) => Effect.map(call(path, keyHeader(key)), answerOf)
const post = (key: string, path: string, body?: unknown) =>
  Effect.map(
    call(path, {
      method: "POST",
      headers: { "X-API-Key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    }),
    answerOf
  )
const error = (message: string) => JSON.stringify({ success: false, error: message })

/** An account's items as the inbox holds them, read without a charge. */
const itemsOf = (accountId: AccountId) =>
  Effect.map(Effect.flatMap(Inbox, (inbox) => inbox.list(accountId, { page_size: 100 })), (page) => page.data)

const item = (accountId: AccountId, key: string, createdAt: Date, type: Delivery["type"] = "brand_new_ads"): Delivery => {
  const common = { accountId, title: `Title ${key}`, body: `Body of ${key}.`, createdAt, key }
  const byType: { readonly [T in Delivery["type"]]: Delivery } = {
    brand_new_ads: {
      ...common,
      type: "brand_new_ads",
      data: { brand: { id: `brand-${key}`, name: `Brand ${key}`, domain: null }, count: 1, ads: [], since: null, until: createdAt.toISOString() }
    },
    credits_used: { ...common, type: "credits_used", data: { percent: 80, used: 80, limit: 100, period_start: createdAt.toISOString() } },
    api_key_regenerated: { ...common, type: "api_key_regenerated", data: { at: createdAt.toISOString(), address: null, via: "operator" } },
    webhook_disabled: { ...common, type: "webhook_disabled", data: { webhook_id: key, url: "https://example.com/hook", failing_since: createdAt.toISOString() } },
    saved_search_matches: {
      ...common,
      type: "saved_search_matches",
      data: { saved_search: { id: `search-${key}`, name: `Search ${key}` }, library: "social", count: 1, ad_ids: [], event_ids: [`evt_${key}`] }
    }
  }
  return byType[type]
}

/** Waits until a replica's job has finished its pass at `at` (the job tells each finished pass). */
const passed = (passes: Queue.Dequeue<Date>, at: number) =>
  Effect.gen(function*() {
    for (;;) if ((yield* Queue.take(passes)).getTime() >= at) return
  })

/** The slots of a schedule in (`from`, `to`]: every day, or every Monday, at `hour` UTC. */
const slotsOf = (frequency: "daily" | "weekly", hour: number, from: number, to: number) => {
  const slots: Array<number> = []
  for (let day = Math.floor(from / DAY) * DAY; day <= to; day += DAY) {
    const slot = day + hour * HOUR
    const monday = new Date(day).getUTCDay() === 1
    if (slot > from && slot <= to && (frequency === "daily" || monday)) slots.push(slot)
  }
  return slots
}

describe("notifications (W5)", () => {
  layer(world, { timeout: 120_000 })((it) => {
    it.effect("the inbox: newest first, unread filter and count, mark-read ignores other accounts' ids; exact bodies, 1 credit each", () =>
      Effect.gen(function*() {
        const a = yield* account()
        const b = yield* account()
        const inbox = yield* Inbox
        const now = yield* Clock.currentTimeMillis
        const mine = [
          item(a.id, "a-1", new Date(now - 2000)),
          item(a.id, "a-2", new Date(now - 1000), "credits_used"),
          item(a.id, "a-3", new Date(now), "api_key_regenerated")
        ]
        expect(yield* inbox.deliver([...mine, item(b.id, "b-1", new Date(now))])).toBe(4)
        // A second delivery of the same keys writes nothing.
        expect(yield* inbox.deliver(mine)).toBe(0)

        const list = yield* get(a.api_key, "/api/v1/notifications")
        const ids: Array<string> = list.json.data.map((n: { id: string }) => n.id)
        const shown = (d: Delivery, id: string, read = false) => ({
          id,
          type: d.type,
          title: d.title,
          body: d.body,
          created_at: d.createdAt.toISOString(),
          read,
          data: d.data
        })
        expect([list.status, list.body]).toEqual([
          200,
          JSON.stringify({ success: true, data: [shown(mine[2]!, ids[0]!), shown(mine[1]!, ids[1]!), shown(mine[0]!, ids[2]!)], total: 3, page: 1, page_size: 20 })
        ])
        expect((yield* get(a.api_key, "/api/v1/notifications/unread-count")).body).toBe(`{"success":true,"count":3}`)

        const [bId] = (yield* itemsOf(b.id)).map((n) => n.id)
        const marked = yield* post(a.api_key, "/api/v1/notifications/mark-read", { ids: [ids[1], bId, "00000000-0000-4000-8000-000000000000"] })
        expect([marked.status, marked.body]).toEqual([200, `{"success":true,"updated":1}`])
        expect((yield* post(a.api_key, "/api/v1/notifications/mark-read", { ids: [ids[1]!.toUpperCase()] })).body).toBe(`{"success":true,"updated":0}`)
        // The other account's item is untouched, and nothing said it exists.
        expect((yield* get(b.api_key, "/api/v1/notifications/unread-count")).body).toBe(`{"success":true,"count":1}`)

        const unread = yield* get(a.api_key, "/api/v1/notifications?unread=true&page_size=1&page=2")
        expect(unread.body).toBe(JSON.stringify({ success: true, data: [shown(mine[0]!, ids[2]!)], total: 2, page: 2, page_size: 1 }))
        expect((yield* get(a.api_key, "/api/v1/notifications?unread=false")).json.data.map((n: { read: boolean }) => n.read)).toEqual([false, true, false])

        expect((yield* post(a.api_key, "/api/v1/notifications/mark-all-read")).body).toBe(`{"success":true,"updated":2}`)
        expect((yield* post(a.api_key, "/api/v1/notifications/mark-all-read")).body).toBe(`{"success":true,"updated":0}`)
        expect((yield* get(a.api_key, "/api/v1/notifications/unread-count")).body).toBe(`{"success":true,"count":0}`)
        expect((yield* get(a.api_key, "/api/v1/notifications?unread=true")).body).toBe(`{"success":true,"data":[],"total":0,"page":1,"page_size":20}`)
        expect((yield* get(b.api_key, "/api/v1/notifications")).json.data.map((n: { read: boolean }) => n.read)).toEqual([false])
        expect((yield* balanceOf(a.id)).used).toBe(10)
      }))

    it.effect("bad input is a 400 naming the field and changes nothing; 1 credit each", () =>
      Effect.gen(function*() {
        const a = yield* account()
        yield* (yield* Inbox).deliver([item(a.id, "only", new Date(yield* Clock.currentTimeMillis))])
        const tooMany = Array.from({ length: 101 }, () => "00000000-0000-4000-8000-000000000000")
        const answers = [
          yield* post(a.api_key, "/api/v1/notifications/mark-read", { ids: [] }),
          yield* post(a.api_key, "/api/v1/notifications/mark-read", { ids: tooMany }),
          yield* post(a.api_key, "/api/v1/notifications/mark-read", { ids: ["nope"] }),
          yield* post(a.api_key, "/api/v1/notifications/mark-read", {}),
          yield* post(a.api_key, "/api/v1/notifications/mark-read", { ids: tooMany.slice(0, 1), all: true }),
          yield* get(a.api_key, "/api/v1/notifications?unread=yes"),
          yield* get(a.api_key, "/api/v1/notifications?page_size=0"),
          yield* get(a.api_key, "/api/v1/notifications?type=credits_used")
        ]
        expect(answers.map((x) => [x.status, x.body])).toEqual([
          [400, error("ids: must have 1 to 100 items")],
          [400, error("ids: must have 1 to 100 items")],
          [400, error("ids.0: must be a notification id (a UUID)")],
          [400, error("ids is missing")],
          [400, error("all: unknown parameter")],
          [400, error("unread: must be true or false")],
          [400, error("page_size: must be an integer from 1 to 100")],
          [400, error("type: unknown parameter")]
        ])
        // 100 ids is the edge: accepted.
        expect((yield* post(a.api_key, "/api/v1/notifications/mark-read", { ids: tooMany.slice(0, 100) })).body).toBe(`{"success":true,"updated":0}`)
        expect((yield* itemsOf(a.id)).map((n) => n.read)).toEqual([false])
        expect((yield* balanceOf(a.id)).used).toBe(answers.length + 1)
      }))

    it.effect("a failure half-way answers the 500 envelope and refunds the credit", () =>
      Effect.gen(function*() {
        const a = yield* account()
        const sql = yield* SqlClient.SqlClient
        yield* sql`alter table notifications rename to notifications_away`
        const failed = yield* Effect.all([
          get(a.api_key, "/api/v1/notifications"),
          get(a.api_key, "/api/v1/notifications/unread-count"),
          post(a.api_key, "/api/v1/notifications/mark-all-read")
        ]).pipe(Effect.ensuring(Effect.orDie(sql`alter table notifications_away rename to notifications`)))
        for (const answer of failed) expect([answer.status, answer.body]).toEqual([500, error("Internal server error")])
        expect((yield* balanceOf(a.id)).used).toBe(0)
        expect((yield* get(a.api_key, "/api/v1/notifications/unread-count")).body).toBe(`{"success":true,"count":0}`)
      }))

    it.effect(`an account keeps its newest ${maxDigestItems} digest items; other items are not pushed out by them`, () =>
      Effect.gen(function*() {
        const a = yield* account()
        const inbox = yield* Inbox
        const now = yield* Clock.currentTimeMillis
        yield* inbox.deliver([item(a.id, "credits", new Date(now - 10_000_000), "credits_used")])
        const digests = Array.from({ length: maxDigestItems + 1 }, (_, i) => item(a.id, `digest-${i}`, new Date(now - (maxDigestItems + 1 - i) * 1000)))
        expect(yield* inbox.deliver(digests.slice(0, maxDigestItems))).toBe(maxDigestItems)
        expect((yield* inbox.list(a.id, {})).total).toBe(maxDigestItems + 1)
        expect(yield* inbox.deliver(digests.slice(maxDigestItems))).toBe(1)
        const sql = yield* SqlClient.SqlClient
        const kept = yield* sql<{ type: string; n: number; oldest: string }>`
          select type, count(*)::int as n, min(dedupe_key) filter (where dedupe_key = 'digest-0') as oldest
            from notifications where account_id = ${a.id}::uuid group by type order by type`
        expect(kept).toEqual([
          { type: "brand_new_ads", n: maxDigestItems, oldest: null },
          { type: "credits_used", n: 1, oldest: null }
        ])
      }))

    it.effect("a regenerated API key: one item with when and from which address, however many passes look", () =>
      Effect.gen(function*() {
        const email = `regen-${Date.now()}@example.com`
        const password = "regen password 1"
        const created = yield* account({ email, password })
        const session = yield* signIn(email, password)
        expect((yield* call("/api/regenerate", { method: "POST", headers: session })).status).toBe(200)
        // An operator's regeneration (admin API, command line) says so instead of an address.
        yield* Effect.orDie((yield* Accounts).regenerateKey(created.id))
        const alerts = yield* AccountAlerts
        yield* alerts.pass
        yield* alerts.pass
        const at = new Date(yield* Clock.currentTimeMillis)
        const stamp = `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`
        const items = (yield* itemsOf(created.id)).map(({ body, data, title, type }) => ({ type, title, body, data }))
        const advice = "the previous key stopped working at once. If this was not you, sign in, regenerate the key and change your password."
        // Newest first: the operator's came second.
        expect(items).toEqual([
          {
            type: "api_key_regenerated",
            title: "Your API key was regenerated",
            body: `A new API key was created on ${stamp} by an operator (admin API or command line); ${advice}`,
            data: { at: at.toISOString(), address: null, via: "operator" }
          },
          {
            type: "api_key_regenerated",
            title: "Your API key was regenerated",
            body: `A new API key was created on ${stamp} from 127.0.0.1; ${advice}`,
            data: { at: at.toISOString(), address: "127.0.0.1", via: "session" }
          }
        ])
      }))

    it.scoped("the digest across a TestClock week with two replicas' jobs on one database: each due digest once, e-mailed once", () =>
      Effect.gen(function*() {
        const smtp = yield* TestSmtp
        const digestsA = yield* Digests
        const second = yield* Layer.build(replica)
        const digestsB = Context.get(second, Digests)
        const passesA = yield* digestsA.passes
        const passesB = yield* digestsB.passes
        // The second replica answers HTTP too: a different server on the same database.
        expect(Context.get(second, TestServer).url).not.toBe((yield* TestServer).url)

        const x = yield* account({ email: `digest-x-${Date.now()}@example.com` })
        const y = yield* account()
        const z = yield* account()
        const prefs = "/api/v1/brands/notifications/prefs"
        yield* post(x.api_key, prefs, { frequency: "daily", hour_utc: 9, email: true })
        yield* post(y.api_key, prefs, { frequency: "weekly", hour_utc: 7, email: false })
        yield* post(z.api_key, prefs, { frequency: "off" })
        for (const [who, brands] of [[x, ["brand-glow", "brand-amp"]], [y, ["brand-glow"]], [z, ["brand-glow"]]] as const) {
          for (const id of brands) expect((yield* post(who.api_key, "/api/v1/brands/follow", { id })).status).toBe(200)
        }
        const followedAt = yield* Clock.currentTimeMillis
        yield* Queue.takeAll(smtp.received)

        // A week in steps of 6 hours (both replicas pass on every hour inside each step, and at its
        // end): an ad of one brand every 5 hours, of the other every 11, each ingested before
        // the passes that follow its first sighting.
        const start = Math.floor(followedAt / HOUR) * HOUR + HOUR
        yield* TestClock.adjust(start - followedAt)
        yield* passed(passesA, start)
        yield* passed(passesB, start)
        const launched = Array.from({ length: 7 * 24 }, (_, i) => i + 1).flatMap((h) => [
          ...(h % 5 === 0 ? [{ id: `glow-w${h}`, brand: "brand-glow", format: "video" as const, domain: "glowlab.example.com", firstSeen: start + (h - 1) * HOUR + 50 * 60_000 }] : []),
          ...(h % 11 === 0 ? [{ id: `amp-w${h}`, brand: "brand-amp", format: "image" as const, domain: "amp.example.com", firstSeen: start + (h - 1) * HOUR + 40 * 60_000 }] : [])
        ])
        const step = 6 * HOUR
        for (let at = start; at < start + 7 * 24 * HOUR; at += step) {
          const news = launched.filter((ad) => ad.firstSeen > at && ad.firstSeen <= at + step)
          yield* ingestBrands([], news.map((ad): BrandAd => {
            const daysAgo = (at - ad.firstSeen) / DAY
            return { id: ad.id, brand: ad.brand, firstDaysAgo: daysAgo, lastDaysAgo: daysAgo, status: "active", format: ad.format, domain: ad.domain }
          }))
          yield* TestClock.adjust(step)
          yield* passed(passesA, at + step)
          yield* passed(passesB, at + step)
        }
        const end = start + 7 * 24 * HOUR

        // Brute force: each slot's window, each brand's ads first seen in it.
        const names: Record<string, string> = { "brand-glow": "GlowLab Skincare", "brand-amp": "Glow & Co <Labs>" }
        const expected = (frequency: "daily" | "weekly", hour: number, brands: ReadonlyArray<string>) => {
          const slots = slotsOf(frequency, hour, followedAt, end)
          return {
            slots,
            items: slots.flatMap((slot, i) => {
              const from = i === 0 ? followedAt : slots[i - 1]!
              return brands.flatMap((brand) => {
                const ads = launched.filter((ad) => ad.brand === brand && ad.firstSeen > from && ad.firstSeen <= slot)
                return ads.length === 0 ? [] : [{
                  until: new Date(slot).toISOString(),
                  brand,
                  title: `${names[brand]}: ${ads.length} new ad${ads.length === 1 ? "" : "s"}`,
                  ads: ads.map((ad) => ad.id).reverse().slice(0, 3)
                }]
              })
            })
          }
        }
        const shown = (accountId: AccountId) =>
          Effect.map(itemsOf(accountId), (items) =>
            items.map(({ data, title }) => {
              const d = data as { until: string; brand: { id: string }; ads: ReadonlyArray<{ id: string }> }
              return { until: d.until, brand: d.brand.id, title, ads: d.ads.map((ad) => ad.id) }
            }).sort((p, q) => p.until.localeCompare(q.until) || p.brand.localeCompare(q.brand)))
        const forX = expected("daily", 9, ["brand-glow", "brand-amp"])
        const forY = expected("weekly", 7, ["brand-glow"])
        expect(forX.slots.length).toBe(7)
        expect(forY.slots.length).toBe(1)
        expect(yield* shown(x.id)).toEqual([...forX.items].sort((p, q) => p.until.localeCompare(q.until) || p.brand.localeCompare(q.brand)))
        expect(yield* shown(y.id)).toEqual(forY.items)
        expect(yield* shown(z.id)).toEqual([])

        // One digest row per slot, whichever replica took it; e-mail only where asked for and with news.
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ account_id: string; slot: Date; email_status: string }>`
          select account_id::text, slot, email_status from notification_digests
           where account_id = any(${[x.id, y.id, z.id]}::uuid[]) order by account_id, slot`
        expect(rows.filter((r) => r.account_id === x.id).map((r) => [r.slot.getTime(), r.email_status]))
          .toEqual(forX.slots.map((slot) => [slot, "sent"]))
        expect(rows.filter((r) => r.account_id === y.id).map((r) => [r.slot.getTime(), r.email_status])).toEqual([[forY.slots[0], "none"]])
        expect(rows.filter((r) => r.account_id === z.id)).toEqual([])

        const mails: ReadonlyArray<ReceivedMail> = Chunk.toReadonlyArray(yield* Queue.takeAll(smtp.received))
        expect(mails.map((m) => m.to)).toEqual(forX.slots.map(() => [x.email]))

        // The first digest as it arrived: headers, a text and an HTML part with the same news.
        const [first] = mails
        const firstItems = forX.items.filter((i) => i.until === new Date(forX.slots[0]!).toISOString())
        const count = firstItems.reduce((n, i) => n + launched.filter((ad) => ad.brand === i.brand && ad.firstSeen <= forX.slots[0]!).length, 0)
        expect(first!.from).toBe("notifications@adintel.local")
        expect(mailHeader(first!.raw, "From")).toBe("AdIntel <notifications@adintel.local>")
        expect(mailHeader(first!.raw, "To")).toBe(x.email)
        expect(mailHeader(first!.raw, "Subject")).toBe(
          `AdIntel daily digest: ${count} new ad${count === 1 ? "" : "s"} from ${firstItems.length} tracked brand${firstItems.length === 1 ? "" : "s"}`
        )
        expect(mailHeader(first!.raw, "Content-Type")).toMatch(/^multipart\/alternative;/)
        const text = mimePart(first!.raw, "text/plain")!
        const html = mimePart(first!.raw, "text/html")!
        for (const news of firstItems) {
          const line = news.title.replace(`${names[news.brand]}: `, "")
          const domain = news.brand === "brand-amp" ? "amp.example.com" : "glowlab.example.com"
          expect(text).toContain(`${names[news.brand]} (${domain}): ${line}`)
          for (const id of news.ads) {
            expect(text).toContain(`id ${id}]`)
            expect(html).toContain(`id ${id}]`)
          }
        }
        expect(text).not.toContain("glow-old")
        // Brand names are escaped in the HTML part, as they are in the first digest that has one.
        const withAmp = forX.slots.findIndex((slot) => forX.items.some((i) => i.brand === "brand-amp" && i.until === new Date(slot).toISOString()))
        const ampHtml = mimePart(mails[withAmp]!.raw, "text/html")!
        expect(ampHtml).toContain("Glow &amp; Co &lt;Labs&gt; <small>(amp.example.com)</small>")
        expect(ampHtml).not.toContain("<Labs>")
        expect(mimePart(mails[withAmp]!.raw, "text/plain")).toContain("Glow & Co <Labs> (amp.example.com)")
      }))

    // Last: it moves the clock past a monthly period.
    it.effect("monthly credits crossing 80 % and 100 %: one item each per period, nothing on the metered path", () =>
      Effect.gen(function*() {
        const a = yield* account({ patch: { monthly_limit: 5 } })
        const alerts = yield* AccountAlerts
        const spend = (n: number) => Effect.forEach(Array.from({ length: n }), () => call("/api/v1/credits", keyHeader(a.api_key)), { discard: true })
        const credits = Effect.map(itemsOf(a.id), (items) => items.map((i) => [i.title, i.body, (i.data as { period_start: string }).period_start]))
        const periodStart = (yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ period_start: Date }>`select period_start from account_meters where account_id = ${a.id}::uuid`))[0]!.period_start
        const day = periodStart.toISOString().slice(0, 10)

        yield* spend(3)
        yield* alerts.pass
        expect(yield* credits).toEqual([])
        yield* spend(1)
        yield* alerts.pass
        yield* alerts.pass
        const eighty = ["80 % of your monthly API credits used", `You have used 4 of your 5 monthly API credits in the period that started ${day}.`, periodStart.toISOString()]
        expect(yield* credits).toEqual([eighty])
        yield* spend(1)
        yield* alerts.pass
        const hundred = [
          "Your monthly API credits are used up",
          `All 5 monthly API credits of the period that started ${day} are used: calls now spend add-on credits, and are refused when none are left, until the next period.`,
          periodStart.toISOString()
        ]
        expect(yield* credits).toEqual([hundred, eighty])

        // The next period: crossing again is told again, once.
        yield* TestClock.adjust("32 days")
        yield* spend(4)
        yield* alerts.pass
        yield* alerts.pass
        const items = yield* credits
        expect(items.length).toBe(3)
        expect(items.slice(1)).toEqual([hundred, eighty])
        expect(items[0]![0]).toBe("80 % of your monthly API credits used")
        expect(items[0]![2]).not.toBe(periodStart.toISOString())
        expect((yield* balanceOf(a.id)).used).toBe(4)
      }))
  })
})
