import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Option, TestClock } from "effect"
import { Gateway } from "../src/access/gateway/Gateway.js"
import { SearchQuota } from "../src/shop/account/SearchQuota.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, balanceOf, call, keyHeader, testServer } from "./support/TestServer.js"

const shopCredits = "/api/v1/clipapp-shop/credits"

describe("short-video shop gateway routes", () => {
  layer(testServer().pipe(Layer.provide(TestDatabase)))((it) => {
    it.effect("GET credits answers the daily search quota (G7) and costs 1 monthly credit", () =>
      Effect.gen(function*() {
        const { id, api_key } = yield* account({ plan: "basic" })
        const answer = yield* call(shopCredits, keyHeader(api_key))
        expect(answer.status).toBe(200)
        expect(answer.body).toBe(
          `{"success":true,"credits_remaining":50,"daily_limit":50,"resets_at":"1970-01-02T00:00:00.000Z","unlimited":false}`
        )
        expect((yield* balanceOf(id)).used).toBe(1)
      }))

    it.effect("counts searches per UTC day; Premium is unlimited", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "pro" })
        const gateway = yield* Gateway
        const quota = yield* SearchQuota
        const caller = yield* Effect.orDie(gateway.admit(Option.some(api_key), { method: "POST", route: "/probe" }))
        for (let i = 0; i < 3; i++) yield* quota.consume(caller)
        const after = JSON.parse((yield* call(shopCredits, keyHeader(api_key))).body)
        expect([after.credits_remaining, after.daily_limit]).toEqual([197, 200])
        yield* TestClock.adjust("1 day")
        expect(JSON.parse((yield* call(shopCredits, keyHeader(api_key))).body).credits_remaining).toBe(200)

        const premium = yield* account({ plan: "premium" })
        const unlimited = yield* call(shopCredits, keyHeader(premium.api_key))
        expect(JSON.parse(unlimited.body)).toEqual({
          success: true,
          credits_remaining: null,
          daily_limit: null,
          resets_at: "1970-01-03T00:00:00.000Z",
          unlimited: true
        })
      }))

    it.effect("answers any unknown path under the prefix, any method, with the metered 404 (G9)", () =>
      Effect.gen(function*() {
        const { id, api_key } = yield* account()
        const cases: Array<[string, string, string]> = [
          ["GET", "/api/v1/clipapp-shop/nowhere", "GET /api/v1/clipapp-shop/nowhere"],
          ["POST", "/api/v1/clipapp-shop/shops/nowhere/deeper", "POST /api/v1/clipapp-shop/shops/nowhere/deeper"],
          ["PUT", "/api/v1/clipapp-shop/credits", "PUT /api/v1/clipapp-shop/credits"],
          ["PATCH", "/api/v1/clipapp-shop/x", "PATCH /api/v1/clipapp-shop/x"],
          ["DELETE", "/api/v1/clipapp-shop/x", "DELETE /api/v1/clipapp-shop/x"],
          ["OPTIONS", "/api/v1/clipapp-shop/x", "OPTIONS /api/v1/clipapp-shop/x"],
          // A known path with a verb it does not register.
          ["POST", "/api/v1/clipapp-shop/credits", "POST /api/v1/clipapp-shop/credits"],
          // The query string, and a key in it, is never echoed.
          ["GET", `/api/v1/clipapp-shop/nowhere?q=1&api_key=${api_key}`, "GET /api/v1/clipapp-shop/nowhere"],
          ["GET", "/api/v1/clipapp-shop/", "GET /api/v1/clipapp-shop/"]
        ]
        for (const [method, path, shown] of cases) {
          const answer = yield* call(path, { ...keyHeader(api_key), method })
          expect([answer.status, answer.body]).toEqual([404, `{"success":false,"error":"Unknown shop endpoint: ${shown}"}`])
          expect(answer.headers.get("ratelimit-policy")).toBe(`"minute";q=60;w=60`)
        }
        // HEAD is GET without a body: a known path answers, an unknown one is the metered 404.
        expect((yield* call("/api/v1/clipapp-shop/credits", { ...keyHeader(api_key), method: "HEAD" })).status).toBe(200)
        expect((yield* call("/api/v1/clipapp-shop/x", { ...keyHeader(api_key), method: "HEAD" })).status).toBe(404)
        expect((yield* balanceOf(id)).used).toBe(cases.length + 2)
      }))

    it.effect("authenticates before answering an unknown shop path; other unknown paths are unmetered", () =>
      Effect.gen(function*() {
        const { id, api_key } = yield* account()
        const anonymous = yield* call("/api/v1/clipapp-shop/nowhere")
        expect([anonymous.status, anonymous.body]).toEqual([401, `{"success":false,"error":"Unauthorized"}`])
        const elsewhere = yield* call("/api/v1/nowhere", keyHeader(api_key))
        expect([elsewhere.status, elsewhere.body]).toEqual([404, `{"success":false,"error":"Not found"}`])
        expect(elsewhere.headers.get("ratelimit")).toBeNull()
        expect((yield* balanceOf(id)).used).toBe(0)
      }))
  })
})
