import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import * as Password from "../src/access/accounts/Password.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { call, keyHeader, testServer } from "./support/TestServer.js"

const admin = { Authorization: "Bearer the-admin-token", "content-type": "application/json" }
const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = admin) =>
  call(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
const json = <A = any>(answer: { body: string }): A => JSON.parse(answer.body)

// At the production password cost: the first test reads the stored hash's (2^17).
const enabled = testServer({
  config: { adminToken: Option.some(Redacted.make("the-admin-token")) },
  env: { PASSWORD_HASH_COST: String(Password.productionCostExponent) }
}).pipe(Layer.provideMerge(TestDatabase))

describe("admin API", () => {
  layer(enabled)((it) => {
    it.effect("creates an account whose key works at once; the password is stored hashed", () =>
      Effect.gen(function*() {
        const created = yield* send("POST", "/admin/accounts", { email: "Ada@Example.com", password: "correct horse", plan: "pro" })
        expect(created.status).toBe(201)
        const body = json(created)
        expect(Object.keys(body)).toEqual(["id", "email", "plan", "api_key"])
        expect(body).toMatchObject({ email: "Ada@Example.com", plan: "pro" })
        expect(body.api_key).toMatch(/^adi_[0-9a-f]{48}$/)
        expect((yield* call("/api/v1/credits", keyHeader(body.api_key))).status).toBe(200)

        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ password_hash: string; key_hash: Buffer; key_sealed: Buffer }>`
          select a.password_hash, k.key_hash, k.key_sealed from accounts a join api_keys k on k.account_id = a.id
           where a.id = ${body.id}`
        expect(row!.password_hash).toMatch(/^scrypt\$131072\$8\$1\$/)
        expect(row!.password_hash).not.toContain("correct horse")
        expect(row!.key_hash.length).toBe(32)
        expect(row!.key_sealed.toString("utf8")).not.toContain(body.api_key.slice(4))

        const again = yield* send("POST", "/admin/accounts", { email: "ada@example.COM", plan: "basic" })
        expect([again.status, again.body]).toEqual([409, `{"success":false,"error":"An account with this email already exists"}`])
      }))

    it.effect("refuses bad input, naming the field, and creates nothing", () =>
      Effect.gen(function*() {
        const cases: Array<[unknown, string]> = [
          [{ email: "not-an-email", plan: "basic" }, "email: must be an e-mail address"],
          [{ email: "a@b.co", plan: "gold" }, "plan: must be one of free, basic, pro, premium"],
          [{ email: "a@b.co" }, "plan is missing"],
          [{ email: "a@b.co", plan: "basic", password: "short" }, "password: must be 8 to 200 characters"],
          [{ email: `${"x".repeat(250)}@b.co`, plan: "basic" }, `email: Expected a string at most 254 character(s) long, actual "${"x".repeat(30)}…`]
        ]
        for (const [body, error] of cases) {
          const answer = yield* send("POST", "/admin/accounts", body)
          expect([answer.status, json(answer)]).toEqual([400, { success: false, error }])
        }
        const malformed = yield* call("/admin/accounts", { method: "POST", headers: admin, body: "{" })
        expect([malformed.status, malformed.body]).toEqual([400, `{"success":false,"error":"Malformed request body: expected JSON"}`])
        const sql = yield* SqlClient.SqlClient
        const [{ count }] = yield* sql<{ count: number }>`select count(*)::int as count from accounts where email = 'a@b.co'`
        expect(count).toBe(0)
      }))

    it.effect("shows, patches and tops up an account", () =>
      Effect.gen(function*() {
        const { id, api_key } = json(yield* send("POST", "/admin/accounts", { email: "view@example.com", plan: "basic" }))
        yield* call("/api/v1/credits", keyHeader(api_key))
        const view = yield* send("GET", `/admin/accounts/${id}`)
        expect(view.status).toBe(200)
        expect(view.body).toBe(JSON.stringify({
          id,
          email: "view@example.com",
          plan: "basic",
          credits: { used: 1, limit: 1000, remaining: 999, addon_remaining: 0, total_remaining: 999 },
          daily_search: { used: 0, limit: 50, remaining: 50, unlimited: false, resets_at: "1970-01-02T00:00:00.000Z" },
          script_generations: { used: 0, limit: 10, remaining: 10, resets_at: null }
        }))

        const patched = json(yield* send("PATCH", `/admin/accounts/${id}`, {
          plan: "premium",
          monthly_limit: 5,
          used: 2,
          addon_remaining: 7,
          script_generation_limit: 3
        }))
        expect(patched.plan).toBe("premium")
        expect(patched.credits).toEqual({ used: 2, limit: 5, remaining: 3, addon_remaining: 7, total_remaining: 10 })
        expect(patched.daily_search).toMatchObject({ limit: null, remaining: null, unlimited: true })
        expect(patched.script_generations).toMatchObject({ limit: 3, remaining: 3 })

        // null puts a limit back to the plan's number.
        const reset = json(yield* send("PATCH", `/admin/accounts/${id}`, { monthly_limit: null, daily_search_limit: 9 }))
        expect(reset.credits.limit).toBe(20000)
        expect(reset.daily_search).toMatchObject({ limit: 9, remaining: 9, unlimited: false })

        const topped = yield* send("POST", `/admin/accounts/${id}/addon-credits`, { amount: 10_000_000 })
        expect(topped.body).toBe(
          `{"credits":{"used":2,"limit":20000,"remaining":19998,"addon_remaining":10000007,"total_remaining":10020005}}`
        )
        for (const amount of [0, -1, 10_000_001, 1.5]) {
          const refused = yield* send("POST", `/admin/accounts/${id}/addon-credits`, { amount })
          expect([refused.status, json(refused).error]).toEqual([400, "amount: must be an integer from 1 to 10000000"])
        }
        const bad = yield* send("PATCH", `/admin/accounts/${id}`, { used: -1 })
        expect([bad.status, json(bad).error]).toEqual([400, "used: must be an integer from 0 to 1000000000"])
        expect(json(yield* send("GET", `/admin/accounts/${id}`)).credits.addon_remaining).toBe(10_000_007)
      }))

    it.effect("regenerates a key: the old one is dead at once", () =>
      Effect.gen(function*() {
        const { id, api_key } = json(yield* send("POST", "/admin/accounts", { email: "regen@example.com", plan: "basic" }))
        const fresh = json(yield* send("POST", `/admin/accounts/${id}/api-key`)).api_key
        expect(fresh).not.toBe(api_key)
        expect((yield* call("/api/v1/credits", keyHeader(api_key))).status).toBe(401)
        expect((yield* call("/api/v1/credits", keyHeader(fresh))).status).toBe(200)
      }))

    it.effect("answers unknown and malformed ids", () =>
      Effect.gen(function*() {
        const missing = "/admin/accounts/00000000-0000-4000-8000-000000000000"
        const notFound = `{"success":false,"error":"Account not found"}`
        expect((yield* send("GET", missing)).body).toBe(notFound)
        expect((yield* send("PATCH", missing, { plan: "pro" })).body).toBe(notFound)
        expect((yield* send("POST", `${missing}/addon-credits`, { amount: 1 })).body).toBe(notFound)
        expect((yield* send("POST", `${missing}/api-key`)).body).toBe(notFound)
        expect((yield* send("GET", "/admin/accounts/not-a-uuid")).status).toBe(404)
        const invalid = yield* send("GET", "/admin/accounts/bad%20id")
        expect([invalid.status, invalid.body]).toEqual([400, `{"success":false,"error":"Invalid id"}`])
      }))

    it.effect("needs the admin token", () =>
      Effect.gen(function*() {
        const attempts: Array<Record<string, string>> = [{}, { Authorization: "Bearer wrong" }, { Authorization: "Basic the-admin-token" }]
        for (const headers of attempts) {
          const answer = yield* send("GET", "/admin/accounts/00000000-0000-4000-8000-000000000000", undefined, headers)
          expect([answer.status, answer.body]).toEqual([401, `{"success":false,"error":"Unauthorized"}`])
        }
      }))
  })

  layer(testServer().pipe(Layer.provide(TestDatabase)))((it) => {
    it.effect("does not exist without ADMIN_TOKEN", () =>
      Effect.gen(function*() {
        const answer = yield* send("POST", "/admin/accounts", { email: "x@example.com", plan: "basic" })
        expect([answer.status, answer.body]).toEqual([404, `{"success":false,"error":"Not found"}`])
      }))
  })
})
