import { describe, expect, it } from "@effect/vitest"
import { Data, Effect, Exit, Fiber, Ref, Schema } from "effect"
import { InternalServerError } from "../src/kernel/Errors.js"
import { AccountId, KeyId } from "../src/kernel/Ids.js"
import { type Admission, Caller } from "../src/access/gateway/Api.js"
import { settle } from "../src/access/gateway/Http.js"

const admission: Admission = {
  accountId: Schema.decodeUnknownSync(AccountId)("00000000-0000-0000-0000-000000000001"),
  keyId: Schema.decodeUnknownSync(KeyId)("00000000-0000-0000-0000-0000000000aa"),
  plan: "basic",
  chargeId: "42",
  credits: { used: 1, limit: 10, remaining: 9, addon_remaining: 0, total_remaining: 9 },
  dailySearch: { used: 0, limit: 10, resetsAt: new Date(0) },
  scripts: { used: 0, limit: 1, resetsAt: null },
  rate: { limit: 60, remaining: 59, resetSeconds: 60 }
}

class NotThere extends Data.TaggedError("NotThere") {}

/** `settle` against a fake refund that records which charges it was asked to return. */
const run = <A, E>(handler: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const refunded = yield* Ref.make<ReadonlyArray<string>>([])
    const gateway = { refund: (id: string) => Effect.as(Ref.update(refunded, (ids) => [...ids, id]), true) }
    const exit = yield* Effect.exit(settle(gateway)(handler).pipe(Effect.provideService(Caller, admission)))
    return { exit, refunded: yield* Ref.get(refunded) }
  })

describe("settle: the refund half of the charge (G4)", () => {
  it.effect("keeps the credit of a success and of a typed failure", () =>
    Effect.gen(function*() {
      expect(yield* run(Effect.succeed("ok"))).toEqual({ exit: Exit.succeed("ok"), refunded: [] })
      const failed = yield* run(Effect.fail(new NotThere()))
      expect(failed.refunded).toEqual([])
      expect(failed.exit).toEqual(Exit.fail(new NotThere()))
    }))

  it.effect("refunds a defect once and answers InternalServerError", () =>
    Effect.gen(function*() {
      const died = yield* run(Effect.die(new Error("boom")))
      expect(died.refunded).toEqual(["42"])
      expect(died.exit).toEqual(Exit.fail(new InternalServerError()))
    }))

  it.effect("refunds a handler that fails with an internal error", () =>
    Effect.gen(function*() {
      const failed = yield* run(Effect.fail(new InternalServerError()))
      expect(failed.refunded).toEqual(["42"])
      expect(failed.exit).toEqual(Exit.fail(new InternalServerError()))
    }))

  it.effect("refunds an interrupted handler once", () =>
    Effect.gen(function*() {
      const refunded = yield* Ref.make<ReadonlyArray<string>>([])
      const gateway = { refund: (id: string) => Effect.as(Ref.update(refunded, (ids) => [...ids, id]), true) }
      const fiber = yield* Effect.fork(settle(gateway)(Effect.never).pipe(Effect.provideService(Caller, admission)))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(fiber)
      expect(yield* Ref.get(refunded)).toEqual(["42"])
    }))

  it.effect("does nothing outside a metered call", () =>
    Effect.gen(function*() {
      const gateway = { refund: () => Effect.die("must not be called") }
      expect(yield* Effect.exit(settle(gateway)(Effect.die("x")))).toEqual(Exit.die("x"))
    }))
})
