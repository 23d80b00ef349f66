import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { clientOn, TestDatabase, TestDatabaseUrlLive } from "./support/TestDatabase.js"
import { account, balanceOf, keyHeader, TestServer, testServer } from "./support/TestServer.js"

const credits = "/api/v1/credits"

const fetchStatus = (url: string, init: RequestInit) =>
  fetch(url, init).then(async (response) => ({ status: response.status, body: await response.text() }))

describe("exact counters under concurrency (G6)", () => {
  layer(testServer({ config: { rateLimitPerMinute: 1000 } }).pipe(Layer.provide(TestDatabase)))((it) => {
    it.effect("200 calls in flight on 50 credits: exactly 50 answered, 150 refused, balance 0", () =>
      Effect.gen(function*() {
        const { id, api_key } = yield* account({ patch: { monthly_limit: 50 } })
        const { url } = yield* TestServer
        const answers = yield* Effect.promise(() =>
          Promise.all(Array.from({ length: 200 }, () => fetchStatus(url + credits, keyHeader(api_key))))
        )
        const ok = answers.filter((a) => a.status === 200)
        const refused = answers.filter((a) => a.status === 429)
        expect(ok.length).toBe(50)
        expect(refused.length).toBe(150)
        for (const answer of refused) expect(JSON.parse(answer.body).credits.total_remaining).toBe(0)
        // Each accepted call saw its own charge: the `used` values are exactly 1..50.
        expect(ok.map((a) => JSON.parse(a.body).credits.used).sort((a, b) => a - b)).toEqual(
          Array.from({ length: 50 }, (_, i) => i + 1)
        )
        expect(yield* balanceOf(id)).toEqual({ used: 50, limit: 50, remaining: 0, addon_remaining: 0, total_remaining: 0 })
      }))
  })
})

describe("two replicas on one database (G5, G6)", () => {
  const replica = testServer({ config: { adminToken: Option.some(Redacted.make("admin-secret")) } }).pipe(
    Layer.provide(clientOn)
  )
  const replicas = Effect.gen(function*() {
    const a = yield* Layer.build(replica)
    const b = yield* Layer.build(replica)
    return [Context.get(a, TestServer).url, Context.get(b, TestServer).url, a] as const
  })
  layer(TestDatabaseUrlLive)((it) => {
    it.scoped("share one rate window and one balance, and refuse a regenerated key at once", () =>
      Effect.gen(function*() {
        const [a, b, context] = yield* replicas
        expect(a).not.toBe(b)
        const { id, api_key } = yield* Effect.provide(account({ patch: { monthly_limit: 70 } }), context)

        // Rate window: 60 calls alternating replicas, then both refuse.
        for (let i = 0; i < 60; i++) {
          const answer = yield* Effect.promise(() => fetchStatus((i % 2 ? a : b) + credits, keyHeader(api_key)))
          expect(answer.status).toBe(200)
        }
        for (const base of [a, b]) {
          const refused = yield* Effect.promise(() => fetchStatus(base + credits, keyHeader(api_key)))
          expect(refused.body).toBe(`{"success":false,"error":"Rate limit exceeded. Max 60 requests per minute."}`)
        }
        expect((yield* Effect.provide(balanceOf(id), context)).used).toBe(60)

        // Key regenerated through one replica's admin API: both refuse the old key at once.
        const regenerated = yield* Effect.promise(() =>
          fetch(`${a}/admin/accounts/${id}/api-key`, { method: "POST", headers: { Authorization: "Bearer admin-secret" } })
            .then((r) => r.json() as Promise<{ api_key: string }>)
        )
        for (const base of [a, b]) {
          const old = yield* Effect.promise(() => fetchStatus(base + credits, keyHeader(api_key)))
          expect([old.status, old.body]).toEqual([401, `{"success":false,"error":"Unauthorized"}`])
        }
        expect(regenerated.api_key).toMatch(/^adi_[0-9a-f]{48}$/)
      }))

    it.scoped("charge one balance exactly, with calls in flight on both", () =>
      Effect.gen(function*() {
        const [a, b, context] = yield* replicas
        const { id, api_key } = yield* Effect.provide(account({ patch: { monthly_limit: 25 } }), context)
        const answers = yield* Effect.promise(() =>
          Promise.all(Array.from({ length: 50 }, (_, i) => fetchStatus((i % 2 ? a : b) + credits, keyHeader(api_key))))
        )
        expect(answers.filter((x) => x.status === 200).length).toBe(25)
        expect(answers.filter((x) => x.status === 429).length).toBe(25)
        expect((yield* Effect.provide(balanceOf(id), context)).remaining).toBe(0)
      }))

    it.scoped("batch many accounts on both without deadlock or error", () =>
      Effect.gen(function*() {
        const [a, b, context] = yield* replicas
        const accounts = yield* Effect.forEach(
          Array.from({ length: 20 }, () => 0),
          () => Effect.provide(account({ patch: { monthly_limit: 15 } }), context)
        )
        // 20 calls per account, interleaved across accounts and replicas, all in flight at once:
        // batches of both replicas lock overlapping sets of meter rows.
        const calls = accounts.flatMap((acc, i) =>
          Array.from({ length: 20 }, (_, j) => ({ base: (i + j) % 2 ? a : b, key: acc.api_key }))
        ).sort(() => Math.random() - 0.5)
        const answers = yield* Effect.promise(() =>
          Promise.all(calls.map(({ base, key }) => fetchStatus(base + credits, keyHeader(key))))
        )
        expect(answers.filter((x) => x.status !== 200 && x.status !== 429)).toEqual([])
        expect(answers.filter((x) => x.status === 200).length).toBe(20 * 15)
        for (const acc of accounts) {
          expect((yield* Effect.provide(balanceOf(acc.id), context)).used).toBe(15)
        }
      }))

  })
})
