import { describe, expect, it } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Option, Ref, Schema, Stream, TestClock } from "effect"
import { CreditsExhausted, PlanRequired, RateLimited, Unauthorized } from "../src/access/gateway/Api.js"
import { Gateway, Refusal } from "../src/access/gateway/Gateway.js"
import { type AdmitRequest, type AdmitRow, type Completion, GatewayRepo, type OpenCharge } from "../src/access/gateway/GatewayRepo.js"
import { Replica } from "../src/access/gateway/Replica.js"
import { statusOf } from "../src/kernel/Envelope.js"
import { AccountId, KeyId } from "../src/kernel/Ids.js"
import { AppConfig } from "../src/platform/AppConfig.js"
import { makeTestLayer } from "./support/TestLayer.js"

/**
 * The gateway's rules (G1-G6) on a fake repository: what each verdict of the database is
 * answered with, when a completion and a refund are written, and which charges the sweeper
 * gives back. The SQL behind them is tested on PostgreSQL (test/gateway.test.ts,
 * test/refund.test.ts, test/concurrency.test.ts); here the subject is the logic, in milliseconds.
 */

const accountA = Schema.decodeUnknownSync(AccountId)("00000000-0000-0000-0000-00000000000a")
const accountB = Schema.decodeUnknownSync(AccountId)("00000000-0000-0000-0000-00000000000b")
const wellFormed = Option.some("adi_" + "0".repeat(48))
const call = { method: "GET", route: "/api/v1/credits" }

/** A verdict row as `gateway_admit_many` answers it; the meters of an account on Basic that used 9 of 10. */
const row = (outcome: AdmitRow["outcome"], fields: Partial<AdmitRow> = {}): AdmitRow => ({
  outcome,
  account_id: outcome === "unauthorized" ? null : accountA,
  key_id: outcome === "unauthorized" ? null : Schema.decodeUnknownSync(KeyId)("00000000-0000-0000-0000-0000000000aa"),
  plan: "basic",
  charge_id: outcome === "admitted" ? "41" : null,
  used: 9,
  monthly_limit: 10,
  addon_remaining: 0,
  rate_remaining: 12,
  rate_reset_ms: 1_500,
  search_used: 0,
  daily_search_limit: 10,
  script_used: 0,
  script_generation_limit: 1,
  script_period_start: null,
  ...fields
})

interface Written {
  readonly admitted: ReadonlyArray<ReadonlyArray<AdmitRequest>>
  readonly completed: ReadonlyArray<ReadonlyArray<Completion>>
  readonly refunded: ReadonlyArray<string>
}

/** The gateway on a repository that answers `verdict` and records what it is asked to write; anything else dies. */
const gatewayWith = (repo: Partial<GatewayRepo> = {}, verdict?: AdmitRow) =>
  Effect.gen(function*() {
    const written = yield* Ref.make<Written>({ admitted: [], completed: [], refunded: [] })
    const note = (f: (w: Written) => Written) => Ref.update(written, f)
    const fake = makeTestLayer(GatewayRepo)({
      ...(verdict === undefined ? {} : {
        admitMany: (requests: ReadonlyArray<AdmitRequest>) =>
          Effect.as(note((w) => ({ ...w, admitted: [...w.admitted, requests] })), requests.map(() => verdict))
      }),
      complete: (completions) => note((w) => ({ ...w, completed: [...w.completed, completions] })),
      refund: (chargeId) => Effect.as(note((w) => ({ ...w, refunded: [...w.refunded, chargeId] })), true),
      ...repo
    })
    const context = yield* Layer.build(Gateway.DefaultWithoutDependencies.pipe(Layer.provide([
      fake,
      makeTestLayer(Replica)({ id: "replica-1", beat: Effect.void }),
      AppConfig.layerWith({ serviceName: "Probe", rateLimitPerMinute: 60, creditPackUrl: "https://example.com/credits" })
    ])))
    return { gateway: Context.get(context, Gateway), written }
  })

