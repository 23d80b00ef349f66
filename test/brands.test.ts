import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { type Config, ConfigProvider, Effect, Either, Layer, Option, TestClock } from "effect"
import { trackingLimits } from "../src/ads/brands/BrandsConfig.js"
import { mailSettings } from "../src/notifications/mail/MailConfig.js"
import { Ingest } from "../src/ingest/Ingest.js"
import { demoTrackedBrands } from "../src/demo/TrackedBrands.js"
import { Digests } from "../src/notifications/digest/Digests.js"
import { advertiser, type BrandAd, ingestBrands } from "./support/BrandWorld.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, balanceOf, call, keyHeader, signIn, TestServer, testServer } from "./support/TestServer.js"

/**
 * The brand tracker (issue 19; INTERPRETATIONS W1) and the digest preferences (W6), through
 * HTTP: exact bodies, one credit per call, the per-plan limit at its edge and under concurrency,
 * accounts kept apart, the ads through the ad search engine, the legacy session paths (S4, S5).
 */

const limits = { basic: 3, pro: 5 }
const password = "brands password 1"

const brands = [
  advertiser("brand-glow", "GlowLab Skincare", "glowlab.example.com"),
  advertiser("brand-nodomain", "Nodomain Co"),
  advertiser("brand-empty", "Empty & Sons"),
  // The same id in another library is another advertiser: not a brand, and not its ads.
  advertiser("brand-glow", "GlowLab Pins", "glowlab.example.com", "pinboard"),
  advertiser("brand-pin", "Pins Only", undefined, "pinboard"),
  ...Array.from({ length: 12 }, (_, i) => advertiser(`brand-l${i + 1}`, `Limit Brand ${i + 1}`))
]
const ads: ReadonlyArray<BrandAd> = [
  { id: "glow-1", brand: "brand-glow", firstDaysAgo: 1, lastDaysAgo: 0, status: "active", format: "video", domain: "glowlab.example.com" },
  { id: "glow-2", brand: "brand-glow", firstDaysAgo: 10, lastDaysAgo: 0, status: "active", format: "image", domain: "shop.glowlab.example.com" },
  { id: "glow-3", brand: "brand-glow", firstDaysAgo: 40, lastDaysAgo: 35, status: "inactive", format: "video", domain: "glowlab.example.com" },
  { id: "glow-4", brand: "brand-glow", firstDaysAgo: 2, lastDaysAgo: 0, status: "active", format: "carousel", domain: "glowlab.example.com" },
  { id: "glow-pin-1", brand: "brand-glow", library: "pinboard", firstDaysAgo: 1, lastDaysAgo: 0, status: "active", format: "image", domain: "glowlab.example.com" },
  { id: "nodomain-1", brand: "brand-nodomain", firstDaysAgo: 50, lastDaysAgo: 45, status: "inactive", format: "image", domain: "other.example.com" }
]

const world = Layer.effectDiscard(ingestBrands(brands, ads)).pipe(
  Layer.provideMerge(
    Layer.mergeAll(testServer({ env: { BRAND_TRACKING_LIMITS: `basic=${limits.basic},pro=${limits.pro}` } }), Ingest.Default)
  ),
  Layer.provideMerge(TestDatabase)
)

const answerOf = (answer: { status: number; body: string }) => ({ ...answer, json: JSON.parse(answer.body) })
const get = (key: string, path: string) => Effect.map(call(path, keyHeader(key)), answerOf)
const post = (key: string, path: string, body: unknown) =>
  Effect.map(
    call(path, { method: "POST", headers: { "X-API-Key": key, "content-type": "application/json" }, body: JSON.stringify(body) }),
    answerOf
  )
const error = (message: string) => JSON.stringify({ success: false, error: message })

