import { HttpServerError, HttpServerResponse } from "@effect/platform"
import { HttpApiDecodeError } from "@effect/platform/HttpApiError"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Context, Data, Deferred, Duration, Effect, ExecutionStrategy, Exit, Fiber, FiberId, Layer, Option, Ref, Schema, Scope, TestClock } from "effect"
import { type Admission, Unauthorized, TooManyInFlight } from "../src/access/gateway/Api.js"
import { CallCharge, type CallExit, keepsCredit, statusOfEnd } from "../src/access/gateway/CallCharge.js"
import { type CallInfo, Gateway, Refusal } from "../src/access/gateway/Gateway.js"
import { InFlight } from "../src/access/gateway/InFlight.js"
import { BrandLimitReached } from "../src/ads/brands/Api.js"
import { TrendsCounting } from "../src/ads/trends/Api.js"
import { InternalServerError, InvalidRequest, NotFound, PayloadTooLarge } from "../src/kernel/Errors.js"
import { AccountId, KeyId } from "../src/kernel/Ids.js"
import { AppConfig } from "../src/platform/AppConfig.js"
import { DailyQuota } from "../src/shop/account/Api.js"
import { makeTestLayer } from "./support/TestLayer.js"

/**
 * The credit of a metered call as one scoped resource (issue 43; G4): the table that decides
 * whether a call keeps its credit, then the resource itself on a fake gateway (its rules are
 * the subject here, not the SQL) and the real `InFlight`, with the TestClock.
 */

class Undeclared extends Data.TaggedError("Undeclared") {}

const rows: ReadonlyArray<readonly [string, CallExit, "keeps" | "gives back", number]> = [
  ["a success", Exit.succeed({ success: true }), "keeps", 200],
  ["a response answered 200", Exit.succeed(HttpServerResponse.empty({ status: 200 })), "keeps", 200],
  ["a response answered 503", Exit.succeed(HttpServerResponse.empty({ status: 503 })), "gives back", 503],
  ["bad input, 400 (G11)", Exit.fail(new InvalidRequest({ error: "limit: must be at most 50" })), "keeps", 400],
  ["the platform's 400 for input that does not decode", Exit.fail(new HttpApiDecodeError({ issues: [], message: "x" })), "keeps", 400],
  ["an unknown id, 404", Exit.fail(new NotFound({ error: "Ad not found" })), "keeps", 404],
  ["the daily search quota, the bare 403 (G7)", Exit.fail(new DailyQuota()), "keeps", 403],
  ["a plan's limit, 403 (W1)", Exit.fail(new BrandLimitReached({ error: "Basic plan tracks up to 10 brands" })), "keeps", 403],
  ["a body too large, 413", Exit.fail(new PayloadTooLarge({ error: "Request body too large: at most 10 bytes" })), "keeps", 413],
  ["too many calls in flight, 429: the call never ran", Exit.fail(TooManyInFlight.atMost(4)), "gives back", 429],
  ["the same, still wrapped as the refusal", Exit.fail(new Refusal({ error: TooManyInFlight.atMost(4), rate: Option.none() })), "gives back", 429],
  ["the 500 envelope", Exit.fail(new InternalServerError()), "gives back", 500],
  ["a 503 (trends being counted)", Exit.fail(new TrendsCounting()), "gives back", 503],
  ["a failure the contract does not declare (answered 500)", Exit.fail(new Undeclared()), "gives back", 500],
  ["a defect", Exit.die(new Error("boom")), "gives back", 500],
  ["the client gone (at any point)", Exit.interrupt(HttpServerError.clientAbortFiberId), "gives back", 499],
  ["an interruption that is not the client's (a shutdown)", Exit.interrupt(FiberId.make(7, 0)), "gives back", 503],
  [
    "a typed failure beside an interruption (the failure is the answer)",
    Exit.failCause(Cause.parallel(Cause.fail(new NotFound({ error: "Ad not found" })), Cause.interrupt(FiberId.make(7, 0)))),
    "keeps",
    404
  ]
]

describe("how a metered call ended decides its credit (G4)", () => {
  for (const [what, exit, credit, status] of rows) {
    it(`${what}: ${credit} the credit, recorded ${status}`, () => {
      expect(keepsCredit(exit)).toBe(credit === "keeps")
      expect(statusOfEnd(exit)).toBe(status)
    })
  }
})

const account = Schema.decodeUnknownSync(AccountId)("00000000-0000-0000-0000-000000000001")
const key = Option.some("adi_" + "a".repeat(48))

