import { HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Context, Deferred, Effect, Layer, Queue, Schema } from "effect"
import { serviceApi } from "../../src/app/Api.js"
import { NotFound, NotFoundBody } from "../../src/kernel/Errors.js"
import { Caller, metered } from "../../src/access/gateway/Api.js"
import { MeteredLive, serveGroup } from "../../src/access/gateway/Http.js"
import { DailyQuotaBody } from "../../src/shop/account/Api.js"
import { SearchQuota } from "../../src/shop/account/SearchQuota.js"
import { legacy } from "../../src/access/session/Legacy.js"
import { alias } from "../../src/kernel/Mirror.js"
import { IdPath } from "../../src/kernel/Params.js"
import { SessionAuthLive } from "../../src/access/session/Http.js"

/**
 * A metered group composed the way a backend engineer adds a route family: a contract with
 * `metered(...)`, handlers with `serveGroup`. Its routes misbehave on purpose.
 */
export class ProbeGroup extends metered(
  HttpApiGroup.make("probe")
    .add(HttpApiEndpoint.get("dies", "/api/v1/probe/dies").addSuccess(Schema.Struct({ success: Schema.Boolean })))
    .add(HttpApiEndpoint.get("throws", "/api/v1/probe/throws").addSuccess(Schema.Struct({ success: Schema.Boolean })))
    .add(
      HttpApiEndpoint.get("soft", "/api/v1/probe/soft").addSuccess(
        Schema.Struct({ success: Schema.Boolean, message: Schema.String })
      )
    )
    .add(
      HttpApiEndpoint.get("item", "/api/v1/probe/items/:id")
        .setPath(IdPath)
        .addSuccess(Schema.Struct({ success: Schema.Boolean, id: Schema.String }))
        .addError(NotFoundBody)
    )
    .add(
      HttpApiEndpoint.post("echo", "/api/v1/probe/echo")
        .setPayload(Schema.Struct({ limit: Schema.Int.pipe(Schema.between(1, 50)), query: Schema.optional(Schema.String) }))
        .addSuccess(Schema.Struct({ success: Schema.Boolean, limit: Schema.Int }))
    )
    .add(HttpApiEndpoint.get("held", "/api/v1/probe/held").addSuccess(Schema.Struct({ success: Schema.Boolean })))
    .add(
      HttpApiEndpoint.get("slow", "/api/v1/probe/slow")
        .setUrlParams(Schema.Struct({ ms: Schema.NumberFromString.pipe(Schema.between(0, 60_000)) }))
        .addSuccess(Schema.Struct({ success: Schema.Boolean }))
    )
    .add(
      HttpApiEndpoint.post("search", "/api/v1/probe/search")
        .addSuccess(Schema.Struct({ success: Schema.Boolean }))
        .addError(DailyQuotaBody)
    )
) {}

/**
 * With both mirrors (Mirror.ts): each is one line here and none in the handlers. The session
 * group is there to sign in with.
 */
export class ProbeApi extends serviceApi("probe")
  .add(ProbeGroup)
  .add(legacy(ProbeGroup, { from: "/api/v1/probe", to: "/api/probe" }))
  .add(alias(ProbeGroup, { from: "/api/v1/probe", to: "/api/probe-alias" }))
{}

/** A call of `/api/v1/probe/held` that has started: its charge, and the latch that lets it answer. */
export interface HeldCall {
  readonly chargeId: string | null
  readonly release: Deferred.Deferred<void>
}

/** Where held calls arrive, in the order they start; each waits for its `release`. */
export class ProbeHold extends Context.Tag("test/ProbeHold")<ProbeHold, Queue.Queue<HeldCall>>() {}

const probeLive = (hold: Queue.Queue<HeldCall>) =>
  serveGroup(ProbeApi, "probe", (handlers) =>
    Effect.gen(function*() {
      const quota = yield* SearchQuota
      const sql = yield* SqlClient.SqlClient
      return handlers
        .handle("dies", () => Effect.die(new Error("boom: secret internals")))
        .handle("throws", () =>
          Effect.sync(() => {
            throw new Error("thrown")
          }))
        .handle("soft", () => Effect.succeed({ success: false, message: "Nothing matched" }))
        .handle("item", ({ path }) =>
          path.id === "known" ? Effect.succeed({ success: true, id: path.id }) : Effect.fail(new NotFound({ error: "Item not found" })))
        .handle("echo", ({ payload }) => Effect.succeed({ success: true, limit: payload.limit }))
        .handle("held", () =>
          Effect.gen(function*() {
            const release = yield* Deferred.make<void>()
            yield* Queue.offer(hold, { chargeId: (yield* Caller).chargeId, release })
            yield* Deferred.await(release)
            return { success: true }
          }))
        .handle("search", () => Effect.as(Effect.flatMap(Caller, quota.consume), { success: true }))
        // A heavy read: holds a pooled connection for `ms` (a database failure is a defect, as in the repositories).
        .handle("slow", ({ urlParams }) => Effect.as(Effect.orDie(sql`select pg_sleep(${urlParams.ms / 1000})`), { success: true }))
    }))

const probeApiLive = (hold: Queue.Queue<HeldCall>) =>
  HttpApiBuilder.api(ProbeApi).pipe(
    Layer.provide(probeLive(hold)),
    Layer.provide([MeteredLive, SessionAuthLive])
  )

/** The probe API; its held calls hang (no test takes them). */
export const ProbeApiLive = Layer.unwrapEffect(Effect.map(Queue.unbounded<HeldCall>(), probeApiLive))

/**
 * A world built by `serve` around the probe API, plus `ProbeHold`: the test takes each held call
 * as it starts and releases it when it likes.
 */
export const withProbeHold = <A, E, R>(serve: (api: typeof ProbeApiLive) => Layer.Layer<A, E, R>) =>
  Layer.unwrapEffect(
    Effect.map(Queue.unbounded<HeldCall>(), (hold) => Layer.merge(serve(probeApiLive(hold)), Layer.succeed(ProbeHold, hold)))
  )