/** What the clock says now, as the tracker writes instants. */
const nowIso = Effect.map(TestClock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/** Brute force over `ads` (dated at clock 0, where these tests run): the brand as the list shows it. */
const expectedGlow = (followedAt: string) => ({
  id: "brand-glow",
  name: "GlowLab Skincare",
  domain: "glowlab.example.com",
  active_ads: 3,
  total_ads: 4,
  new_ads_7d: 2,
  new_ads_30d: 3,
  last_seen: "1970-01-01T00:00:00.000Z",
  domains: ["glowlab.example.com", "shop.glowlab.example.com"],
  followed_at: followedAt
})
const expectedNodomain = (followedAt: string) => ({
  id: "brand-nodomain",
  name: "Nodomain Co",
  domain: "other.example.com",
  active_ads: 0,
  total_ads: 1,
  new_ads_7d: 0,
  new_ads_30d: 0,
  last_seen: "1969-11-17T00:00:00.000Z",
  domains: ["other.example.com"],
  followed_at: followedAt
})
const expectedEmpty = (followedAt: string) => ({
  id: "brand-empty",
  name: "Empty & Sons",
  domain: "",
  active_ads: 0,
  total_ads: 0,
  new_ads_7d: 0,
  new_ads_30d: 0,
  last_seen: null,
  domains: [],
  followed_at: followedAt
})

describe("brand tracker (W1)", () => {
  layer(world, { timeout: 60_000 })((it) => {
    it.effect("follow, list newest first with the brand's figures, follow again, unfollow: exact bodies, 1 credit each", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        expect((yield* get(api_key, "/api/v1/brands")).body).toBe(`{"success":true,"data":[],"total":0}`)
        const at = yield* nowIso

        const followed = yield* post(api_key, "/api/v1/brands/follow", { id: "brand-glow" })
        expect([followed.status, followed.body]).toEqual([200, JSON.stringify({ success: true, brand: expectedGlow(at) })])
        expect((yield* post(api_key, "/api/v1/brands/follow", { id: "brand-nodomain" })).status).toBe(200)
        expect((yield* post(api_key, "/api/v1/brands/follow", { id: "brand-empty" })).body).toBe(
          JSON.stringify({ success: true, brand: expectedEmpty(at) })
        )
        // Following again changes nothing: same brand, same follow date, still three.
        expect((yield* post(api_key, "/api/v1/brands/follow", { id: "brand-glow" })).body).toBe(followed.body)

        // Newest follow first; three follows made at one instant keep the order they were made in.
        const all = [expectedEmpty(at), expectedNodomain(at), expectedGlow(at)]
        expect((yield* get(api_key, "/api/v1/brands")).body).toBe(JSON.stringify({ success: true, data: all, total: 3 }))
        expect((yield* get(api_key, "/api/v1/brands?page=2&page_size=2")).body).toBe(
          JSON.stringify({ success: true, data: [all[2]], total: 3 })
        )
        expect((yield* get(api_key, "/api/v1/brands?page=3&page_size=2")).body).toBe(`{"success":true,"data":[],"total":3}`)

        const unfollowed = yield* post(api_key, "/api/v1/brands/unfollow", { id: "brand-nodomain" })
        expect([unfollowed.status, unfollowed.body]).toEqual([200, `{"success":true}`])
        // Also when it is not tracked, or no brand at all.
        expect((yield* post(api_key, "/api/v1/brands/unfollow", { id: "brand-nodomain" })).body).toBe(`{"success":true}`)
        expect((yield* post(api_key, "/api/v1/brands/unfollow", { id: "no-such-brand" })).body).toBe(`{"success":true}`)
        expect((yield* get(api_key, "/api/v1/brands")).json.data.map((b: { id: string }) => b.id)).toEqual(["brand-empty", "brand-glow"])
        expect((yield* balanceOf(id)).used).toBe(12)
      }))

    it.effect("refusals: unknown brand and a brand of another library are 404, bad bodies and paging 400; each keeps its credit", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const answers = [
          yield* post(api_key, "/api/v1/brands/follow", { id: "no-such-brand" }),
          yield* post(api_key, "/api/v1/brands/follow", { id: "brand-pin" }),
          yield* post(api_key, "/api/v1/brands/follow", {}),
          yield* post(api_key, "/api/v1/brands/follow", { id: "has space" }),
          yield* post(api_key, "/api/v1/brands/follow", { id: "brand-glow", folder: "x" }),
          yield* post(api_key, "/api/v1/brands/unfollow", { id: 7 }),
          yield* get(api_key, "/api/v1/brands?page_size=101"),
          yield* get(api_key, "/api/v1/brands?page=0"),
          yield* get(api_key, "/api/v1/brands?sort=name")
        ]
        expect(answers.map((a) => [a.status, a.body])).toEqual([
          [404, error("Brand not found")],
          [404, error("Brand not found")],
          [400, error("id is missing")],
          [400, error("id: must be 1 to 200 letters, digits or . _ : @ / -")],
          [400, error("folder: unknown parameter")],
          [400, error("id: must be 1 to 200 letters, digits or . _ : @ / -")],
          [400, error("page_size: must be an integer from 1 to 100")],
          [400, error("page: must be an integer from 1 to 10000")],
          [400, error("sort: unknown parameter")]
        ])
        expect((yield* balanceOf(id)).used).toBe(answers.length)
        expect((yield* get(api_key, "/api/v1/brands")).json.total).toBe(0)
      }))

    it.effect("the plan's limit at its edge: the next follow is 403 with the exact message, a tracked brand still follows", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "basic" })
        for (const brand of ["brand-l1", "brand-l2", "brand-l3"]) {
          expect((yield* post(api_key, "/api/v1/brands/follow", { id: brand })).status).toBe(200)
        }
        const refused = yield* post(api_key, "/api/v1/brands/follow", { id: "brand-l4" })
        expect([refused.status, refused.body]).toEqual([403, error("Brand tracking limit reached: 3 brands on the Basic plan")])
        expect((yield* post(api_key, "/api/v1/brands/follow", { id: "brand-l2" })).status).toBe(200)
        expect((yield* post(api_key, "/api/v1/brands/unfollow", { id: "brand-l1" })).status).toBe(200)
        expect((yield* post(api_key, "/api/v1/brands/follow", { id: "brand-l4" })).status).toBe(200)
        expect((yield* get(api_key, "/api/v1/brands")).json.data.map((b: { id: string }) => b.id)).toEqual(["brand-l4", "brand-l3", "brand-l2"])
        // The 403 is a deliberate answer: its credit is kept (G4).
        expect((yield* balanceOf(id)).used).toBe(8)
      }))

    it.effect("the limit is exact under concurrency: 12 follows in flight on a limit of 5 track exactly 5", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "pro" })
        const { url } = yield* TestServer
        const answers = yield* Effect.promise(() =>
          Promise.all(Array.from({ length: 12 }, (_, i) =>
            fetch(`${url}/api/v1/brands/follow`, {
              method: "POST",
              headers: { "X-API-Key": api_key, "content-type": "application/json" },
              body: JSON.stringify({ id: `brand-l${i + 1}` })
            }).then(async (r) => ({ status: r.status, body: await r.text() }))))
        )
        expect(answers.filter((a) => a.status === 200).length).toBe(limits.pro)
        for (const refused of answers.filter((a) => a.status !== 200)) {
          expect([refused.status, refused.body]).toEqual([403, error("Brand tracking limit reached: 5 brands on the Pro plan")])
        }
        expect((yield* get(api_key, "/api/v1/brands")).json.total).toBe(limits.pro)
      }))

    it.effect("tracking is per account: another account's brands are neither listed nor changed", () =>
      Effect.gen(function*() {
        const a = yield* account()
        const b = yield* account()
        yield* post(a.api_key, "/api/v1/brands/follow", { id: "brand-glow" })
        expect((yield* get(b.api_key, "/api/v1/brands")).body).toBe(`{"success":true,"data":[],"total":0}`)
        expect((yield* post(b.api_key, "/api/v1/brands/unfollow", { id: "brand-glow" })).body).toBe(`{"success":true}`)
        expect((yield* get(a.api_key, "/api/v1/brands")).json.data.map((x: { id: string }) => x.id)).toEqual(["brand-glow"])
      }))

    it.effect("a brand's ads come from the ad search: its filters, sorts and scroll tokens; tracked or not", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const ids = (answer: { json: { data: ReadonlyArray<{ id: string }> } }) => answer.json.data.map((ad) => ad.id)
        // Newest first, two per page, walked with the token alone; only the brand's social ads.
        const first = yield* get(api_key, "/api/v1/brands/ads?id=brand-glow&limit=2")
        expect(first.status).toBe(200)
        expect(Object.keys(first.json)).toEqual(["success", "data", "scroll_token", "has_more"])
        expect([ids(first), first.json.has_more]).toEqual([["glow-1", "glow-4"], true])
        expect(first.json.data.every((ad: { advertiser: { id: string }; library: string }) => ad.advertiser.id === "brand-glow" && ad.library === "social"))
          .toBe(true)
        const second = yield* get(api_key, `/api/v1/brands/ads?scroll_token=${encodeURIComponent(first.json.scroll_token)}`)
        expect([ids(second), second.json.has_more, second.json.scroll_token]).toEqual([["glow-2", "glow-3"], false, null])
        // The same token with its own id is the same search.
        const again = yield* get(api_key, `/api/v1/brands/ads?id=brand-glow&scroll_token=${encodeURIComponent(first.json.scroll_token)}`)
        expect(ids(again)).toEqual(["glow-2", "glow-3"])
        // Filters and sorts of the ad searches.
        expect(ids(yield* get(api_key, "/api/v1/brands/ads?id=brand-glow&status=inactive"))).toEqual(["glow-3"])
        expect(ids(yield* get(api_key, "/api/v1/brands/ads?id=brand-glow&sort=oldest&format=video,carousel"))).toEqual(["glow-3", "glow-4", "glow-1"])
        expect(ids(yield* get(api_key, "/api/v1/brands/ads?id=brand-glow&domain=shop.glowlab.example.com"))).toEqual(["glow-2"])
        expect(ids(yield* get(api_key, "/api/v1/brands/ads?id=brand-empty"))).toEqual([])

        // A token of a wider search is not a brand's, and a brand's is not another search's.
        const library = yield* get(api_key, "/api/v1/adlibrary?limit=1")
        const foreign = yield* get(api_key, `/api/v1/brands/ads?scroll_token=${encodeURIComponent(library.json.scroll_token)}`)
        expect([foreign.status, foreign.body]).toEqual([400, error("scroll_token: this token continues another search (social)")])
        const back = yield* get(api_key, `/api/v1/adlibrary?scroll_token=${encodeURIComponent(first.json.scroll_token)}`)
        expect([back.status, back.body]).toEqual([400, error("scroll_token: this token continues another search (brand-ads)")])
        const other = yield* get(api_key, `/api/v1/brands/ads?id=brand-nodomain&scroll_token=${encodeURIComponent(first.json.scroll_token)}`)
        expect(other.body).toBe(
          error("scroll_token: the filters sent differ from the token's; send the token alone, or start a new search without it")
        )

        const refusals = [
          yield* get(api_key, "/api/v1/brands/ads?id=no-such-brand"),
          yield* get(api_key, "/api/v1/brands/ads?id=brand-pin"),
          yield* get(api_key, "/api/v1/brands/ads"),
          yield* get(api_key, "/api/v1/brands/ads?id=brand-glow&advertiser_id=brand-nodomain"),
          yield* get(api_key, "/api/v1/brands/ads?id=brand-glow&limit=51"),
          yield* get(api_key, "/api/v1/brands/ads?id=brand-glow&scroll_token=forged.token")
        ]
        expect(refusals.map((a) => [a.status, a.body])).toEqual([
          [404, error("Brand not found")],
          [404, error("Brand not found")],
          [400, error("id is missing")],
          [400, error("advertiser_id: unknown parameter")],
          [400, error("limit: must be an integer from 1 to 50")],
          [400, error("scroll_token: invalid or altered token; start again without it")]
        ])
        expect((yield* balanceOf(id)).used).toBe(17)
      }))

    it.effect("digest preferences (W6): defaults, partial updates answered whole, bad values refused by name, per account", () =>
      Effect.gen(function*() {
        const a = yield* account()
        const b = yield* account()
        const path = "/api/v1/brands/notifications/prefs"
        const prefs = (p: object) => JSON.stringify({ success: true, prefs: p })
        expect((yield* get(a.api_key, path)).body).toBe(prefs({ frequency: "daily", email: true, hour_utc: 8 }))
        expect((yield* post(a.api_key, path, { frequency: "weekly" })).body).toBe(prefs({ frequency: "weekly", email: true, hour_utc: 8 }))
        expect((yield* post(a.api_key, path, { email: false, hour_utc: 23 })).body).toBe(prefs({ frequency: "weekly", email: false, hour_utc: 23 }))
        expect((yield* post(a.api_key, path, {})).body).toBe(prefs({ frequency: "weekly", email: false, hour_utc: 23 }))
        const refused = [
          yield* post(a.api_key, path, { hour_utc: 24 }),
          yield* post(a.api_key, path, { hour_utc: 7.5 }),
          yield* post(a.api_key, path, { frequency: "hourly" }),
          yield* post(a.api_key, path, { email: "yes" }),
          yield* post(a.api_key, path, { timezone: "UTC" })
        ]
        expect(refused.map((r) => [r.status, r.body])).toEqual([
          [400, error("hour_utc: must be an integer from 0 to 23")],
          [400, error("hour_utc: must be an integer from 0 to 23")],
          [400, error("frequency: must be one of off, daily, weekly")],
          [400, error("email: must be true or false")],
          [400, error("timezone: unknown parameter")]
        ])
        expect((yield* get(a.api_key, path)).body).toBe(prefs({ frequency: "weekly", email: false, hour_utc: 23 }))
        expect((yield* get(b.api_key, path)).body).toBe(prefs({ frequency: "daily", email: true, hour_utc: 8 }))
        expect((yield* balanceOf(a.id)).used).toBe(10)
      }))

    it.effect("the legacy session paths (S4, S5): the same routes and the account's own data, no credit; 401 without a session", () =>
      Effect.gen(function*() {
        const email = `legacy-brands-${Date.now()}@example.com`
        const created = yield* account({ email, password })
        const session = yield* signIn(email, password)
        const json = { ...session, "content-type": "application/json" }
        const followed = yield* call("/api/brands/follow", { method: "POST", headers: json, body: `{"id":"brand-glow"}` })
        expect(followed.status).toBe(200)
        expect(JSON.parse(followed.body).brand.id).toBe("brand-glow")
        // One list for the account: the key sees what the session followed.
        const viaSession = yield* call("/api/brands", { headers: session })
        const viaKey = yield* get(created.api_key, "/api/v1/brands")
        expect(viaSession.body).toBe(viaKey.body)
        expect((yield* call("/api/brands/ads?id=brand-glow&limit=1", { headers: session })).status).toBe(200)
        const prefs = yield* call("/api/brands/notifications/prefs", { method: "POST", headers: json, body: `{"frequency":"off"}` })
        expect(prefs.body).toBe(`{"success":true,"prefs":{"frequency":"off","email":true,"hour_utc":8}}`)
        expect((yield* call("/api/brands/notifications/prefs", { headers: session })).body).toBe(prefs.body)
        expect((yield* call("/api/brands/unfollow", { method: "POST", headers: json, body: `{"id":"brand-glow"}` })).body).toBe(`{"success":true}`)
        // Only the keyed call above was charged.
        expect((yield* balanceOf(created.id)).used).toBe(1)

        for (const [method, path] of [["GET", "/api/brands"], ["POST", "/api/brands/follow"], ["GET", "/api/brands/ads?id=brand-glow"], ["GET", "/api/brands/notifications/prefs"]]) {
          const init = method === "POST" ? { method, headers: { "content-type": "application/json", ...keyHeader(created.api_key).headers }, body: `{"id":"brand-glow"}` } : keyHeader(created.api_key)
          const answer = yield* call(path!, init)
          expect([path, answer.status, answer.body]).toEqual([path, 401, error("Unauthorized")])
        }
        // S1: a state change from another site is refused.
        const forged = yield* call("/api/brands/follow", {
          method: "POST",
          headers: { cookie: session.cookie, origin: "https://evil.example", "content-type": "application/json" },
          body: `{"id":"brand-glow"}`
        })
        expect(forged.status).toBe(403)
        expect((yield* call("/api/brands", { headers: session })).body).toBe(`{"success":true,"data":[],"total":0}`)
      }))

    it.effect("a failure half-way answers the 500 envelope and refunds the credit; nothing is lost", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        yield* post(api_key, "/api/v1/brands/follow", { id: "brand-glow" })
        const sql = yield* SqlClient.SqlClient
        yield* sql`alter table brand_follows rename to brand_follows_away`
        const failed = yield* Effect.all([
          get(api_key, "/api/v1/brands"),
          post(api_key, "/api/v1/brands/follow", { id: "brand-empty" })
        ]).pipe(Effect.ensuring(Effect.orDie(sql`alter table brand_follows_away rename to brand_follows`)))
        for (const answer of failed) expect([answer.status, answer.body]).toEqual([500, error("Internal server error")])
        expect((yield* balanceOf(id)).used).toBe(1)
        expect((yield* get(api_key, "/api/v1/brands")).json.data.map((b: { id: string }) => b.id)).toEqual(["brand-glow"])
      }))

    it.effect("documents every route and the follow's 403 and 404 in OpenAPI, once each (the session twins are not documented)", () =>
      Effect.gen(function*() {
        const doc = JSON.parse((yield* call("/openapi.json")).body)
        for (const [path, method] of [["/api/v1/brands", "get"], ["/api/v1/brands/follow", "post"], ["/api/v1/brands/unfollow", "post"], ["/api/v1/brands/ads", "get"], ["/api/v1/brands/notifications/prefs", "get"], ["/api/v1/brands/notifications/prefs", "post"]] as const) {
          // 400 where the route takes input: the preferences' GET takes none.
          const input = !(path.endsWith("/prefs") && method === "get")
          expect(Object.keys(doc.paths[path][method].responses)).toEqual(expect.arrayContaining(input ? ["200", "400", "401", "429", "500"] : ["200", "401", "429", "500"]))
          expect(Object.keys(doc.paths[path][method].responses).includes("400")).toBe(input)
          expect(doc.paths[path.replace("/api/v1/", "/api/")]).toBeUndefined()
        }
        expect(Object.keys(doc.paths["/api/v1/brands/follow"].post.responses)).toEqual(expect.arrayContaining(["403", "404"]))
        expect(doc.components.schemas.TrackedBrand.required).toEqual(expect.arrayContaining(["id", "name", "domain", "active_ads"]))
      }))

    it.effect("the demo account's first start: the busiest brands tracked, their last week in the inbox; twice is once", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        yield* demoTrackedBrands(id)
        yield* demoTrackedBrands(id)
        expect((yield* get(api_key, "/api/v1/brands")).json.data.map((b: { id: string }) => b.id)).toEqual(["brand-nodomain", "brand-glow"])
        const inbox = (yield* get(api_key, "/api/v1/notifications")).json
        expect(inbox.data.map((n: { type: string; title: string; data: { ads: ReadonlyArray<{ id: string }> } }) => [n.type, n.title, n.data.ads.map((ad) => ad.id)]))
          .toEqual([["brand_new_ads", "GlowLab Skincare: 2 new ads", ["glow-1", "glow-4"]]])
      }))

    // Last: it moves the clock a day on.
    it.effect("without SMTP_URL a digest reaches the inbox only", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        yield* post(api_key, "/api/v1/brands/follow", { id: "brand-glow" })
        yield* ingestBrands([], [{ id: "glow-new", brand: "brand-glow", firstDaysAgo: -0.25, lastDaysAgo: -0.25, status: "active", format: "video", domain: "glowlab.example.com" }])
        yield* TestClock.adjust("1 day")
        yield* (yield* Digests).pass
        const inbox = yield* get(api_key, "/api/v1/notifications")
        expect(inbox.json.data.map((n: { type: string; title: string }) => [n.type, n.title])).toEqual([["brand_new_ads", "GlowLab Skincare: 1 new ad"]])
        const sql = yield* SqlClient.SqlClient
        const digests = yield* sql<{ email_status: string; ads: number }>`select email_status, ads from notification_digests where account_id = ${id}::uuid`
        expect(digests).toEqual([{ email_status: "none", ads: 1 }])
      }))
  })
})