describe("the gateway's rules, on a fake repository", () => {
  it.scoped("an absent or malformed key is refused with the 401, no quota and no round trip", () =>
    Effect.gen(function*() {
      // No `admitMany`: a round trip would die.
      const { gateway } = yield* gatewayWith()
      for (const key of [Option.none(), Option.some("adi_short"), Option.some("sk_" + "0".repeat(48))]) {
        expect(yield* Effect.flip(gateway.admit(key, call))).toEqual(new Refusal({ error: new Unauthorized(), rate: Option.none() }))
      }
    }))

  it.scoped("each verdict of the database is its refusal, with the status of the error table and the window where G5 wants one", () =>
    Effect.gen(function*() {
      const refusalOf = (verdict: AdmitRow) => Effect.flatMap(gatewayWith({}, verdict), ({ gateway }) => Effect.flip(gateway.admit(wellFormed, call)))
      const window = { limit: 60, remaining: 12, resetSeconds: 2 }

      const unknown = yield* refusalOf(row("unauthorized"))
      expect([unknown, statusOf(unknown.error)]).toEqual([new Refusal({ error: new Unauthorized(), rate: Option.none() }), 401])

      const free = yield* refusalOf(row("plan_required", { plan: "free" }))
      expect([free.error, free.rate, statusOf(free.error)]).toEqual([new PlanRequired({ error: "Probe Basic plan or higher required" }), Option.none(), 403])

      const limited = yield* refusalOf(row("rate_limited", { rate_remaining: 0, rate_reset_ms: 41_200 }))
      expect([limited.error, limited.rate, limited.retryAfter, statusOf(limited.error)]).toEqual([
        RateLimited.perMinute(60),
        Option.some({ limit: 60, remaining: 0, resetSeconds: 42 }),
        Option.some(42),
        429
      ])

      const broke = yield* refusalOf(row("credits_exhausted", { used: 10, monthly_limit: 10 }))
      expect([broke.error, broke.rate, broke.retryAfter, statusOf(broke.error)]).toEqual([
        new CreditsExhausted({
          credits: { used: 10, limit: 10, remaining: 0, addon_remaining: 0, total_remaining: 0 },
          purchase: { url: "https://example.com/credits" }
        }),
        Option.some(window),
        Option.none(),
        429
      ])
    }))

  it.scoped("an admitted call: its charge, the balance after it (G2) and its window; the request names the route and the rate", () =>
    Effect.gen(function*() {
      const { gateway, written } = yield* gatewayWith({}, row("admitted", { used: 3, addon_remaining: 5 }))
      yield* TestClock.adjust(Duration.millis(1_234))
      const admission = yield* gateway.admit(wellFormed, call)
      expect(admission).toMatchObject({
        accountId: accountA,
        chargeId: "41",
        plan: "basic",
        credits: { used: 3, limit: 10, remaining: 7, addon_remaining: 5, total_remaining: 12 },
        rate: { limit: 60, remaining: 12, resetSeconds: 2 }
      })
      const [[request]] = (yield* Ref.get(written)).admitted as [[AdmitRequest]]
      expect({ ...request, keyHash: undefined }).toEqual({
        keyHash: undefined,
        now: new Date(1_234),
        method: "GET",
        route: "/api/v1/credits",
        rateLimit: 60,
        windowSeconds: 60
      })
    }))

  it.scoped("a kept credit's completion is written with the next batch; a given-back one at once, with its refund, before settle returns", () =>
    Effect.gen(function*() {
      const { gateway, written } = yield* gatewayWith()
      const refunds = yield* gateway.refunds
      yield* TestClock.adjust(Duration.millis(250))
      yield* gateway.settle("7", { status: 404, startedAt: 0, keep: true })
      yield* gateway.flush
      expect(yield* Ref.get(written)).toMatchObject({
        completed: [[{ chargeId: "7", at: new Date(250), status: 404, latencyMs: 250 }]],
        refunded: []
      })
      yield* gateway.settle("8", { status: 500, startedAt: 100, keep: false })
      expect(yield* Ref.get(written)).toMatchObject({
        completed: [[{ chargeId: "7" }], [{ chargeId: "8", at: new Date(250), status: 500, latencyMs: 150 }]],
        refunded: ["8"]
      })
      expect(yield* Stream.runHead(Stream.fromQueue(refunds))).toEqual(Option.some("8"))
    }))

  it.scoped("the sweeper gives back a dead replica's open charges, one account at a time, then forgets it; then those past the ceiling", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const refundedOpen: Array<readonly [AccountId, ReadonlyArray<string>]> = []
      const forgotten: Array<string> = []
      const open = (id: string, account: AccountId): OpenCharge => ({ id, account_id: account, charged_at: new Date(0) })
      const { gateway } = yield* gatewayWith({
        deadReplicas: (deadBefore) => {
          asked.push(`dead before ${deadBefore.toISOString()}`)
          return Effect.succeed([{ id: "replica-0", since: new Date(0) }])
        },
        openCharges: (request) => {
          asked.push(`open of ${request.replica ?? "any replica"} until ${request.until?.toISOString() ?? "now"}`)
          return Effect.succeed(request.replica === "replica-0"
            ? [open("1", accountA), open("2", accountB), open("3", accountA)]
            : [open("9", accountB)])
        },
        refundOpen: (account, charges) =>
          Effect.sync(() => {
            refundedOpen.push([account, charges])
            return [...charges]
          }),
        forgetReplica: (replica) => Effect.sync(() => void forgotten.push(replica))
      })
      yield* TestClock.adjust(Duration.hours(7))
      expect(yield* gateway.sweep).toBe(4)
      expect(asked).toEqual([
        // REPLICA_HEARTBEAT_TIMEOUT (1 min) before now; LEDGER_SWEEP_AFTER (6 h) before now.
        "dead before 1970-01-01T06:59:00.000Z",
        "open of replica-0 until now",
        "open of any replica until 1970-01-01T01:00:00.000Z"
      ])
      expect(refundedOpen).toEqual([[accountA, ["1", "3"]], [accountB, ["2"]], [accountB, ["9"]]])
      expect(forgotten).toEqual(["replica-0"])
    }))
})
