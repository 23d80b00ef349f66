import { SqlClient } from "@effect/sql"
import { TrustProxy } from "../src/platform/Forwarded.js"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { createHash } from "node:crypto"
import { HttpApi } from "@effect/platform"
import * as Password from "../src/access/accounts/Password.js"
import { maxSessionsPerAccount } from "../src/access/session/Sessions.js"
import { AdIntelApi } from "../src/app/Api.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, balanceOf, call, keyHeader, sameOrigin, signIn, TestServer, testServer } from "./support/TestServer.js"

const password = "correct horse battery"

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()
const formPost = (fields: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
  body: form(fields),
  redirect: "manual"
})

/** Signs in through the form, the way a browser does; the session cookie from Set-Cookie. */
const login = (email: string, pass: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const origin = yield* sameOrigin
    const answer = yield* call("/login", formPost({ email, password: pass }, { ...origin, ...headers }))
    const cookie = answer.headers.get("set-cookie")?.split(";")[0] ?? ""
    return { answer, cookie }
  })

describe("browser sessions and the key page (spec: Session helpers; S1, S2)", () => {
  layer(testServer().pipe(Layer.provideMerge(TestDatabase)))((it) => {
    it.effect("GET /api without a session redirects to the sign-in page, which is HTML with a form", () =>
      Effect.gen(function*() {
        const answer = yield* call("/api", { redirect: "manual" })
        expect(answer.status).toBe(302)
        expect(answer.headers.get("location")).toBe("/login?next=%2Fapi")
        const page = yield* call("/login?next=%2Fapi")
        expect(page.status).toBe(200)
        expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
        expect(page.headers.get("cache-control")).toBe("no-store")
        expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
        expect(page.body).toContain(`<form method="post" action="/login">`)
        expect(page.body).toContain(`<input type="hidden" name="next" value="/api">`)
        // No open redirect: `next` is a path of this service only.
        const elsewhere = yield* call("/login?next=https%3A%2F%2Fevil.example%2F")
        expect(elsewhere.status).toBe(400)
        expect(elsewhere.body).toBe(`{"success":false,"error":"next: must be a path of this service"}`)
      }))

    it.effect("signs in with a hashed, HttpOnly, SameSite=Lax session cookie and shows the key page", () =>
      Effect.gen(function*() {
        const email = `page-${Date.now()}@example.com`
        const created = yield* account({ email, password, plan: "pro" })
        const wrong = yield* login(email, "not the password")
        expect(wrong.answer.status).toBe(401)
        expect(wrong.answer.headers.get("set-cookie")).toBeNull()
        expect(wrong.answer.body).toContain("Wrong e-mail or password.")
        const unknown = yield* login(`nobody-${Date.now()}@example.com`, password)
        expect(unknown.answer.status).toBe(401)
        expect(unknown.answer.body).toContain("Wrong e-mail or password.")

        const { answer, cookie } = yield* login(email.toUpperCase(), password)
        expect(answer.status).toBe(303)
        expect(answer.headers.get("location")).toBe("/api")
        const setCookie = answer.headers.get("set-cookie")!
        expect(setCookie).toMatch(/^adintel_session=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/)
        expect(setCookie).not.toContain("Secure")

        // Only the hash of the session id is stored.
        const sql = yield* SqlClient.SqlClient
        const token = cookie.split("=")[1]!
        const rows = yield* sql<{ id_hash: Uint8Array }>`select id_hash from sessions s join accounts a on a.id = s.account_id where a.email = ${email}`
        expect(rows.map((r) => Buffer.from(r.id_hash).toString("hex"))).toEqual([createHash("sha256").update(token).digest("hex")])

        const page = yield* call("/api", { headers: { cookie } })
        expect(page.status).toBe(200)
        expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
        expect(page.body).toContain(`<code id="masked-key">adi_••••••••••••${created.api_key.slice(-4)}</code>`)
        expect(page.body).toContain(`<code id="api-key">${created.api_key}</code>`)
        expect(page.body).toContain(`<strong id="plan">pro</strong>`)
        expect(page.body).toContain(`curl -H &quot;X-API-Key: adi_••••••••••••${created.api_key.slice(-4)}&quot;`)
        // Signed in, the sign-in page sends the browser on.
        const again = yield* call("/login", { headers: { cookie }, redirect: "manual" })
        expect([again.status, again.headers.get("location")]).toEqual([303, "/api"])
      }))

    it.effect("refuses state-changing session requests from another origin (CSRF)", () =>
      Effect.gen(function*() {
        const email = `csrf-${Date.now()}@example.com`
        const created = yield* account({ email, password })
        const { cookie } = yield* signIn(email, password)
        const missing = yield* call("/api/regenerate", { method: "POST", headers: { cookie } })
        expect(missing.status).toBe(403)
        expect(missing.body).toBe(`{"success":false,"error":"Cross-site request refused: Origin header missing"}`)
        const foreign = yield* call("/api/regenerate", { method: "POST", headers: { cookie, origin: "https://evil.example" } })
        expect(foreign.status).toBe(403)
        expect(foreign.body).toBe(`{"success":false,"error":"Cross-site request refused: Origin does not match this service"}`)
        const loginFromElsewhere = yield* call("/login", formPost({ email, password }, { origin: "https://evil.example" }))
        expect(loginFromElsewhere.status).toBe(403)
        // Nothing changed: the key still works.
        expect((yield* call("/api/v1/credits", keyHeader(created.api_key))).status).toBe(200)
      }))

    it.effect("POST /api/regenerate: 401 without a session, 403 below Basic, then the old key is refused at once (S2)", () =>
      Effect.gen(function*() {
        const origin = yield* sameOrigin
        const none = yield* call("/api/regenerate", { method: "POST", headers: origin })
        expect(none.status).toBe(401)
        expect(none.body).toBe(`{"success":false,"error":"Unauthorized"}`)

        const freeEmail = `free-${Date.now()}@example.com`
        yield* account({ email: freeEmail, password, plan: "free" })
        const freeSession = yield* signIn(freeEmail, password)
        const refused = yield* call("/api/regenerate", { method: "POST", headers: { ...freeSession, ...origin } })
        expect(refused.status).toBe(403)
        expect(refused.body).toBe(`{"success":false,"error":"AdIntel Basic plan or higher required"}`)

        const email = `regen-${Date.now()}@example.com`
        const created = yield* account({ email, password })
        const session = yield* signIn(email, password)
        const json = yield* call("/api/regenerate", { method: "POST", headers: { ...session, ...origin } })
        expect(json.status).toBe(200)
        const { api_key } = JSON.parse(json.body)
        expect(json.body).toBe(`{"success":true,"api_key":"${api_key}"}`)
        expect(api_key).toMatch(/^adi_[0-9a-f]{48}$/)
        expect((yield* call("/api/v1/credits", keyHeader(created.api_key))).status).toBe(401)
        expect((yield* call("/api/v1/credits", keyHeader(api_key))).status).toBe(200)

        // From the page's form: back to the key page, which shows the new key once.
        const viaForm = yield* call("/api/regenerate", formPost({}, { ...session, ...origin }))
        expect([viaForm.status, viaForm.headers.get("location")]).toEqual([303, "/api"])
        const shown = yield* call("/api", { headers: session })
        expect(shown.body).toContain("A new API key was created")
        expect(shown.body).toContain(`<details id="reveal" open>`)
        expect(shown.body).not.toContain(api_key)
        const later = yield* call("/api", { headers: session })
        expect(later.body).not.toContain("A new API key was created")
      }))

    it.effect("ends a session after the idle timeout, at the absolute expiry, and on sign-out", () =>
      Effect.gen(function*() {
        const email = `expiry-${Date.now()}@example.com`
        yield* account({ email, password })
        const idle = yield* signIn(email, password)
        yield* TestClock.adjust("11 hours")
        expect((yield* call("/api/usage", { headers: idle })).status).toBe(200)
        yield* TestClock.adjust("11 hours")
        expect((yield* call("/api/usage", { headers: idle })).status).toBe(200)
        yield* TestClock.adjust("12 hours")
        const ended = yield* call("/api/usage", { headers: idle })
        expect([ended.status, ended.body]).toEqual([401, `{"success":false,"error":"Unauthorized"}`])

        // Used every few hours, a session still ends seven days after sign-in.
        const busy = yield* signIn(email, password)
        for (let hours = 0; hours < 7 * 24 - 6; hours += 6) {
          yield* TestClock.adjust("6 hours")
          expect((yield* call("/api/usage", { headers: busy })).status).toBe(200)
        }
        yield* TestClock.adjust("6 hours")
        expect((yield* call("/api/usage", { headers: busy })).status).toBe(401)

        const origin = yield* sameOrigin
        const session = yield* signIn(email, password)
        const out = yield* call("/logout", { method: "POST", headers: { ...session, ...origin }, redirect: "manual" })
        expect([out.status, out.headers.get("location")]).toEqual([303, "/login"])
        expect(out.headers.get("set-cookie")).toMatch(/^adintel_session=; Max-Age=0; Path=\//)
        expect((yield* call("/api/usage", { headers: session })).status).toBe(401)
      }))

    it.effect("keeps at most 20 live sessions per account: a 21st sign-in ends the oldest", () =>
      Effect.gen(function*() {
        const email = `many-${Date.now()}@example.com`
        const created = yield* account({ email, password })
        const sessions = []
        for (let i = 0; i < maxSessionsPerAccount + 1; i++) {
          sessions.push(yield* signIn(email, password))
          yield* TestClock.adjust("1 second")
        }
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ n: number }>`select count(*)::int as n from sessions where account_id = ${created.id}::uuid`
        expect(row!.n).toBe(maxSessionsPerAccount)
        expect((yield* call("/api/usage", { headers: sessions[0]! })).status).toBe(401)
        expect((yield* call("/api/usage", { headers: sessions[1]! })).status).toBe(200)
        expect((yield* call("/api/usage", { headers: sessions.at(-1)! })).status).toBe(200)
      }))

    it.effect("GET /api/usage: credits, quotas and calls per day and per route of the current period", () =>
      Effect.gen(function*() {
        const email = `usage-${Date.now()}@example.com`
        const created = yield* account({ email, password, plan: "basic" })
        yield* TestClock.adjust("1 day")
        for (let i = 0; i < 3; i++) yield* call("/api/v1/credits", keyHeader(created.api_key))
        yield* call("/api/v1/clipapp-shop/credits", keyHeader(created.api_key))
        const session = yield* signIn(email, password)
        const answer = yield* call("/api/usage", { headers: session })
        expect(answer.status).toBe(200)
        const usage = JSON.parse(answer.body)
        expect(usage.credits).toEqual({ used: 4, limit: 1000, remaining: 996, addon_remaining: 0, total_remaining: 996 })
        expect(usage.plan).toBe("basic")
        expect(usage.calls_per_route).toEqual([
          { route: "/api/v1/credits", calls: 3 },
          { route: "/api/v1/clipapp-shop/credits", calls: 1 }
        ])
        const days = usage.calls_per_day as Array<{ day: string; calls: number }>
        expect(days.at(-1)).toEqual({ day: days.at(-1)!.day, calls: 4, refunded: 0 })
        expect(days.slice(0, -1).every((d) => d.calls === 0)).toBe(true)
        expect(usage.daily_search).toMatchObject({ used: 0, limit: 50, remaining: 50, unlimited: false })
        expect(usage.script_generations).toEqual({ used: 0, limit: 10, remaining: 10, resets_at: null })
        expect(usage.period.end > usage.period.start).toBe(true)
        // The usage page itself is not metered.
        expect((yield* balanceOf(created.id)).used).toBe(4)
      }))

    it.effect("GET /api/logs: newest first, paged (P2), filtered, and never showing a key", () =>
      Effect.gen(function*() {
        const email = `logs-${Date.now()}@example.com`
        const created = yield* account({ email, password })
        for (let i = 0; i < 22; i++) {
          yield* call(`/api/v1/credits?api_key=${created.api_key}`)
          yield* TestClock.adjust("1 second")
        }
        yield* call("/api/v1/clipapp-shop/nowhere", keyHeader(created.api_key))
        yield* call("/api/v1/clipapp-shop/credits", { headers: { authorization: `Bearer ${created.api_key}` } })
        const session = yield* signIn(email, password)
        const logs = (query: string) => Effect.map(call(`/api/logs${query}`, { headers: session }), (a) => ({ ...a, json: JSON.parse(a.body) }))

        const first = yield* logs("")
        expect(first.status).toBe(200)
        expect(first.body).not.toContain(created.api_key)
        expect([first.json.total, first.json.page, first.json.page_size, first.json.data.length]).toEqual([24, 1, 20, 20])
        expect(first.json.data[0]).toMatchObject({ method: "GET", route: "/api/v1/clipapp-shop/credits", status: 200, pool: "monthly", refunded: false })
        expect(first.json.data[1]).toMatchObject({ route: "/api/v1/clipapp-shop/nowhere", status: 404 })
        const times = first.json.data.map((e: { charged_at: string }) => e.charged_at)
        expect([...times].sort().reverse()).toEqual(times)

        const second = yield* logs("?page=2")
        expect(second.json.data.length).toBe(4)
        expect(second.json.data.every((e: { route: string }) => e.route === "/api/v1/credits")).toBe(true)
        expect((yield* logs("?page=3")).json.data).toEqual([])

        expect((yield* logs("?route=/api/v1/clipapp-shop/*&page_size=100")).json.total).toBe(2)
        expect((yield* logs("?route=/api/v1/credits")).json.total).toBe(22)
        expect((yield* logs("?status=404")).json.data.map((e: { route: string }) => e.route)).toEqual(["/api/v1/clipapp-shop/nowhere"])
        const today = (first.json.data[0].charged_at as string).slice(0, 10)
        const tomorrow = new Date(Date.parse(today) + 86_400_000).toISOString().slice(0, 10)
        expect((yield* logs(`?from=${today}&to=${today}`)).json.total).toBe(24)
        expect((yield* logs(`?from=${tomorrow}`)).json.total).toBe(0)

        const bad = [
          ["?page_size=0", "page_size: must be an integer from 1 to 100"],
          ["?page_size=101", "page_size: must be an integer from 1 to 100"],
          ["?page=0", "page: must be an integer from 1 to 1000000"],
          ["?page=1002&page_size=100", "page: at most 1001 for page_size 100; narrow the logs with from, to, route or status"],
          ["?status=42", "status: must be an integer from 100 to 599"],
          ["?from=yesterday", "from: must be a date YYYY-MM-DD from 1900-01-01 to 2999-12-31"],
          ["?from=2026-01-03&to=2026-01-01", "from: must not be after to"]
        ] as const
        for (const [query, error] of bad) {
          const answer = yield* logs(query)
          expect([query, answer.status, answer.body]).toEqual([query, 400, JSON.stringify({ success: false, error })])
        }
        // At the limit: the deepest page allowed answers (empty here).
        const deepest = yield* logs("?page=1001&page_size=100")
        expect([deepest.status, deepest.json.data, deepest.json.total]).toEqual([200, [], 24])
        expect((yield* call("/api/logs")).status).toBe(401)
      }))

    it.effect("mounts the short-video shop family at its legacy path under the session: no credit, 401 without (S4)", () =>
      Effect.gen(function*() {
        const email = `legacy-${Date.now()}@example.com`
        const created = yield* account({ email, password, plan: "basic" })
        const session = yield* signIn(email, password)
        const answer = yield* call("/api/clipapp-shop/credits", { headers: session })
        expect(answer.status).toBe(200)
        expect(JSON.parse(answer.body)).toMatchObject({ success: true, credits_remaining: 50, daily_limit: 50 })
        expect(answer.headers.get("ratelimit")).toBeNull()
        const unknown = yield* call("/api/clipapp-shop/nowhere", { method: "POST", headers: session })
        expect([unknown.status, unknown.body]).toEqual([404, `{"success":false,"error":"Unknown shop endpoint: POST /api/clipapp-shop/nowhere"}`])
        expect((yield* balanceOf(created.id)).used).toBe(0)
        const sql = yield* SqlClient.SqlClient
        const ledger = yield* sql<{ n: number }>`select count(*)::int as n from request_ledger where account_id = ${created.id}::uuid`
        expect(ledger[0]!.n).toBe(0)

        // The key is not the legacy paths' authentication.
        const withKey = yield* call("/api/clipapp-shop/credits", keyHeader(created.api_key))
        expect([withKey.status, withKey.body]).toEqual([401, `{"success":false,"error":"Unauthorized"}`])
      }))

    it.effect("answers JSON on every non-page route; no un-versioned twin exists beyond the three aliases (S3)", () =>
      Effect.gen(function*() {
        for (const path of ["/api/credits", "/api/v1/nowhere", "/api/v1/credits"]) {
          const answer = yield* call(path)
          expect(answer.headers.get("content-type")).toBe("application/json")
        }
        const twin = yield* call("/api/credits")
        expect([twin.status, twin.body]).toEqual([404, `{"success":false,"error":"Not found"}`])
        // S3's three aliases exist exactly when their v1 twins do (a family that adds a twin must
        // add its `alias(...)` line), with the same methods; no other /api/X twin is routed. (The
        // contract's routes, mirrors included: the OpenAPI document lists each route once.)
        const routes: Array<string> = []
        HttpApi.reflect(AdIntelApi, { onGroup: () => {}, onEndpoint: ({ endpoint }) => routes.push(`${endpoint.method} ${endpoint.path}`) })
        const paths = [...new Set(routes.map((route) => route.split(" ")[1]!))]
        for (const name of ["adlibrary", "store-tracker", "store-explorer"]) {
          const twins = routes.filter((r) => r.endsWith(` /api/v1/${name}`) || r.includes(` /api/v1/${name}/`)).sort()
          const aliases = routes.filter((r) => r.endsWith(` /api/${name}`) || r.includes(` /api/${name}/`)).sort()
          expect(aliases).toEqual(twins.map((r) => r.replace("/api/v1/", "/api/")))
        }
        // Beyond them: the session pages and S4's legacy dashboard paths.
        const unversioned = paths.filter((p) =>
          /^\/api\/(?!v1\/)/.test(p) && !p.startsWith("/api/clipapp-shop") && !p.startsWith("/api/product-detail") && !p.startsWith("/api/brands")
        )
        expect(unversioned.sort()).toEqual([
          "/api/adlibrary", "/api/adlibrary/export", "/api/logs", "/api/magic-ai", "/api/regenerate",
          "/api/store-explorer", "/api/store-explorer/visual-search",
          "/api/store-tracker", "/api/store-tracker/stores", "/api/store-tracker/track", "/api/store-tracker/untrack",
          "/api/usage"
        ])
      }))
  })

  // The cost itself: a server at the production cost, whatever the suite lowers it to elsewhere.
  layer(testServer({ env: { PASSWORD_HASH_COST: String(Password.productionCostExponent) } }).pipe(Layer.provideMerge(TestDatabase)))((it) => {
    it.effect("a password hashed at the old scrypt cost is hashed again at 2^17 on its next sign-in, and still signs in (issue 28)", () =>
      Effect.gen(function*() {
        const email = `rehash-${Date.now()}@example.com`
        const created = yield* account({ email, plan: "pro" })
        const sql = yield* SqlClient.SqlClient
        const old = yield* Password.hash(password, { N: 2 ** 14, r: 8, p: 1 })
        yield* sql`update accounts set password_hash = ${old} where id = ${created.id}::uuid`
        const hashOf = Effect.map(sql<{ password_hash: string }>`select password_hash from accounts where id = ${created.id}::uuid`, (rows) => rows[0]!.password_hash)
        // A wrong password changes nothing.
        expect((yield* login(email, "not the password")).answer.status).toBe(401)
        expect(yield* hashOf).toBe(old)
        expect((yield* login(email, password)).answer.status).toBe(303)
        const rehashed = yield* hashOf
        expect(rehashed).toMatch(/^scrypt\$131072\$8\$1\$/)
        expect((yield* login(email, password)).answer.status).toBe(303)
        expect(yield* hashOf).toBe(rehashed)
      }))
  })
})

