import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import * as http from "node:http"
import * as net from "node:net"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, balanceOf, call, keyHeader, sameOrigin, TestServer, testServer } from "./support/TestServer.js"

/**
 * Issue 16, classes 2 and 4-6 and 8: input PostgreSQL cannot store, dates it rejects, numbers
 * that are not plain decimals, bodies that are not objects, nested too deep, truncated or too
 * large, and Node's own client errors: each is a one-line 4xx envelope naming the field and
 * changes nothing; none is a 500.
 */

const adminToken = "hardening-admin-token-0123456789"
const server = testServer({ config: { adminToken: Option.some(Redacted.make(adminToken)) } }).pipe(Layer.provide(TestDatabase))

const textRule = "must not contain NUL or unpaired surrogate characters"
const refused = (error: string, status = 400) => ({ status, body: JSON.stringify({ success: false, error }) })
const answer = ({ status, body }: { status: number; body: string }) => ({ status, body })

const json = (headers: Record<string, string>, body: string) => ({
  method: "POST",
  headers: { ...headers, "content-type": "application/json" },
  body
})
const admin = { authorization: `Bearer ${adminToken}` }

/** Sends `bytes` as they are on one connection and answers what comes back, whole. */
const raw = (bytes: string) =>
  Effect.flatMap(TestServer, ({ url }) =>
    Effect.promise(() =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(new URL(url).port), "127.0.0.1", () => socket.end(bytes))
        let received = ""
        socket.setEncoding("utf8")
        socket.on("data", (chunk: string) => (received += chunk))
        socket.on("end", () => resolve(received))
        socket.on("error", reject)
      })
    ))

/**
 * Posts `total` bytes of `a` to `path`, declared (`content-length`) or chunked: what the server
 * answers, or that it closed the connection first. The client never holds the body.
 */
const largePost = (path: string, total: number, headers: Record<string, string>, declared: boolean) =>
  Effect.flatMap(TestServer, ({ url }) =>
    Effect.promise(() =>
      new Promise<{ status: number | "closed"; body: string }>((resolve) => {
        const length = declared ? { "content-length": String(total) } : { "transfer-encoding": "chunked" }
        const request = http.request(`${url}${path}`, { method: "POST", headers: { ...headers, ...length } })
        const chunk = Buffer.alloc(64 * 1024, "a")
        let sent = 0
        let answered = false
        const pump = () => {
          while (sent < total && !answered) {
            sent += chunk.length
            if (!request.write(chunk)) return void request.once("drain", pump)
          }
          if (!answered) request.end()
        }
        request.on("response", (response) => {
          answered = true
          let body = ""
          response.setEncoding("utf8")
          response.on("data", (part: string) => (body += part))
          response.on("end", () => {
            request.destroy()
            resolve({ status: response.statusCode ?? 0, body })
          })
        })
        request.on("error", () => resolve({ status: "closed", body: "" }))
        pump()
      })
    ))

const rssMb = () => Math.round(process.memoryUsage().rss / 1024 / 1024)

