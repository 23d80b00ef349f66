import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { connect } from "node:net"
import { Accounts } from "../src/access/accounts/Accounts.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, balanceOf, call, keyHeader, TestServer, testServer } from "./support/TestServer.js"

const unauthorized = `{"success":false,"error":"Unauthorized"}`
const credits = "/api/v1/credits"

/** Sends `head` as it is (a request line `fetch` would never send) and reads the answer until the server closes. */
const rawRequest = (head: string) =>
  Effect.flatMap(TestServer, ({ url }) =>
    Effect.async<string>((resume) => {
      const socket = connect(Number(new URL(url).port), "127.0.0.1", () => socket.write(head))
      const chunks: Array<Buffer> = []
      socket.on("data", (chunk) => chunks.push(chunk))
      socket.on("close", () => resume(Effect.succeed(Buffer.concat(chunks).toString("utf8"))))
      socket.on("error", (error) => resume(Effect.die(error)))
      return Effect.sync(() => socket.destroy())
    }))

const server = testServer({ config: { creditPackUrl: "https://shop.example/packs/api-credits" } }).pipe(
  Layer.provideMerge(TestDatabase)
)

describe("the metered gateway", () => {
  layer(testServer({ config: { serviceName: "Acme Insights" } }).pipe(Layer.provide(TestDatabase)))((it) => {
    it.effect("names the configured service in the plan message (G12)", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "free" })
        const answer = yield* call(credits, keyHeader(api_key))
        expect([answer.status, answer.body]).toEqual([403, `{"success":false,"error":"Acme Insights Basic plan or higher required"}`])
      }))
  })

  layer(server)((it) => {
    describe("where the key is read (spec: Authentication; G1.1)", () => {
      it.effect("accepts X-API-Key, Bearer and ?api_key alike", () =>
        Effect.gen(function*() {
          const { api_key } = yield* account()
          const inits: Array<RequestInit> = [
            { headers: { "X-API-Key": api_key } },
            { headers: { "x-api-key": api_key } },
            { headers: { Authorization: `Bearer ${api_key}` } },
            { headers: { Authorization: `bearer ${api_key}` } }
          ]
          for (const init of inits) {
            expect((yield* call(credits, init)).status).toBe(200)
          }
          expect((yield* call(`${credits}?api_key=${api_key}`)).status).toBe(200)
        }))

      it.effect("takes the first non-empty value, even when a later one is valid", () =>
        Effect.gen(function*() {
          const { api_key } = yield* account()
          const wrong = "adi_" + "0".repeat(48)
          const first = yield* call(`${credits}?api_key=${api_key}`, {
            headers: { "X-API-Key": wrong, Authorization: `Bearer ${api_key}` }
          })
          expect(first.status).toBe(401)
          expect(first.body).toBe(unauthorized)
          const bearerBeforeQuery = yield* call(`${credits}?api_key=${api_key}`, {
            headers: { Authorization: `Bearer ${wrong}` }
          })
          expect(bearerBeforeQuery.status).toBe(401)
          // Empty values are skipped: the next place is read.
          const skipsEmpty = yield* call(`${credits}?api_key=${api_key}`, {
            headers: { "X-API-Key": "", Authorization: "Bearer " }
          })
          expect(skipsEmpty.status).toBe(200)
        }))

      it.effect("ignores an Authorization header of another scheme", () =>
        Effect.gen(function*() {
          const { api_key } = yield* account()
          const basic = `Basic ${Buffer.from(`user:${api_key}`).toString("base64")}`
          expect((yield* call(`${credits}?api_key=${api_key}`, { headers: { Authorization: basic } })).status).toBe(200)
          const alone = yield* call(credits, { headers: { Authorization: `Basic ${api_key}` } })
          expect([alone.status, alone.body]).toEqual([401, unauthorized])
        }))
    })

    describe("401 (spec: Errors)", () => {
      it.effect("answers missing, malformed and unknown keys alike, without quota headers", () =>
        Effect.gen(function*() {
          const inits: Array<RequestInit> = [
            {},
            keyHeader("not-a-key"),
            keyHeader("adi_" + "A".repeat(48)),
            keyHeader("adi_" + "f".repeat(47)),
            keyHeader("adi_" + "f".repeat(48))
          ]
          for (const init of inits) {
            const answer = yield* call(credits, init)
            expect(answer.status).toBe(401)
            expect(answer.body).toBe(unauthorized)
            expect(answer.headers.get("content-type")).toBe("application/json")
            expect(answer.headers.get("ratelimit")).toBeNull()
            expect(answer.headers.get("ratelimit-policy")).toBeNull()
          }
        }))

      it.effect("refuses a regenerated key at once, and charges nothing for refusals", () =>
        Effect.gen(function*() {
          const { id, api_key } = yield* account()
          const accounts = yield* Accounts
          const fresh = yield* accounts.regenerateKey(id)
          expect((yield* call(credits, keyHeader(api_key))).body).toBe(unauthorized)
          expect((yield* balanceOf(id)).used).toBe(0)
          expect((yield* call(credits, keyHeader(fresh))).status).toBe(200)
          expect((yield* balanceOf(id)).used).toBe(1)
        }))
    })

    describe("403 plan gate (spec: Authentication; G1.2, G12)", () => {
      it.effect("refuses a free account with the service's name, without headers or charge", () =>
        Effect.gen(function*() {
          const { id, api_key } = yield* account({ plan: "free" })
          const answer = yield* call(credits, keyHeader(api_key))
          expect(answer.status).toBe(403)
          expect(answer.body).toBe(`{"success":false,"error":"AdIntel Basic plan or higher required"}`)
          expect(answer.headers.get("ratelimit")).toBeNull()
          expect((yield* balanceOf(id)).used).toBe(0)
        }))

      it.effect("takes effect on the next call after a downgrade, and lifts on upgrade", () =>
        Effect.gen(function*() {
          const { id, api_key } = yield* account({ plan: "pro" })
          const accounts = yield* Accounts
          expect((yield* call(credits, keyHeader(api_key))).status).toBe(200)
          yield* accounts.update(id, { plan: "free" })
          expect((yield* call(credits, keyHeader(api_key))).status).toBe(403)
          yield* accounts.update(id, { plan: "basic" })
          expect((yield* call(credits, keyHeader(api_key))).status).toBe(200)
        }))
    })

    describe("credits (G2, G3)", () => {
      it.effect("charges 1 per call and answers the balance after the call's own charge", () =>
        Effect.gen(function*() {
          const { api_key } = yield* account({ plan: "basic" })
          const first = yield* call(credits, keyHeader(api_key))
          expect(first.status).toBe(200)
          expect(first.headers.get("content-type")).toBe("application/json")
          expect(first.body).toBe(
            `{"success":true,"credits":{"used":1,"limit":1000,"remaining":999,"addon_remaining":0,"total_remaining":999}}`
          )
          const second = yield* call(credits, keyHeader(api_key))
          expect(JSON.parse(second.body).credits.used).toBe(2)
        }))

      it.effect("spends the monthly allowance first, then add-on credits", () =>
        Effect.gen(function*() {
          const { id, api_key } = yield* account({ patch: { monthly_limit: 2, addon_remaining: 2 } })
          const seen = []
          for (let i = 0; i < 4; i++) seen.push(JSON.parse((yield* call(credits, keyHeader(api_key))).body).credits)
          expect(seen).toEqual([
            { used: 1, limit: 2, remaining: 1, addon_remaining: 2, total_remaining: 3 },
            { used: 2, limit: 2, remaining: 0, addon_remaining: 2, total_remaining: 2 },
            { used: 2, limit: 2, remaining: 0, addon_remaining: 1, total_remaining: 1 },
            { used: 2, limit: 2, remaining: 0, addon_remaining: 0, total_remaining: 0 }
          ])
          expect(yield* balanceOf(id)).toEqual(seen[3])
        }))

      it.effect("answers 429 with the credits object and the purchase URL when nothing is left", () =>
        Effect.gen(function*() {
          const { id, api_key } = yield* account({ patch: { monthly_limit: 1 } })
          expect((yield* call(credits, keyHeader(api_key))).status).toBe(200)
          const answer = yield* call(credits, keyHeader(api_key))
          expect(answer.status).toBe(429)
          expect(answer.body).toBe(
            `{"success":false,"error":"No API credits remaining. Buy an add-on pack or wait until next monthly reset.",` +
              `"credits":{"used":1,"limit":1,"remaining":0,"addon_remaining":0,"total_remaining":0},` +
              `"purchase":{"url":"https://shop.example/packs/api-credits"}}`
          )
          // It passed the rate step, so it counts in the window and carries the fields (G1, G5).
          expect(answer.headers.get("ratelimit")).toBe(`"minute";r=58;t=60`)
          expect(answer.headers.get("retry-after")).toBeNull()
          expect((yield* balanceOf(id)).used).toBe(1)
        }))

      it.effect("resets `used` at each monthly period of the account; add-on credits never expire", () =>
        Effect.gen(function*() {
          const { id, api_key } = yield* account({ patch: { monthly_limit: 3, addon_remaining: 5 } })
          for (let i = 0; i < 4; i++) yield* call(credits, keyHeader(api_key))
          expect(yield* balanceOf(id)).toEqual({ used: 3, limit: 3, remaining: 0, addon_remaining: 4, total_remaining: 4 })
          yield* TestClock.adjust("27 days")
          yield* call(credits, keyHeader(api_key))
          expect((yield* balanceOf(id)).addon_remaining).toBe(3)
          // The TestClock started at 1970-01-01: the next period starts on February 1st.
          yield* TestClock.adjust("4 days")
          expect(yield* balanceOf(id)).toEqual({ used: 0, limit: 3, remaining: 3, addon_remaining: 3, total_remaining: 6 })
          const after = JSON.parse((yield* call(credits, keyHeader(api_key))).body).credits
          expect(after).toEqual({ used: 1, limit: 3, remaining: 2, addon_remaining: 3, total_remaining: 5 })
          yield* TestClock.adjust("400 days")
          expect((yield* balanceOf(id)).addon_remaining).toBe(3)
        }))
    })

    describe("the ledger (G13)", () => {
      it.effect("stores the path of an absolute-form request target, never its scheme, host or query", () =>
        Effect.gen(function*() {
          const { id, api_key } = yield* account()
          const answer = yield* rawRequest(
            `GET http://evil.example/api/v1/credits?api_key=${api_key}&x=1 HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n`
          )
          expect(answer).toMatch(/^HTTP\/1\.1 200 /)
          const sql = yield* SqlClient.SqlClient
          const routes = yield* sql<{ method: string; route: string }>`
            select method, route from request_ledger where account_id = ${id}::uuid order by id`
          expect(routes).toEqual([{ method: "GET", route: "/api/v1/credits" }])
        }))
    })
  })
})