describe("sign-in throttling and proxies (TRUST_PROXY)", () => {
  layer(
    testServer({ config: { trustProxy: TrustProxy.hops(1), loginMaxFailures: 3 } }).pipe(Layer.provideMerge(TestDatabase))
  )((it) => {
    it.effect("locks an account after repeated failures, whatever the address, until the lockout passes", () =>
      Effect.gen(function*() {
        const email = `locked-${Date.now()}@example.com`
        yield* account({ email, password })
        for (let i = 0; i < 3; i++) {
          const failed = yield* login(email, "wrong password", { "x-forwarded-for": `10.0.0.${i}` })
          expect(failed.answer.status).toBe(401)
        }
        const locked = yield* login(email, password, { "x-forwarded-for": "10.0.1.1" })
        expect(locked.answer.status).toBe(429)
        expect(locked.answer.headers.get("retry-after")).toBe("900")
        expect(locked.answer.body).toContain("Too many failed sign-ins. Try again in 15 minute(s).")
        expect(locked.cookie).toBe("")
        yield* TestClock.adjust("15 minutes")
        const after = yield* login(email, password, { "x-forwarded-for": "10.0.1.1" })
        expect(after.answer.status).toBe(303)
      }))

    it.effect("locks an address trying many accounts; other addresses still sign in", () =>
      Effect.gen(function*() {
        const email = `victim-${Date.now()}@example.com`
        yield* account({ email, password })
        const attacker = { "x-forwarded-for": "203.0.113.7, 10.0.0.1" }
        for (let i = 0; i < 3; i++) yield* login(`guess-${i}-${Date.now()}@example.com`, "guess", attacker)
        expect((yield* login(email, password, attacker)).answer.status).toBe(429)
        expect((yield* login(email, password, { "x-forwarded-for": "198.51.100.1" })).answer.status).toBe(303)
      }))

    it.effect("a forged left-most X-Forwarded-For entry does not unlock a locked address (issue 28)", () =>
      Effect.gen(function*() {
        const email = `forged-${Date.now()}@example.com`
        yield* account({ email, password })
        // The proxy appends the client's address: 203.0.113.9, here.
        const client = { "x-forwarded-for": "203.0.113.9" }
        for (let i = 0; i < 3; i++) yield* login(`spray-forged-${i}-${Date.now()}@example.com`, "guess", client)
        expect((yield* login(email, password, client)).answer.status).toBe(429)
        // Whatever the client writes to the left of what the proxy appends, it is the same client.
        for (const forged of ["198.51.100.1", "198.51.100.2, 198.51.100.3", "unknown"]) {
          const again = yield* login(email, password, { "x-forwarded-for": `${forged}, 203.0.113.9` })
          expect([forged, again.answer.status]).toEqual([forged, 429])
        }
      }))

    it.effect("forgets failure counts once their window has passed: the table stays small", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        for (let i = 0; i < 5; i++) yield* login(`spray-${i}-${Date.now()}@example.com`, "guess", { "x-forwarded-for": `192.0.2.${i}` })
        const before = yield* sql<{ n: number }>`select count(*)::int as n from login_failures`
        expect(before[0]!.n).toBeGreaterThanOrEqual(10)
        yield* TestClock.adjust("16 minutes")
        yield* login(`late-${Date.now()}@example.com`, "guess", { "x-forwarded-for": "192.0.2.200" })
        const after = yield* sql<{ kind: string; subject: string }>`select kind, subject from login_failures order by kind`
        expect(after.map((r) => r.kind)).toEqual(["account", "address"])
        expect(after[1]!.subject).toBe("192.0.2.200")
      }))

    it.effect("marks the cookie Secure behind an https proxy and checks Origin against the forwarded host", () =>
      Effect.gen(function*() {
        const email = `secure-${Date.now()}@example.com`
        yield* account({ email, password })
        const { url } = yield* TestServer
        const answer = yield* call(
          "/login",
          formPost({ email, password }, { origin: url.replace("http:", "https:"), "x-forwarded-proto": "https" })
        )
        expect(answer.status).toBe(303)
        // Over https the cookie is `__Host-` (issue 28): Secure, Path=/, no Domain, so no other site
        // or subdomain can set or shadow it.
        expect(answer.headers.get("set-cookie")).toMatch(/^__Host-adintel_session=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; Secure; SameSite=Lax$/)
        const token = /=([^;]+)/.exec(answer.headers.get("set-cookie")!)![1]!
        // A proxy that rewrites Host says the public one in X-Forwarded-Host.
        const proxied = { "x-forwarded-proto": "https", "x-forwarded-host": "adintel.example.com" }
        const keyPage = (cookie: string) => call("/api", { headers: { cookie, ...proxied }, redirect: "manual" })
        expect((yield* keyPage(`__Host-adintel_session=${token}`)).status).toBe(200)
        // The same token without the prefix is not taken over https: a tossed cookie signs nobody in.
        expect((yield* keyPage(`adintel_session=${token}`)).status).toBe(302)
        const viaProxy = yield* call("/login", formPost({ email, password }, { origin: "https://adintel.example.com", ...proxied }))
        expect(viaProxy.status).toBe(303)
        const spoofed = yield* call("/login", formPost({ email, password }, { origin: "https://evil.example", ...proxied }))
        expect(spoofed.status).toBe(403)
        // Plain http on this machine (a developer's npm start): the plain name, without Secure.
        const local = yield* call("/login", formPost({ email, password }, { origin: url }))
        expect(local.headers.get("set-cookie")).toMatch(/^adintel_session=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/)
        // Plain http elsewhere (a LAN address): Secure and prefixed still; use https there.
        const lan = yield* call("/login", formPost({ email, password }, { origin: "http://192.0.2.10:3000", "x-forwarded-host": "192.0.2.10:3000" }))
        expect(lan.headers.get("set-cookie")).toMatch(/^__Host-adintel_session=[^;]+; Max-Age=604800; Path=\/; HttpOnly; Secure; SameSite=Lax$/)
      }))
  })
})