describe("hardening (issue 16)", () => {
  layer(server)((it) => {
    it.effect("text PostgreSQL cannot store is a 400 naming the field, in queries, JSON and forms, and changes nothing", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const key = keyHeader(api_key).headers
        const origin = yield* sameOrigin
        const cases: ReadonlyArray<readonly [string, RequestInit, string]> = [
          ["/api/v1/adlibrary?q=%00", { headers: key }, "q"],
          ["/api/v1/clipapp-shop/search?q=serum%00", { headers: key }, "q"],
          ["/api/v1/clipapp-shop/suggestions?prefix=se%00", { headers: key }, "prefix"],
          ["/api/v1/clipapp-shop/products/explore?keyword=%00", { headers: key }, "keyword"],
          ["/api/v1/clipapp-shop/products/explore", json(key, `{"keyword":"serum \\u0000"}`), "keyword"],
          ["/api/v1/magic-ai", json(key, `{"text":"serum \\u0000 for dry skin"}`), "text"],
          ["/api/v1/magic-ai", json(key, `{"text":"serum \\ud800 for dry skin"}`), "text"],
          ["/api/v1/magic-ai", json(key, `{"text":"serum \\udc00"}`), "text"],
          ["/api/v1/ad-similar-script-generate", json(key, `{"ad_id":"ad-1","transcript":"Hi \\u0000","product_name":"Glow"}`), "transcript"],
          ["/api/v1/clipapp-shop/filter-presets/save", json(key, `{"name":"mine\\u0000","scope":"products","filters":{}}`), "name"],
          ["/api/v1/clipapp-shop/filter-presets/save", json(key, `{"name":"mine","scope":"products","filters":{"keyword":"\\ud83d"}}`), "filters.keyword"],
          ["/admin/accounts", json(admin, `{"email":"a\\u0000@example.com","plan":"basic"}`), "email"],
          [
            "/login",
            { method: "POST", headers: { ...origin, "content-type": "application/x-www-form-urlencoded" }, body: "email=a%00%40example.com&password=x" },
            "email"
          ]
        ]
        for (const [path, init, field] of cases) {
          expect({ path, ...answer(yield* call(path, init)) }).toEqual({ path, ...refused(`${field}: ${textRule}`) })
        }
        // Nothing was written: no preset, no account.
        const presets = yield* call("/api/v1/clipapp-shop/filter-presets?scope=products", { headers: key })
        expect(JSON.parse(presets.body)).toMatchObject({ success: true, data: [], total: 0 })
        const created = yield* call("/admin/accounts", json(admin, `{"email":"a@example.com","plan":"basic"}`))
        expect(created.status).toBe(201)
      }))

    it.effect("dates outside 1900-01-01..2999-12-31 and numbers that are not plain decimals are 400s", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const key = { headers: keyHeader(api_key).headers }
        const day = "must be a date YYYY-MM-DD from 1900-01-01 to 2999-12-31"
        const cases: ReadonlyArray<readonly [string, string]> = [
          ["/api/v1/adlibrary?first_seen_from=0000-01-01", `first_seen_from: ${day}`],
          ["/api/v1/adlibrary?last_seen_to=9999-12-31", `last_seen_to: ${day}`],
          ["/api/v1/clipapp-shop/products/explore?date_from=0000-01-01", `date_from: ${day}`],
          ["/api/v1/clipapp-shop/products/explore?date_to=1899-12-31", `date_to: ${day}`],
          ["/api/v1/adlibrary?limit=0x10", "limit: must be an integer from 1 to 50"],
          ["/api/v1/adlibrary?limit=%205%20", "limit: must be an integer from 1 to 50"],
          ["/api/v1/adlibrary?limit=1e1", "limit: must be an integer from 1 to 50"],
          ["/api/v1/adlibrary?limit=Infinity", "limit: must be an integer from 1 to 50"],
          ["/api/v1/clipapp-shop/products/explore?min_price=0x10", "min_price: must be a number from 0 to 1000000000000"]
        ]
        for (const [path, error] of cases) expect({ path, ...answer(yield* call(path, key)) }).toEqual({ path, ...refused(error) })
        // The edges are taken.
        expect((yield* call("/api/v1/adlibrary?first_seen_from=1900-01-01&first_seen_to=2999-12-31&limit=16", key)).status).toBe(200)
      }))

    it.effect("a body that is not an object, nested too deep, truncated multipart or too large is refused in one line", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const key = keyHeader(api_key).headers
        for (const body of ["null", "[]", `"x"`, "1"]) {
          expect(answer(yield* call("/api/v1/magic-ai", json(key, body)))).toEqual(refused("Malformed request body: expected a JSON object"))
        }
        const deep = `{"text":${"[".repeat(100_000)}${"]".repeat(100_000)}}`
        expect(answer(yield* call("/api/v1/magic-ai", json(key, deep)))).toEqual(
          refused("Malformed request body: JSON nested deeper than 32 levels")
        )
        const boundary = "----adintel"
        const truncated = `--${boundary}\r\nContent-Disposition: form-data; name="text"\r\n\r\nserum for dry sk`
        expect(answer(yield* call("/api/v1/magic-ai", {
          method: "POST",
          headers: { ...key, "content-type": `multipart/form-data; boundary=${boundary}` },
          body: truncated
        }))).toEqual(refused("Malformed request body: truncated or invalid multipart form"))
        // The general limit, declared: refused unread, and the connection is not kept for the rest.
        const large = yield* call("/api/v1/magic-ai", json(key, `{"text":"${"a".repeat(1024 * 1024)}"}`))
        expect(answer(large)).toEqual(refused("Request body too large: at most 1048576 bytes", 413))
        expect(large.headers.get("connection")).toBe("close")
        // A metered 4xx is a deliberate answer: each of these 8 calls kept its credit (G4).
        const { credits } = JSON.parse((yield* call("/api/v1/credits", { headers: key })).body)
        expect(credits.used).toBe(8)
      }))

    it.effect("sign-in and admin bodies are small, and a refused value is never echoed whole", () =>
      Effect.gen(function*() {
        const origin = yield* sameOrigin
        const form = (body: string) => ({ method: "POST", headers: { ...origin, "content-type": "application/x-www-form-urlencoded" }, body })
        expect(answer(yield* call("/login", form(`email=a%40example.com&password=${"p".repeat(20_000)}`)))).toEqual(
          refused("Request body too large: at most 16384 bytes", 413)
        )
        const long = yield* call("/login", form(`email=a%40example.com&password=${"p".repeat(10_000)}`))
        expect(answer(long)).toEqual(
          refused(`password: Expected a string at most 200 character(s) long, actual "${"p".repeat(30)}…`)
        )
        const email = yield* call("/admin/accounts", json(admin, `{"email":"${"e".repeat(10_000)}@example.com","plan":"basic"}`))
        expect(email.status).toBe(400)
        expect(email.body.length).toBeLessThan(300)
        const { api_key } = yield* account({ plan: "premium" })
        const token = yield* call(`/api/v1/adlibrary?scroll_token=${"t".repeat(9000)}`, { headers: keyHeader(api_key).headers })
        expect(answer(token)).toEqual(refused("scroll_token: must be a token of at most 8192 characters"))
      }))

    it.effect("a huge sign-in body, declared or streamed, leaves memory where it was", () =>
      Effect.gen(function*() {
        const origin = yield* sameOrigin
        const before = rssMb()
        const form = { ...origin, "content-type": "application/x-www-form-urlencoded" }
        const tooLarge = { status: 413, body: JSON.stringify({ success: false, error: "Request body too large: at most 16384 bytes" }) }
        // 300 MB declared: answered before it is sent.
        expect(yield* largePost("/login", 300 * 1024 * 1024, form, true)).toEqual(tooLarge)
        // 64 MB streamed without a length: reading stops at 16 KiB and the answer is the same.
        expect(yield* largePost("/login", 64 * 1024 * 1024, form, false)).toEqual(tooLarge)
        const after = rssMb()
        console.log(`RSS before ${before} MB, after 300 MB declared and 64 MB streamed sign-in bodies ${after} MB`)
        expect(after - before).toBeLessThan(48)
      }))

    it.effect("Node's own refusals (431, 400) answer the JSON envelope", () =>
      Effect.gen(function*() {
        const big = yield* raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`)
        expect(big).toMatch(/^HTTP\/1\.1 431 /)
        expect(big).toContain("content-type: application/json")
        expect(big.endsWith(`{"success":false,"error":"Request header fields too large"}`)).toBe(true)
        const garbage = yield* raw("NONSENSE\r\n\r\n")
        expect(garbage).toMatch(/^HTTP\/1\.1 400 /)
        expect(garbage.endsWith(`{"success":false,"error":"Bad request"}`)).toBe(true)
      }))

    it.effect("a balance is unchanged by refusals before the charge (401 with a bad body costs nothing)", () =>
      Effect.gen(function*() {
        const created = yield* account({ plan: "basic" })
        yield* call("/api/v1/magic-ai", json({ "x-api-key": "adi_" + "0".repeat(48) }, `{"text":"\\u0000"}`))
        expect((yield* balanceOf(created.id)).used).toBe(0)
      }))
  })
})