const admissionFor = (chargeId: string): Admission => ({
  accountId: account,
  keyId: Schema.decodeUnknownSync(KeyId)("00000000-0000-0000-0000-0000000000aa"),
  plan: "basic",
  chargeId,
  credits: { used: 1, limit: 10, remaining: 9, addon_remaining: 0, total_remaining: 9 },
  dailySearch: { used: 0, limit: 10, resetsAt: new Date(0) },
  scripts: { used: 0, limit: 1, resetsAt: null },
  rate: { limit: 60, remaining: 59, resetSeconds: 60 }
})

interface Settled {
  readonly chargeId: string
  readonly status: number
  readonly keep: boolean
}

/**
 * `CallCharge` on a gateway that admits every call with a fresh charge id (or refuses with
 * `refusal`), records each settlement, and has nothing else: a call of any other member dies.
 * One slot in flight per account, `IN_FLIGHT_WAIT` 10 s.
 */
const chargeWith = (options: { readonly refusal?: Refusal; readonly digest?: boolean } = {}) =>
  Effect.gen(function*() {
    const settled = yield* Ref.make<ReadonlyArray<Settled>>([])
    const admitted = yield* Ref.make(0)
    const admit = (_: unknown, call: CallInfo) =>
      options.refusal !== undefined
        ? Effect.fail(options.refusal)
        : Effect.map(Ref.updateAndGet(admitted, (n) => n + 1), (n) => admissionFor(`${call.route}#${n}`))
    const gateway = makeTestLayer(Gateway)({
      ...(options.digest ? { admitDigest: admit } : { admit }),
      settle: (chargeId, { keep, status }) => Ref.update(settled, (all) => [...all, { chargeId, status, keep }])
    })
    const context = yield* Layer.build(CallCharge.DefaultWithoutDependencies.pipe(
      Layer.provideMerge(InFlight.Default),
      Layer.provide([gateway, AppConfig.layerWith({ maxCallsInFlight: 1, inFlightWait: Duration.seconds(10), maxStreamsPerAccount: 2 })])
    ))
    return { charge: Context.get(context, CallCharge), inFlight: Context.get(context, InFlight), settled }
  })

/** A call of route `route`: its credit for its length, then `body`. */
const metered = <A, E>(charge: CallCharge, route: string, body: Effect.Effect<A, E>) =>
  Effect.scoped(Effect.zipRight(charge.take(key, { method: "GET", route }), body))

