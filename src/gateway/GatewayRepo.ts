import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { PlanName } from "./Api.js"

/** One `gateway_verdict` (migration 0001): the verdict and the meters after it. */
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

export interface AdmitRequest {
  readonly keyHash: Uint8Array
  readonly now: Date
  readonly method: string
  readonly route: string
  readonly rateLimit: number
  readonly windowSeconds: number
}

/** How one charged call was answered. */
export interface Completion {
  readonly chargeId: string
  readonly at: Date
  readonly status: number
  readonly latencyMs: number
}

/** A charge that has not completed, as the sweeper finds it. */
export const OpenCharge = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  charged_at: Schema.DateFromSelf
})
export type OpenCharge = typeof OpenCharge.Type

/**
 * The SQL of the metered path. Database failures are defects here (STYLE: Errors). Every
 * statement follows the lock order of migration 0017: an account's meter row first, one account
 * per transaction but for admission batches (ascending account id), ledger rows in id order.
 */
export class GatewayRepo extends Effect.Service<GatewayRepo>()("adintel/GatewayRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const AdmitRows = Schema.Array(Schema.extend(Schema.Struct({ ord: Schema.Int }), AdmitRow))
    const decodeRows = Schema.decodeUnknown(AdmitRows)

    /** Verdicts in the order of the requests. */
    const admitMany = (requests: ReadonlyArray<AdmitRequest>) =>
      Effect.gen(function*() {
        const first = requests[0]!
        const rows = yield* sql`
          select ord, (verdict).outcome, (verdict).account_id, (verdict).key_id, (verdict).plan,
                 (verdict).charge_id::text, (verdict).used, (verdict).monthly_limit, (verdict).addon_remaining,
                 (verdict).rate_remaining, (verdict).rate_reset_ms::text, (verdict).search_used,
                 (verdict).daily_search_limit, (verdict).script_used, (verdict).script_generation_limit,
                 (verdict).script_period_start
            from gateway_admit_many(${requests.map((r) => r.keyHash)}::bytea[], ${requests.map((r) => r.now)}::timestamptz[],
                                    ${requests.map((r) => r.method)}::text[], ${requests.map((r) => r.route)}::text[],
                                    ${first.rateLimit}, make_interval(secs => ${first.windowSeconds}))`
        const verdicts = yield* decodeRows(rows)
        const byPosition = new Array<AdmitRow>(requests.length)
        for (const { ord, ...verdict } of verdicts) byPosition[ord - 1] = verdict
        return byPosition
      }).pipe(Effect.orDie)

    const findOpen = SqlSchema.findAll({
      Request: Schema.Struct({
        from: Schema.NullOr(Schema.DateFromSelf),
        until: Schema.DateFromSelf,
        after: Schema.NullOr(OpenCharge),
        limit: Schema.Int
      }),
      Result: OpenCharge,
      execute: ({ after, from, limit, until }) =>
        sql`select l.id::text as id, l.account_id::text as account_id, l.charged_at from request_ledger l
             where l.charged_at >= coalesce(${from}::timestamptz, '-infinity') and l.charged_at < ${until}
               and (l.charged_at, l.id) > (coalesce(${after?.charged_at ?? null}::timestamptz, '-infinity'), ${after?.id ?? "0"}::bigint)
               and l.completed_at is null and l.refunded_at is null
             order by l.charged_at, l.id
             limit ${limit}`
    })

    return {
      /**
       * Key, plan, rate window, charge and ledger row (G1) for several calls: one statement,
       * one round trip. All requests of a batch share the rate limit and window.
       */
      admitMany,

      /** Returns the credit of a charge to its pool; false when it was already refunded. */
      refund: (chargeId: string, now: Date) =>
        sql<{ refunded: boolean }>`select gateway_refund(${chargeId}::bigint, ${now}) as refunded`.pipe(
          Effect.map((rows) => rows[0]?.refunded === true),
          Effect.orDie
        ),

      /** Records how charged calls were answered, many in one statement; their rows are locked in id order. */
      complete: (completions: ReadonlyArray<Completion>) =>
        sql`update request_ledger l
               set completed_at = coalesce(l.completed_at, c.at), status = c.status, latency_ms = c.latency_ms
              from (select c.* from unnest(${completions.map((c) => c.chargeId)}::bigint[],
                                           ${completions.map((c) => c.at)}::timestamptz[],
                                           ${completions.map((c) => c.status)}::integer[],
                                           ${completions.map((c) => c.latencyMs)}::integer[]) as c(id, at, status, latency_ms)
                      join request_ledger k on k.id = c.id
                     order by c.id
                       for update of k) c
             where l.id = c.id`.pipe(Effect.asVoid, Effect.orDie),

      /**
       * Up to `limit` charges opened in [from, until) that have neither completed nor been
       * refunded, in charge order, after `after` (the last of the previous page). Reads the
       * charge-time index only over that range, and locks nothing.
       */
      openCharges: (range: { readonly from: Date | null; readonly until: Date; readonly after: OpenCharge | null; readonly limit: number }) =>
        findOpen(range).pipe(Effect.orDie),

      /** Refunds those of `charges` (all of one account) still open; the ids refunded. */
      refundOpen: (accountId: string, charges: ReadonlyArray<string>, now: Date) =>
        sql<{ id: string }>`
          select id::text from gateway_refund_charges(${accountId}::uuid, ${charges}::bigint[], ${now}, true) as id`.pipe(
          Effect.map((rows) => rows.map((row) => row.id)),
          Effect.orDie
        )
    }
  })
}) {}
