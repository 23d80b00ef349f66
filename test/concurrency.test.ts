import { describe, expect, layer } from "@effect/vitest"
import { Context, Duration, Effect, Exit, Layer, Option, Redacted } from "effect"
import * as http from "node:http"
import { Gateway } from "../src/access/gateway/Gateway.js"
import { replicaHolding } from "./support/Replicas.js"
import { clientOn, TestDatabase, TestDatabaseUrlLive } from "./support/TestDatabase.js"
import { account, balanceOf, keyHeader, TestServer, testServer } from "./support/TestServer.js"

const credits = "/api/v1/credits"

/** The same items in an order unrelated to theirs, the same every run (7919 is a prime none of our lengths divide). */
const scrambled = <A>(items: ReadonlyArray<A>): Array<A> => items.map((_, i) => items[(i * 7919) % items.length]!)

const fetchStatus = (url: string, init: RequestInit) =>
  fetch(url, init).then(async (response) => ({ status: response.status, body: await response.text() }))

/**
 * GET `url` over one of `agent`'s connections. 2,000 calls each opening its own connection at
 * once overflow the server's accept queue (511), and the kernel then retries the dropped
 * connections seconds apart (1, 3, 7, 15 s...): on a loaded machine the test measured TCP's
 * backoff, not the service. A few hundred connections still hold every account's calls in flight.
 */
const getOver = (agent: http.Agent, url: string, headers: Record<string, string>) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    http.get(url, { agent, headers }, (response) => {
      let body = ""
      response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk)).on("end", () => resolve({ status: response.statusCode!, body }))
    }).on("error", reject)
  })

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
  // The deadlock of issue 16 needs more calls per account and minute than the default allows,
  // and calls that wait for a slot as long as the machine makes them (fair use is fairUse.test.ts').
  const busyReplica = testServer({ config: { rateLimitPerMinute: 10_000, inFlightWait: Duration.minutes(2) } }).pipe(Layer.provideMerge(clientOn))

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

    it.scoped("sweep abandoned charges of accounts busy on the other replica: no deadlock, no 500, exact balances", () =>
      Effect.gen(function*() {
        const a = yield* Layer.build(busyReplica)
        const b = yield* Layer.build(busyReplica)
        const accounts = yield* Effect.forEach(
          Array.from({ length: 20 }, () => 0),
          () => Effect.provide(account({ patch: { monthly_limit: 10_000 } }), a)
        )
        // Charges a replica that died left behind, in an order unrelated to the accounts: 100 per account.
        const gateway = Context.get(a, Gateway)
        const abandoned = yield* Effect.forEach(
          scrambled(accounts.flatMap((acc) => Array.from({ length: 100 }, () => acc))),
          (acc) => gateway.admit(Option.some(acc.api_key), { method: "GET", route: credits }),
          { concurrency: 50 }
        )
        yield* Effect.provide(replicaHolding(abandoned.map((charge) => charge.chargeId)), a)

        // 100 calls per account on B, 400 in flight at a time (20 an account, 4 of them running);
        // A sweeps once B has answered some of them.
        const url = Context.get(b, TestServer).url
        const calls = scrambled(accounts.flatMap((acc) => Array.from({ length: 100 }, () => acc)).reverse())
        let answered = 0
        let busy!: () => void
        const serving = new Promise<void>((resolve) => (busy = resolve))
        const agent = new http.Agent({ keepAlive: true, maxSockets: 400 })
        yield* Effect.addFinalizer(() => Effect.sync(() => agent.destroy()))
        const answers = Promise.all(calls.map((acc) =>
          getOver(agent, url + credits, keyHeader(acc.api_key).headers).then((answer) => (++answered === 100 && busy(), answer))
        ))
        yield* Effect.promise(() => serving)
        const swept = yield* Effect.exit(gateway.sweep)
        const statuses = (yield* Effect.promise(() => answers)).map((answer) => answer.status)
        expect(statuses.filter((status) => status !== 200)).toEqual([])
        expect(swept).toEqual(Exit.succeed(abandoned.length))
        for (const acc of accounts) {
          expect((yield* Effect.provide(balanceOf(acc.id), a)).used).toBe(100)
        }
      }), { timeout: 120_000 })
  })
})