describe("the credit as a scoped resource (CallCharge)", () => {
  it.scoped("an answer keeps the credit; a typed 404 keeps it; a defect gives it back", () =>
    Effect.gen(function*() {
      const { charge, settled } = yield* chargeWith()
      expect(yield* metered(charge, "/ok", Effect.succeed("answer"))).toBe("answer")
      yield* Effect.exit(metered(charge, "/missing", Effect.fail(new NotFound({ error: "Ad not found" }))))
      yield* Effect.exit(metered(charge, "/dies", Effect.die("boom")))
      expect(yield* Ref.get(settled)).toEqual([
        { chargeId: "/ok#1", status: 200, keep: true },
        { chargeId: "/missing#2", status: 404, keep: true },
        { chargeId: "/dies#3", status: 500, keep: false }
      ])
    }))

  it.scoped("a refusal at admission charges nothing, so nothing is settled", () =>
    Effect.gen(function*() {
      const { charge, settled } = yield* chargeWith({ refusal: new Refusal({ error: new Unauthorized(), rate: Option.none() }) })
      const exit = yield* Effect.exit(metered(charge, "/any", Effect.succeed("never")))
      expect(exit).toEqual(Exit.fail(new Refusal({ error: new Unauthorized(), rate: Option.none() })))
      expect(yield* Ref.get(settled)).toEqual([])
    }))

  it.scoped("an OAuth token's key digest is admitted by its digest", () =>
    Effect.gen(function*() {
      const { charge, settled } = yield* chargeWith({ digest: true })
      yield* Effect.scoped(Effect.zipRight(charge.take(new Uint8Array(32), { method: "MCP", route: "get_credits" }), Effect.void))
      expect(yield* Ref.get(settled)).toEqual([{ chargeId: "get_credits#1", status: 200, keep: true }])
    }))

  it.scoped("a call interrupted while it runs (its client gone) gives the credit back", () =>
    Effect.gen(function*() {
      const { charge, settled } = yield* chargeWith()
      const running = yield* Deferred.make<void>()
      const call = yield* Effect.fork(metered(charge, "/slow", Effect.zipRight(Deferred.succeed(running, undefined), Effect.never)))
      yield* Deferred.await(running)
      yield* Fiber.interrupt(call)
      expect(yield* Ref.get(settled)).toEqual([{ chargeId: "/slow#1", status: 503, keep: false }])
    }))

  it.scoped("a client that gives up while it waits for a slot in flight gets its credit back (issue 43's first leak)", () =>
    Effect.gen(function*() {
      const { charge, inFlight, settled } = yield* chargeWith()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(metered(charge, "/holder", Deferred.await(release)))
      while ((yield* inFlight.users(account)) < 1) yield* Effect.yieldNow()
      const waiting = yield* Effect.fork(metered(charge, "/waiting", Effect.succeed("never ran")))
      while ((yield* inFlight.users(account)) < 2) yield* Effect.yieldNow()
      yield* Fiber.interrupt(waiting)
      expect(yield* inFlight.users(account)).toBe(1)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      expect(yield* Ref.get(settled)).toEqual([
        { chargeId: "/waiting#2", status: 503, keep: false },
        { chargeId: "/holder#1", status: 200, keep: true }
      ])
      expect(yield* inFlight.users(account)).toBe(0)
    }))

  it.scoped("no slot within IN_FLIGHT_WAIT: refused with TooManyInFlight and the window, its credit back", () =>
    Effect.gen(function*() {
      const { charge, inFlight, settled } = yield* chargeWith()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(metered(charge, "/holder", Deferred.await(release)))
      while ((yield* inFlight.users(account)) < 1) yield* Effect.yieldNow()
      const refused = yield* Effect.fork(metered(charge, "/refused", Effect.succeed("never ran")))
      while ((yield* inFlight.users(account)) < 2) yield* Effect.yieldNow()
      yield* TestClock.adjust(Duration.seconds(10))
      const exit = yield* Fiber.await(refused)
      expect(exit).toEqual(Exit.fail(new Refusal({ error: TooManyInFlight.atMost(1), rate: Option.some(admissionFor("x").rate) })))
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      expect(yield* Ref.get(settled)).toEqual([
        { chargeId: "/refused#2", status: 429, keep: false },
        { chargeId: "/holder#1", status: 200, keep: true }
      ])
    }))

  it.scoped("settled by its own end: a call that answered keeps its credit whatever happens after (a stream's first page)", () =>
    Effect.gen(function*() {
      const { charge, inFlight, settled } = yield* chargeWith()
      const call = yield* Scope.make()
      const answered = yield* Scope.fork(call, ExecutionStrategy.sequential)
      yield* charge.take(key, { method: "POST", route: "/stream" }, { settledBy: answered }).pipe(Scope.extend(call))
      yield* Scope.close(answered, Exit.void)
      expect(yield* inFlight.users(account)).toBe(1)
      // The rest of the stream: its client goes away.
      yield* Scope.close(call, Exit.interrupt(HttpServerError.clientAbortFiberId))
      expect(yield* Ref.get(settled)).toEqual([{ chargeId: "/stream#1", status: 200, keep: true }])
      expect(yield* inFlight.users(account)).toBe(0)
    }))

  it.scoped("an open-ended call takes no slot of the calls in flight: it is admitted while another call holds the only one", () =>
    Effect.gen(function*() {
      const { charge, inFlight } = yield* chargeWith()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(metered(charge, "/holder", Deferred.await(release)))
      while ((yield* inFlight.users(account)) < 1) yield* Effect.yieldNow()
      const admission = yield* Effect.scoped(charge.take(key, { method: "POST", route: "/events" }, { slot: "stream" }))
      expect(admission.chargeId).toBe("/events#2")
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
    }))

  it.scoped("open streams past MAX_STREAMS_PER_ACCOUNT (2): refused at once with TooManyInFlight, its credit back; a closed stream frees its place", () =>
    Effect.gen(function*() {
      const { charge, settled } = yield* chargeWith()
      const stream = (route: string) => charge.take(key, { method: "POST", route }, { slot: "stream" })
      const first = yield* Scope.make()
      yield* Scope.extend(stream("/events-1"), first)
      yield* Effect.scoped(Effect.gen(function*() {
        yield* stream("/events-2")
        const refused = yield* Effect.flip(Effect.scoped(stream("/events-3")))
        expect(refused).toEqual(new Refusal({ error: TooManyInFlight.atMost(2), rate: Option.some(admissionFor("/events-3#3").rate) }))
      }))
      yield* Scope.close(first, Exit.void)
      yield* Effect.scoped(stream("/events-4"))
      expect(yield* Ref.get(settled)).toEqual([
        { chargeId: "/events-3#3", status: 429, keep: false },
        { chargeId: "/events-2#2", status: 200, keep: true },
        { chargeId: "/events-1#1", status: 200, keep: true },
        { chargeId: "/events-4#4", status: 200, keep: true }
      ])
    }))
})
