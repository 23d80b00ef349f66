import { Clock, Duration, Effect, PubSub } from "effect"

/**
 * A background job of the notifications, as every replica runs it: a pass at start, then one at
 * every multiple of `every` (on the Clock, so TestClock drives it). A pass that ends past the
 * next boundary is followed by the next at once; a failed pass is logged and the loop goes on.
 * Each finished pass's instant is told to `subscribe`rs (tests wait on it, never on time).
 */
export const passes = (name: string, every: Duration.Duration, pass: (at: Date) => Effect.Effect<unknown>) =>
  Effect.map(PubSub.unbounded<Date>(), (finished) => {
    const everyMs = Duration.toMillis(every)
    return {
      /** The instants of the passes finished from now on, while the scope lasts. */
      subscribe: PubSub.subscribe(finished),
      /** The loop, for a layer to fork. */
      run: Effect.gen(function*() {
        for (;;) {
          const at = yield* Clock.currentTimeMillis
          const next = Math.floor(at / everyMs) * everyMs + everyMs
          yield* pass(new Date(at)).pipe(Effect.catchAllCause((cause) => Effect.logError(`${name} failed`, cause)))
          yield* PubSub.publish(finished, new Date(at))
          yield* Effect.sleep(Duration.millis(Math.max(0, next - (yield* Clock.currentTimeMillis))))
        }
      })
    }
  })
