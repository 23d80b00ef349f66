import { Effect, Exit, Option, Scope, Stream } from "effect"
import { Caller, type CreditsExhausted, type PlanRequired, type Unauthorized } from "./Api.js"
import { CallEnd } from "./CallCharge.js"
import { Gateway } from "./Gateway.js"

/** Why a streamed answer stops before its last page: the refusal of the page's charge. */
export type PageRefusal = Unauthorized | PlanRequired | CreditsExhausted

/**
 * A streamed answer's pages, metered (H4): the first page is paid by the call's own charge, and
 * handing it on answers the call (it closes the call's `CallEnd`: its credit stays whatever
 * follows; a REST answer has already answered by then), each
 * later one is charged a credit once it is read and before it is sent, and a refused charge ends
 * the stream with the refusal (`CreditsExhausted` when nothing is left). A page is only charged
 * when the stream is pulled for it, so a client gone (the stream interrupted) is charged nothing
 * more: a charge still waiting is cancelled, and one taken before the page was handed on is
 * given back (G4). Session callers, charged nothing for the call, are charged nothing per page either.
 */
export const chargedPages = <A, E, R>(pages: Stream.Stream<A, E, R>): Effect.Effect<Stream.Stream<A, E | PageRefusal, R>, never, Caller | Gateway> =>
  Effect.gen(function*() {
    const gateway = yield* Gateway
    const { chargeId } = yield* Caller
    const end = yield* Effect.serviceOption(CallEnd)
    if (chargeId === null) return pages
    return pages.pipe(
      Stream.zipWithIndex,
      Stream.mapEffect(([page, index]) =>
        index === 0
          ? Effect.as(Option.match(end, { onNone: () => Effect.void, onSome: (end) => Scope.close(end, Exit.void) }), page)
          : Effect.uninterruptibleMask((restore) =>
          // The charge can be interrupted: a client gone while it waits (on the meter's row)
          // cancels its statement, and nothing is charged.
          Effect.flatMap(restore(gateway.chargePage(chargeId)), (charge) =>
            // Once it is taken, an interruption before the page is handed on gives it back.
            restore(Effect.succeed(page)).pipe(Effect.onInterrupt(() => gateway.refund(charge.chargeId))))
        ))
    )
  })
