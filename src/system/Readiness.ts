import { Effect, Option, SubscriptionRef } from "effect"
import { SystemRepo } from "./SystemRepo.js"
import { serviceSpan } from "../platform/telemetry/Tracing.js"

/** Work the service must finish before it reports ready, such as the first demo data load. */
export interface Loading {
  readonly task: string
  /** 0 to 100. */
  readonly percent: number
}

/** What `/ready` reports: a start-up load in progress, if any, and whether the database answers. */
export class Readiness extends Effect.Service<Readiness>()("adintel/Readiness", {
  effect: Effect.gen(function*() {
    const state = yield* SubscriptionRef.make(Option.none<Loading>())
    const repo = yield* SystemRepo
    return {
      state,
      loading: Effect.fn("Readiness.loading", serviceSpan)((task: string, percent: number) =>
        SubscriptionRef.set(state, Option.some({ task, percent: Math.max(0, Math.min(100, Math.floor(percent))) }))),
      done: SubscriptionRef.set(state, Option.none<Loading>()),
      current: SubscriptionRef.get(state),
      /** True when the database answers within two seconds. */
      database: repo.ping
    }
  }),
  dependencies: [SystemRepo.Default]
}) {}
