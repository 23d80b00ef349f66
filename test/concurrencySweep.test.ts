import { describe, expect, layer } from "@effect/vitest"
import { Context, Duration, Effect, Exit, Layer, Option } from "effect"
import * as http from "node:http"
import { Gateway } from "../src/access/gateway/Gateway.js"
import { replicaHolding } from "./support/Replicas.js"
import { clientOn, TestDatabaseUrlLive } from "./support/TestDatabase.js"
import { account, balanceOf, keyHeader, TestServer, testServer } from "./support/TestServer.js"

/**
 * The sweeper of a dead replica's charges against a busy one (G5, G6; issue 16's deadlock):
 * 4,000 metered operations, in a file of its own so that it runs beside test/concurrency.test.ts.
 */

const credits = "/api/v1/credits"

/** The same items in an order unrelated to theirs, the same every run (7919 is a prime none of our lengths divide). */
const scrambled = <A>(items: ReadonlyArray<A>): Array<A> => items.map((_, i) => items[(i * 7919) % items.length]!)

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

describe("two replicas on one database (G5, G6)", () => {
  // The deadlock of issue 16 needs more calls per account and minute than the default allows,
  // and calls that wait for a slot as long as the machine makes them (fair use is fairUse.test.ts').
  const busyReplica = testServer({ config: { rateLimitPerMinute: 10_000, inFlightWait: Duration.minutes(2) } }).pipe(Layer.provideMerge(clientOn))

  layer(TestDatabaseUrlLive)((it) => {
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