describe("brand tracker and digest settings", () => {
  const read = <A>(config: Config.Config<A>, env: Record<string, string>) =>
    Effect.either(Effect.withConfigProvider(config, ConfigProvider.fromMap(new Map(Object.entries(env)))))

  it.effect("BRAND_TRACKING_LIMITS: defaults, named plans overridden, nonsense refused by name", () =>
    Effect.gen(function*() {
      expect(yield* read(trackingLimits, {})).toEqual(Either.right({ free: 3, basic: 25, pro: 100, premium: 500 }))
      expect(yield* read(trackingLimits, { BRAND_TRACKING_LIMITS: " basic = 2, premium=10000" })).toEqual(
        Either.right({ free: 3, basic: 2, pro: 100, premium: 10_000 })
      )
      for (const bad of ["gold=5", "basic=10001", "basic", "basic=-1"]) {
        const refused = yield* read(trackingLimits, { BRAND_TRACKING_LIMITS: bad })
        expect(Either.isLeft(refused) && String(refused.left)).toContain("BRAND_TRACKING_LIMITS must list <plan>=<brands> pairs")
      }
    }))

  it.effect("SMTP_URL: unset or empty sends no mail; anything but smtp(s):// is refused without echoing it", () =>
    Effect.gen(function*() {
      for (const env of [{}, { SMTP_URL: " " }] as ReadonlyArray<Record<string, string>>) {
        const settings = yield* read(mailSettings, env)
        expect(Either.isRight(settings) && Option.isNone(settings.right.smtpUrl)).toBe(true)
      }
      const set = yield* read(mailSettings, { SMTP_URL: "smtps://user:secret@mail.example.com:465" })
      expect(Either.isRight(set) && Option.isSome(set.right.smtpUrl)).toBe(true)
      const refused = yield* read(mailSettings, { SMTP_URL: "http://user:secret@mail.example.com" })
      expect(Either.isLeft(refused) && String(refused.left)).toContain("SMTP_URL")
      expect(Either.isLeft(refused) && String(refused.left)).not.toContain("secret")
    }))
})
