import { Effect, Option, SubscriptionRef } from "effect"

/** Work the service must finish before it reports ready, such as the first demo data load. */
export interface Loading {
  readonly task: string
  /** 0 to 100. */
  readonly percent: number
}

/** What `/ready` reports besides the database: a start-up load in progress, if any. */
export class Readiness extends Effect.Service<Readiness>()("adintel/Readiness", {
  effect: Effect.map(SubscriptionRef.make(Option.none<Loading>()), (state) => ({
    state,
    loading: (task: string, percent: number) =>
      SubscriptionRef.set(state, Option.some({ task, percent: Math.max(0, Math.min(100, Math.floor(percent))) })),
    done: SubscriptionRef.set(state, Option.none<Loading>()),
    current: SubscriptionRef.get(state)
  }))
}) {}
