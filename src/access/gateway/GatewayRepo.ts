import { SqlClient, SqlSchema } from "@effect/sql"
import { Duration, Effect, Option, Schema } from "effect"
import { PlanName } from "./Api.js"
import { AccountId, KeyId } from "../../kernel/Ids.js"

/** One `gateway_verdict` (migration 0001): the verdict and the meters after it. */
export const AdmitRow = Schema.Struct({
  outcome: Schema.Literal("admitted", "unauthorized", "plan_required", "rate_limited", "credits_exhausted"),
  account_id: Schema.NullOr(AccountId),
  key_id: Schema.NullOr(KeyId),
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

/** Whether the key and plan a charge was admitted with would still be admitted (a stream's re-check, issue 44). */
export const Standing = Schema.Struct({
  charge_id: Schema.String,
  outcome: Schema.Literal("admitted", "unauthorized", "plan_required")
})
export type Standing = typeof Standing.Type

/** A charge that has not completed, as the sweeper finds it. */
export const OpenCharge = Schema.Struct({
  id: Schema.String,
  account_id: AccountId,
  charged_at: Schema.DateFromSelf
})
export type OpenCharge = typeof OpenCharge.Type

export const OpenChargesRequest = Schema.Struct({
  /** Only the charges of this replica; null: of any. */
  replica: Schema.NullOr(Schema.String),
  from: Schema.NullOr(Schema.DateFromSelf),
  until: Schema.NullOr(Schema.DateFromSelf),
  after: Schema.NullOr(OpenCharge),
  limit: Schema.Int
})
export type OpenChargesRequest = typeof OpenChargesRequest.Type

/** A replica that stopped beating, and the instant from which its open charges are looked for. */
export const DeadReplica = Schema.Struct({ id: Schema.String, since: Schema.DateFromSelf })
export type DeadReplica = typeof DeadReplica.Type

const KeyAccount = Schema.Struct({ account_id: AccountId })
const Refund = Schema.Struct({ refunded: Schema.Boolean })
const ReplicaId = Schema.Struct({ id: Schema.String })
const RefundedCharge = Schema.Struct({ id: Schema.String })

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

    /** Verdicts in the order of the requests; the charges are held by `replica`. */
    const admitMany = (requests: ReadonlyArray<AdmitRequest>, replica: string) =>
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
                                    ${first.rateLimit}, make_interval(secs => ${first.windowSeconds}), ${replica}::uuid)`
        const verdicts = yield* decodeRows(rows)
        const byPosition = new Array<AdmitRow>(requests.length)
        for (const { ord, ...verdict } of verdicts) byPosition[ord - 1] = verdict
        return byPosition
      }).pipe(Effect.orDie)

    /** One more page of a streamed call, charged like its first charge `first` (migration 0087). */
    const chargePage = (first: string, now: Date, replica: string) =>
      Effect.gen(function*() {
        const rows = yield* sql`
          select (v).outcome, (v).account_id, (v).key_id, (v).plan, (v).charge_id::text, (v).used, (v).monthly_limit,
                 (v).addon_remaining, (v).rate_remaining, (v).rate_reset_ms::text, (v).search_used,
                 (v).daily_search_limit, (v).script_used, (v).script_generation_limit, (v).script_period_start
            from (select gateway_charge_page(${first}::bigint, ${now}, ${replica}::uuid) as v) charged`
        return yield* Schema.decodeUnknown(AdmitRow)(rows[0])
      }).pipe(Effect.orDie)

    const findOpen = SqlSchema.findAll({
      Request: OpenChargesRequest,
      Result: OpenCharge,
      execute: ({ after, from, limit, replica, until }) =>
        sql`select l.id::text as id, l.account_id::text as account_id, l.charged_at from request_ledger l
             where l.charged_at >= coalesce(${from}::timestamptz, '-infinity')
               and l.charged_at < coalesce(${until}::timestamptz, 'infinity')
               and (l.charged_at, l.id) > (coalesce(${after?.charged_at ?? null}::timestamptz, '-infinity'), ${after?.id ?? "0"}::bigint)
               and l.completed_at is null and l.refunded_at is null
               and (${replica}::uuid is null or l.replica_id = ${replica}::uuid)
             order by l.charged_at, l.id
             limit ${limit}`
    })

    const findDead = SqlSchema.findAll({
      Request: Schema.Struct({ deadBefore: Schema.DateFromSelf, ceiling: Schema.DurationFromSelf }),
      Result: DeadReplica,
      execute: ({ ceiling, deadBefore }) =>
        sql`select id::text, greatest(started_at, beat_at - make_interval(secs => ${Duration.toSeconds(ceiling)})) as since
              from gateway_replicas
             where stopped_at is not null or beat_at < ${deadBefore}`
    })

    const rateSlot = SqlSchema.single({
      Request: Schema.Struct({ accountId: AccountId, now: Schema.DateFromSelf, rateLimit: Schema.Int, windowSeconds: Schema.Int }),
      Result: Schema.Struct({ allowed: Schema.Boolean, remaining: Schema.Int, reset_ms: Schema.NumberFromString }),
      execute: ({ accountId, now, rateLimit, windowSeconds }) =>
        sql`select allowed, remaining, reset_ms::text from gateway_rate_slot(${accountId}::uuid, ${now}, ${rateLimit}, make_interval(secs => ${windowSeconds}))`
    })

    return {
      /** A slot of the account's rate window, no charge (session calls; migration 0076). */
      rateSlot: (request: { readonly accountId: AccountId; readonly now: Date; readonly rateLimit: number; readonly windowSeconds: number }) =>
        Effect.orDie(rateSlot(request)),

      /**
       * Key, plan, rate window, charge and ledger row (G1) for several calls: one statement,
       * one round trip. All requests of a batch share the rate limit and window.
       */
      admitMany,

      chargePage,

      /**
       * Each charge's standing: its key revoked (a regenerated key) is `unauthorized`, its
       * account's plan without API access `plan_required`; a charge not found is absent.
       */
      standings: (chargeIds: ReadonlyArray<string>) =>
        SqlSchema.findAll({
          Request: Schema.Array(Schema.String),
          Result: Standing,
          execute: (ids) =>
            sql`select l.id::text as charge_id,
                       case when ak.id is null then 'unauthorized' when not p.api_access then 'plan_required' else 'admitted' end as outcome
                  from request_ledger l
                  left join api_keys ak on ak.id = l.key_id and ak.revoked_at is null
                  left join accounts a on a.id = ak.account_id
                  left join plans p on p.name = a.plan
                 where l.id = any(${ids}::bigint[])`
        })(chargeIds).pipe(Effect.orDie),

      /** The account of a live key, without charging it (the free MCP messages, M1). */
      accountOfKey: (keyHash: Uint8Array) =>
        SqlSchema.findOne({
          Request: Schema.Void,
          Result: KeyAccount,
          execute: () => sql`select account_id::text from api_keys where key_hash = ${keyHash} and revoked_at is null`
        })(undefined).pipe(Effect.map(Option.map((row) => row.account_id)), Effect.orDie),

      /** Returns the credit of a charge to its pool; false when it was already refunded. */
      refund: (chargeId: string, now: Date) =>
        SqlSchema.single({
          Request: Schema.Void,
          Result: Refund,
          execute: () => sql`select gateway_refund(${chargeId}::bigint, ${now}) as refunded`
        })(undefined).pipe(Effect.map((row) => row.refunded), Effect.orDie),

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
       * Up to `limit` charges opened in [from, until) (of `replica`, when given) that have neither
       * completed nor been refunded, in charge order, after `after` (the last of the previous
       * page). Reads the charge-time index only over that range, and locks nothing.
       */
      openCharges: (request: OpenChargesRequest) => findOpen(request).pipe(Effect.orDie),

      /** Registers a replica that starts now; its id. */
      registerReplica: (now: Date) =>
        SqlSchema.single({
          Request: Schema.Void,
          Result: ReplicaId,
          execute: () => sql`insert into gateway_replicas (id, started_at, beat_at)
                            values (gen_random_uuid(), ${now}, ${now}) returning id::text`
        })(undefined).pipe(Effect.map((row) => row.id), Effect.orDie),

      /** A heartbeat; it registers the replica again if a sweeper took it for dead and forgot it. */
      beat: (replica: string, now: Date) =>
        sql`insert into gateway_replicas (id, started_at, beat_at) values (${replica}::uuid, ${now}, ${now})
            on conflict (id) do update set beat_at = excluded.beat_at, stopped_at = null`.pipe(Effect.asVoid, Effect.orDie),

      /** A clean stop: the replica is gone now, whatever it still held is swept at once. */
      retireReplica: (replica: string, now: Date) =>
        sql`update gateway_replicas set stopped_at = ${now} where id = ${replica}::uuid`.pipe(Effect.asVoid, Effect.orDie),

      /**
       * Replicas stopped or silent since `deadBefore`, each with the instant from which its open
       * charges are looked for: its start, or `ceiling` before its last beat (older charges are
       * the ceiling's).
       */
      deadReplicas: (deadBefore: Date, ceiling: Duration.Duration) => findDead({ deadBefore, ceiling }).pipe(Effect.orDie),

      /** Forgets a dead replica whose charges are refunded, unless it has beaten since. */
      forgetReplica: (replica: string, deadBefore: Date) =>
        sql`delete from gateway_replicas
             where id = ${replica}::uuid and (stopped_at is not null or beat_at < ${deadBefore})`.pipe(Effect.asVoid, Effect.orDie),

      /** Refunds those of `charges` (all of one account) still open; the ids refunded. */
      refundOpen: (accountId: AccountId, charges: ReadonlyArray<string>, now: Date) =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: RefundedCharge,
          execute: () => sql`
          select id::text from gateway_refund_charges(${accountId}::uuid, ${charges}::bigint[], ${now}, true) as id`
        })(undefined).pipe(Effect.map((rows) => rows.map((row) => row.id)), Effect.orDie)
    }
  })
}) {}
