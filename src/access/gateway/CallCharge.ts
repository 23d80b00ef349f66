import { HttpServerError, HttpServerResponse } from "@effect/platform"
import { Cause, Clock, Context, Effect, Exit, FiberId, HashSet, Option, Scope } from "effect"
import { keepsItsCredit, statusOf } from "../../kernel/Envelope.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"
import type { Admission } from "./Api.js"
import { type CallInfo, Gateway, Refusal } from "./Gateway.js"
import { InFlight } from "./InFlight.js"

/**
 * The credit of a metered call as one scoped resource (issue 43; spec G1-G4; issue 28): taken
 * with the call's admission (key, plan, rate slot, charge) and its slot of the account's calls
 * in flight, released with how the call ended. REST (the `Metered` middleware), RPC (its
 * middleware) and MCP (each tool call) take it alike; nothing else refunds a call's credit,
 * except the sweeper for a process that died (Gateway.ts).
 */

/** How a call's answer was decided: a value or response it answered, or how it failed. */
export type CallExit = Exit.Exit<unknown, unknown>

/** What a failure answers with: a refusal's error (its window goes to the answer's headers), else itself. */
const answerOf = (error: unknown): unknown => error instanceof Refusal ? error.error : error

/** The status of an answer: a response's own, 200 for any other value. */
const statusOfAnswer = (answer: unknown): number => HttpServerResponse.isServerResponse(answer) ? answer.status : 200

/**
 * spec G4 (and issue 28's refusal for the calls in flight): whether the call keeps its credit.
 * An answer keeps it: a success, or a typed failure below 500 that its class does not declare
 * as given back (`WireForm.keepsCredit`). A defect, an interruption (the client gone while it
 * waits for a slot, sends its body or waits for its answer; the server shutting down), a 5xx
 * or a refusal before the call ran gives it back. `test/callCharge.test.ts` holds the table.
 */
export const keepsCredit = (exit: CallExit): boolean =>
  Exit.match(exit, {
    onSuccess: (answer) => statusOfAnswer(answer) < 500,
    // A typed failure is what the client is answered with, whatever else the cause holds.
    onFailure: (cause) => Option.match(Cause.failureOption(cause), { onNone: () => false, onSome: (error) => keepsItsCredit(answerOf(error)) })
  })

/**
 * The status the ledger records for how the call ended: the answer's, a failure's declared
 * status, 499 for a client that went away and 503 for any other interruption (the platform's
 * own statuses for them), 500 for a defect.
 */
export const statusOfEnd = (exit: CallExit): number =>
  Exit.match(exit, {
    onSuccess: statusOfAnswer,
    onFailure: (cause) =>
      Option.match(Cause.failureOption(cause), {
        onSome: (error) => statusOf(answerOf(error)),
        onNone: () =>
          !Cause.isInterruptedOnly(cause)
            ? 500
            : HashSet.some(Cause.interruptors(cause), (id) => FiberId.toSet(id).pipe(HashSet.has(HttpServerError.clientAbortFiberId)))
            ? 499
            : 503
      })
  })

/**
 * Where a REST call's end is told: the route's answer is decided (its exit, after the service's
 * conventions mapped it, app/Server.ts) before its body is written, while the request's scope,
 * which holds its slot, closes only once the body is written. Closing this scope with the
 * route's exit settles the call's credit.
 */
export class CallEnd extends Context.Tag("adintel/CallEnd")<CallEnd, Scope.CloseableScope>() {}

/** `route` with a `CallEnd` of its own, closed with the route's exit as soon as it has one. */
export const endingWith = <A, E, R>(route: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, CallEnd>> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Scope.make(), (end) =>
      Effect.flatMap(Effect.exit(restore(Effect.provideService(route, CallEnd, end))), (exit) =>
        Effect.zipRight(Scope.close(end, exit), exit))))

export interface TakeOptions {
  /**
   * The scope whose end settles the credit, when it is not the scope the call runs in (REST's
   * `CallEnd`; an RPC stream's opening). It closes with the call's scope at the latest.
   */
  readonly settledBy?: Scope.Scope
  /**
   * Which of the account's slots the call holds: one of its calls in flight (the default), or
   * one of its open streams (an open-ended stream, which waits more than it reads).
   */
  readonly slot?: "call" | "stream"
}

export class CallCharge extends Effect.Service<CallCharge>()("adintel/CallCharge", {
  effect: Effect.gen(function*() {
    const gateway = yield* Gateway
    const inFlight = yield* InFlight

    /** The key as sent (read from the request, G1), or its digest (an OAuth token resolved to its key, M2). */
    const admit = (key: Option.Option<string> | Uint8Array, call: CallInfo) =>
      key instanceof Uint8Array ? gateway.admitDigest(key, call) : gateway.admit(key, call)

    return {
      /**
       * One metered call's admission, for as long as the scope it runs in lasts: G1 steps 1-4
       * (refused with a `Refusal`, nothing charged), then one of the account's slots in flight
       * (refused with a `Refusal` of `TooManyInFlight` and the window once `IN_FLIGHT_WAIT`
       * passes: the call never ran, so the call that answers it gives its credit back). The
       * admission is taken uninterruptibly (a client gone meanwhile is seen at once after it);
       * its release records the call's end in the ledger and keeps or gives back its credit by
       * `keepsCredit`, reading the exit of `settledBy` (default: the call's scope).
       */
      take: Effect.fn("CallCharge.take", serviceSpan)(function*(key: Option.Option<string> | Uint8Array, call: CallInfo, options: TakeOptions = {}) {
        const startedAt = yield* Clock.currentTimeMillis
        const settledBy = options.settledBy ?? (yield* Effect.scope)
        // Acquire and release as `Effect.acquireRelease` would, with the release added to the
        // scope itself: `acquireRelease` also diffs and restores every fiber ref around its
        // release (the whole context twice), a tenth of a metered call's CPU, which settling
        // does not need.
        const admission: Admission = yield* Effect.uninterruptible(Effect.tap(
          admit(key, call),
          ({ chargeId }) =>
            Scope.addFinalizerExit(settledBy, (exit) => gateway.settle(chargeId, { status: statusOfEnd(exit), startedAt, keep: keepsCredit(exit) }))
        ))
        yield* (options.slot === "stream" ? inFlight.openStream : inFlight.take)(admission.accountId).pipe(
          Effect.mapError((error) => new Refusal({ error, rate: Option.some(admission.rate) }))
        )
        return admission
      })
    }
  }),
  dependencies: [Gateway.Default, InFlight.Default]
}) {}
