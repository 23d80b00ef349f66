import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { PlanName } from "./Api.js"

/** One row of `gateway_admit` (migration 0001): the verdict and the meters after it. */
export const AdmitRow = Schema.Struct({
  outcome: Schema.Literal("admitted", "unauthorized", "plan_required", "rate_limited", "credits_exhausted"),
  account_id: Schema.NullOr(Schema.String),
  key_id: Schema.NullOr(Schema.String),
  plan: Schema.NullOr(PlanName),
  charge_id: Schema.NullOr(Schema.String),
  used: Schema.NullOr(Schema.Int),
  monthly_limit: Schema.NullOr(Schema.Int),
  addon_remaining: Schema.NullOr(Schema.Int),
  rate_remaining: Schema.NullOr(Schema.Int),
  rate_reset_ms: Schema.NullOr(Schema.NumberFromString),
  search_used: Schema.NullOr(Schema.Int),
  daily_search_limit: Schema.NullOr(Schema.Int),
  script_used: Schema.NullOr(Schema.Int),
  script_generation_limit: Schema.NullOr(Schema.Int),
  script_period_start: Schema.NullOr(Schema.DateFromSelf)
})
export type AdmitRow = typeof AdmitRow.Type

export const AdmitRequest = Schema.Struct({
  keyHash: Schema.Uint8ArrayFromSelf,
  now: Schema.DateFromSelf,
  method: Schema.String,
  route: Schema.String,
  rateLimit: Schema.Int,
  windowSeconds: Schema.Number
})
export type AdmitRequest = typeof AdmitRequest.Type

/** How one charged call was answered. */
export interface Completion {
  readonly chargeId: string
  readonly at: Date
  readonly status: number
  readonly latencyMs: number
}

/** The SQL of the metered path. Database failures are defects here (STYLE: Errors). */
export class GatewayRepo extends Effect.Service<GatewayRepo>()("adintel/GatewayRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const admitQuery = SqlSchema.single({
      Request: AdmitRequest,
      Result: AdmitRow,
      execute: (r) =>
        sql`select outcome, account_id, key_id, plan, charge_id::text, used, monthly_limit, addon_remaining,
                   rate_remaining, rate_reset_ms::text, search_used, daily_search_limit, script_used,
                   script_generation_limit, script_period_start
              from gateway_admit(${r.keyHash}, ${r.now}, ${r.method}, ${r.route}, ${r.rateLimit},
                                 make_interval(secs => ${r.windowSeconds}))`
    })

    return {
      /** Key, plan, rate window, charge and ledger row: one round trip (G1). */
      admit: (request: AdmitRequest) => Effect.orDie(admitQuery(request)),

      /** Returns the credit of a charge to its pool; false when it was already refunded. */
      refund: (chargeId: string, now: Date) =>
        sql<{ refunded: boolean }>`select gateway_refund(${chargeId}::bigint, ${now}) as refunded`.pipe(
          Effect.map((rows) => rows[0]?.refunded === true),
          Effect.orDie
        ),

      /** Records how charged calls were answered, many in one statement. */
      complete: (completions: ReadonlyArray<Completion>) =>
        sql`update request_ledger l
               set completed_at = coalesce(l.completed_at, c.at), status = c.status, latency_ms = c.latency_ms
              from unnest(${completions.map((c) => c.chargeId)}::bigint[],
                          ${completions.map((c) => c.at)}::timestamptz[],
                          ${completions.map((c) => c.status)}::integer[],
                          ${completions.map((c) => c.latencyMs)}::integer[]) as c(id, at, status, latency_ms)
             where l.id = c.id`.pipe(Effect.asVoid, Effect.orDie),

      /** Refunds up to `limit` charges opened before `cutoff` that never completed. */
      refundAbandoned: (cutoff: Date, now: Date, limit: number) =>
        sql<{ refunded: number }>`
          select count(*) filter (where gateway_refund(id, ${now}))::int as refunded
            from (select id from request_ledger
                   where completed_at is null and refunded_at is null and charged_at < ${cutoff}
                   order by charged_at
                   limit ${limit}) open`.pipe(
          Effect.map((rows) => rows[0]?.refunded ?? 0),
          Effect.orDie
        )
    }
  })
}) {}
