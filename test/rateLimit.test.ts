import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { Accounts } from "../src/access/accounts/Accounts.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, balanceOf, call, keyHeader, testServer } from "./support/TestServer.js"

const credits = "/api/v1/credits"
const limited = (max: number) => `{"success":false,"error":"Rate limit exceeded. Max ${max} requests per minute."}`

describe("rate limit (spec: Limits, Errors '429'; G5)", () => {
  layer(testServer().pipe(Layer.provide(TestDatabase)))((it) => {
    it.effect("accepts 60 calls in a minute, refuses the 61st without charging, with the IETF fields", () =>
      Effect.gen(function*() {
        const { id, api_key } = yield* account()
        for (let i = 1; i <= 60; i++) {
          const answer = yield* call(credits, keyHeader(api_key))
          expect(answer.status).toBe(200)
          expect(answer.headers.get("ratelimit-policy")).toBe(`"minute";q=60;w=60`)
          expect(answer.headers.get("ratelimit")).toBe(`"minute";r=${60 - i};t=60`)
          expect(answer.headers.get("retry-after")).toBeNull()
        }
        const refused = yield* call(credits, keyHeader(api_key))
        expect(refused.status).toBe(429)
        expect(refused.body).toBe(limited(60))
        expect(refused.headers.get("ratelimit")).toBe(`"minute";r=0;t=60`)
        expect(refused.headers.get("retry-after")).toBe("60")
        expect((yield* balanceOf(id)).used).toBe(60)
      }))

    it.effect("slides: a slot frees exactly 60 seconds after the call that took it", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        for (let i = 0; i < 30; i++) yield* call(credits, keyHeader(api_key))
        yield* TestClock.adjust("20 seconds")
        for (let i = 0; i < 30; i++) yield* call(credits, keyHeader(api_key))
        yield* TestClock.adjust("39 seconds")
        const refused = yield* call(credits, keyHeader(api_key))
        expect(refused.status).toBe(429)
        expect(refused.headers.get("retry-after")).toBe("1")
        yield* TestClock.adjust("1 second")
        // The first 30 left the window together: 30 slots, then the next refusal waits 20 s.
        for (let i = 0; i < 30; i++) expect((yield* call(credits, keyHeader(api_key))).status).toBe(200)
        const again = yield* call(credits, keyHeader(api_key))
        expect([again.status, again.headers.get("retry-after")]).toEqual([429, "20"])
      }))

    it.effect("never refuses a client pacing itself at one call per second", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        for (let i = 0; i < 150; i++) {
          const answer = yield* call(credits, keyHeader(api_key))
          expect(answer.status).toBe(200)
          yield* TestClock.adjust("1 second")
        }
      }))

    it.effect("counts per account, across routes and keys, including refused credits and 404s", () =>
      Effect.gen(function*() {
        const first = yield* account({ patch: { monthly_limit: 10 } })
        const other = yield* account()
        for (let i = 0; i < 20; i++) yield* call(credits, keyHeader(first.api_key))
        for (let i = 0; i < 20; i++) yield* call("/api/v1/clipapp-shop/credits", keyHeader(first.api_key))
        for (let i = 0; i < 20; i++) yield* call("/api/v1/clipapp-shop/nowhere", keyHeader(first.api_key))
        expect((yield* call(credits, keyHeader(first.api_key))).body).toBe(limited(60))
        expect((yield* call(credits, keyHeader(other.api_key))).status).toBe(200)
      }))

    it.effect("does not count calls refused by the plan gate", () =>
      Effect.gen(function*() {
        const { id, api_key } = yield* account({ plan: "free" })
        for (let i = 0; i < 70; i++) expect((yield* call(credits, keyHeader(api_key))).status).toBe(403)
        const accounts = yield* Accounts
        yield* accounts.update(id, { plan: "basic" })
        const first = yield* call(credits, keyHeader(api_key))
        expect(first.status).toBe(200)
        expect(first.headers.get("ratelimit")).toBe(`"minute";r=59;t=60`)
      }))
  })

  layer(testServer({ config: { rateLimitPerMinute: 5 } }).pipe(Layer.provide(TestDatabase)))((it) => {
    it.effect("takes its size from RATE_LIMIT_PER_MINUTE", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        for (let i = 0; i < 5; i++) expect((yield* call(credits, keyHeader(api_key))).status).toBe(200)
        const refused = yield* call(credits, keyHeader(api_key))
        expect([refused.status, refused.body]).toEqual([429, limited(5)])
        expect(refused.headers.get("ratelimit-policy")).toBe(`"minute";q=5;w=60`)
      }))
  })
})
