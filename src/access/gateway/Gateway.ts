import { Chunk, Clock, Data, Deferred, Duration, Effect, Exit, Option, PubSub, Queue, Ref, Schedule } from "effect"
import { AppConfig } from "../../platform/AppConfig.js"
import { admissionBatchSize, admissionWait, creditsCharged, creditsRefunded, rateLimitRefusals, record } from "../../platform/telemetry/Metrics.js"
import { noteRequest, serviceSpan } from "../../platform/telemetry/Tracing.js"
import type { Admission, RateWindow } from "./Api.js"
import { CreditsExhausted, PlanRequired, RateLimited, type TooManyInFlight, Unauthorized } from "./Api.js"
import * as ApiKey from "./ApiKey.js"
import { type AdmitRequest, type AdmitRow, type Completion, GatewayRepo, type OpenCharge } from "./GatewayRepo.js"
import { creditBalance, scriptResetsAt, startOfNextUtcDay } from "./Meters.js"
import { Replica } from "./Replica.js"
import type { AccountId } from "../../kernel/Ids.js"
import { now } from "../../kernel/UtcDay.js"

/** spec: Limits, Rate: "60 requests per minute"; the count is configuration, the window is not. */
export const rateWindowSeconds = 60

/** A session call the rate window refused: the 429, and the window for its headers. */
export class WindowFull extends Data.TaggedError("WindowFull")<{
  readonly error: RateLimited
  readonly rate: RateWindow
}> {}

/**
 * A call turned away before it ran, with the rate window to report when it got that far (G5):
 * by the gateway's admission, or (`CallCharge`) for the account's calls in flight.
 */
export class Refusal extends Data.TaggedError("Refusal")<{
  readonly error: Unauthorized | PlanRequired | RateLimited | CreditsExhausted | TooManyInFlight
  readonly rate: Option.Option<RateWindow>
}> {
  /** spec G5; issue 28: when to try again, in seconds, if the refusal says. */
  get retryAfter(): Option.Option<number> {
    return this.error._tag === "RateLimited"
      ? Option.map(this.rate, (rate) => rate.resetSeconds)
      : this.error._tag === "TooManyInFlight"
      ? Option.some(1)
      : Option.none()
  }
}

export interface CallInfo {
  readonly method: string
  /** The path only: a query string may hold a key and is never stored (G13). */
  readonly route: string
}

const msUntil = (from: Date, to: Date) => Math.max(0, to.getTime() - from.getTime())

const completionQueueSize = 10_000
const completionBatchSize = 500
const admitQueueSize = 10_000
const admitBatchSize = 100
const admitWorkers = 2
const sweepPage = 500

/** The charges of a page, by account: the sweeper refunds one account per transaction. */
const groupByAccount = (charges: ReadonlyArray<OpenCharge>) => {
  const byAccount = new Map<AccountId, Array<string>>()
  for (const charge of charges) {
    const ids = byAccount.get(charge.account_id)
    if (ids === undefined) byAccount.set(charge.account_id, [charge.id])
    else ids.push(charge.id)
  }
  return byAccount
}

interface PendingAdmission {
  readonly request: AdmitRequest
  readonly verdict: Deferred.Deferred<AdmitRow>
}

/** In the completion queue: done once every completion queued before it is written. */
class Flush {
  constructor(readonly done: Deferred.Deferred<void>) {}
}

/**
 * The business rules of the metered path (spec: Authentication, Errors, Limits; G1-G6):
 * admission, refunds, completion records and the sweep of charges whose process died.
 */
export class Gateway extends Effect.Service<Gateway>()("adintel/Gateway", {
  scoped: Effect.gen(function*() {
    const repo = yield* GatewayRepo
    const replica = yield* Replica
    const config = yield* AppConfig

    const rateOf = (row: AdmitRow): RateWindow => ({
      limit: config.rateLimitPerMinute,
      remaining: row.rate_remaining ?? 0,
      resetSeconds: Math.max(1, Math.ceil((row.rate_reset_ms ?? 0) / 1000))
    })

    const balanceOf = (row: AdmitRow) => creditBalance(row.used ?? 0, row.monthly_limit ?? 0, row.addon_remaining ?? 0)

    // Every refund is told here, for whoever waits for one (tests); nobody listening costs nothing.
    const refunds = yield* PubSub.unbounded<string>()
    const refund = (chargeId: string) =>
      Effect.flatMap(now, (at) => repo.refund(chargeId, at)).pipe(
        Effect.tap((refunded) =>
          refunded
            ? PubSub.publish(refunds, chargeId).pipe(
              Effect.zipRight(record(creditsRefunded, 1, { by: "call" })),
              Effect.zipRight(noteRequest((facts) => facts.refunded++))
            )
            : Effect.void)
      )

    // Admissions go to the database in batches: calls that arrive while `admitWorkers` batches
    // are in flight wait and leave together, one statement and one commit for all of them. An
    // idle server sends a call at once. A caller interrupted while waiting marks its slot
    // done first; if its call was charged after all, the charge is refunded right away.
    const admissions = yield* Queue.bounded<PendingAdmission>(admitQueueSize)
    const runBatch = (batch: Chunk.Chunk<PendingAdmission>) =>
      Effect.gen(function*() {
        const items = Chunk.toReadonlyArray(batch)
        yield* record(admissionBatchSize, items.length)
        const exit = yield* Effect.exit(repo.admitMany(items.map((item) => item.request), replica.id))
        yield* Effect.forEach(items, (item, i) =>
          Exit.match(exit, {
            onFailure: (cause) => Effect.asVoid(Deferred.failCause(item.verdict, cause)),
            onSuccess: (rows) =>
              Effect.flatMap(Deferred.succeed(item.verdict, rows[i]!), (delivered) =>
                !delivered && rows[i]!.charge_id !== null ? refund(rows[i]!.charge_id!) : Effect.void)
          }), { discard: true })
      })
    yield* Queue.takeBetween(admissions, 1, admitBatchSize).pipe(
      Effect.flatMap((batch) => Effect.uninterruptible(runBatch(batch))),
      Effect.forever,
      Effect.replicateEffect(admitWorkers, { concurrency: "unbounded", discard: true }),
      Effect.forkScoped
    )
    const admitBatched = (request: AdmitRequest) =>
      Effect.gen(function*() {
        const verdict = yield* Deferred.make<AdmitRow>()
        const queuedAt = yield* Clock.currentTimeNanos
        yield* Queue.offer(admissions, { request, verdict })
        const row = yield* Deferred.await(verdict).pipe(Effect.onInterrupt(() => Deferred.interrupt(verdict)))
        yield* record(admissionWait, Number((yield* Clock.currentTimeNanos) - queuedAt) / 1e9)
        return row
      })

    const refuse = (error: Refusal["error"], rate?: RateWindow) =>
      Effect.fail(new Refusal({ error, rate: Option.fromNullable(rate) }))

    /**
     * G1 steps 1-4 for a key known by its digest: what `admit` does after reading the key, and
     * what an OAuth access token admits with once it is resolved to the key its grant is bound
     * to (spec: INTERPRETATIONS M2; access/oauth).
     */
    const admitDigest = (keyHash: Uint8Array, call: CallInfo) =>
      Effect.gen(function*() {
        const at = yield* now
        const row = yield* admitBatched({
          keyHash,
          now: at,
          method: call.method,
          route: call.route.slice(0, 512),
          rateLimit: config.rateLimitPerMinute,
          windowSeconds: rateWindowSeconds
        })
        switch (row.outcome) {
          case "unauthorized":
            return yield* refuse(new Unauthorized())
          case "plan_required":
            return yield* refuse(PlanRequired.forService(config.serviceName))
          case "rate_limited":
            yield* record(rateLimitRefusals, 1, { limit: "per_minute" })
            return yield* refuse(RateLimited.perMinute(config.rateLimitPerMinute), rateOf(row))
          case "credits_exhausted":
            return yield* refuse(
              new CreditsExhausted({ credits: balanceOf(row), purchase: { url: config.creditPackUrl } }),
              rateOf(row)
            )
          case "admitted":
            yield* record(creditsCharged, 1)
            return {
              accountId: row.account_id!,
              keyId: row.key_id!,
              plan: row.plan!,
              chargeId: row.charge_id!,
              credits: balanceOf(row),
              dailySearch: { used: row.search_used ?? 0, limit: row.daily_search_limit, resetsAt: startOfNextUtcDay(at) },
              scripts: {
                used: row.script_used ?? 0,
                limit: row.script_generation_limit ?? 0,
                resetsAt: scriptResetsAt(row.script_period_start)
              },
              rate: rateOf(row)
            } satisfies Admission
        }
      })

    /** G1 steps 1-4. A malformed key is refused without a round trip. */
    const admit = (key: Option.Option<string>, call: CallInfo) =>
      Option.isNone(key) || !ApiKey.isWellFormed(key.value)
        ? refuse(new Unauthorized())
        : admitDigest(ApiKey.digest(key.value), call)

    // Completions are written in batches by one fiber: a busy server then spends one statement
    // on many answers instead of one per answer. The queue is bounded (back-pressure, never
    // loss); what is queued when the service stops is written before it stops.
    const completions = yield* Queue.bounded<Completion | Flush>(completionQueueSize)
    const write = (batch: Chunk.Chunk<Completion | Flush>) => {
      const items = Chunk.toReadonlyArray(batch)
      const answers = items.filter((item): item is Completion => !(item instanceof Flush))
      return (answers.length === 0 ? Effect.void : repo.complete(answers)).pipe(
        Effect.ensuring(Effect.forEach(items, (item) => item instanceof Flush ? Deferred.succeed(item.done, undefined) : Effect.void))
      )
    }
    yield* Effect.addFinalizer(() => Effect.flatMap(Queue.takeAll(completions), write))
    yield* Queue.takeBetween(completions, 1, completionBatchSize).pipe(
      Effect.flatMap((batch) => Effect.uninterruptible(write(batch))),
      Effect.catchAllCause((cause) => Effect.logError("Recording completions failed", cause)),
      Effect.forever,
      Effect.forkScoped
    )

    /**
     * Records how a call ended, and gives its credit back when `keep` is false (G4; decided by
     * `CallCharge.keepsCredit`). A kept credit's completion is written with others in a batch;
     * one given back is written at once with its refund, so the client that receives the
     * answer sees its credit back.
     */
    const settle = (chargeId: string, ending: { readonly status: number; readonly startedAt: number; readonly keep: boolean }) =>
      Effect.gen(function*() {
        const at = yield* now
        const completion = { chargeId, at, status: ending.status, latencyMs: msUntil(new Date(ending.startedAt), at) }
        if (ending.keep) return yield* Effect.asVoid(Queue.offer(completions, completion))
        yield* repo.complete([completion])
        yield* refund(chargeId)
      })

    /**
     * Refunds the open charges that `find` lists, page by page: one account per transaction,
     * never two accounts' locks at once (lock order, migration 0017).
     */
    const refundAbandoned = (at: Date, find: (after: OpenCharge | null) => Effect.Effect<ReadonlyArray<OpenCharge>>) =>
      Effect.gen(function*() {
        let total = 0
        let after: OpenCharge | null = null
        for (;;) {
          const page: ReadonlyArray<OpenCharge> = yield* find(after)
          for (const [accountId, charges] of groupByAccount(page)) {
            const refunded = yield* repo.refundOpen(accountId, charges, at)
            yield* record(creditsRefunded, refunded.length, { by: "sweeper" })
            yield* PubSub.publishAll(refunds, refunded)
            total += refunded.length
          }
          if (page.length < sweepPage) return total
          after = page[page.length - 1]!
        }
      })

    /**
     * Refunds the charges nobody will complete (G4): those of replicas that stopped beating
     * `replicaHeartbeatTimeout` ago or stopped cleanly, then any still open `ledgerSweepAfter`
     * after it was taken (the ceiling). A call whose replica beats is never refunded before the
     * ceiling. This replica beats first, so its own calls never pass for a dead replica's.
     * The ceiling's sweep reads only what aged past the cutoff since the previous one (the first
     * reads everything); a dead replica's, its charges from its start or the ceiling before its
     * last beat: a long ledger costs nothing per sweep.
     */
    const sweptUntil = yield* Ref.make<Date | null>(null)
    const sweep = Effect.gen(function*() {
      yield* replica.beat
      const at = yield* now
      const deadBefore = new Date(at.getTime() - Duration.toMillis(config.replicaHeartbeatTimeout))
      let total = 0
      for (const dead of yield* repo.deadReplicas(deadBefore, config.ledgerSweepAfter)) {
        total += yield* refundAbandoned(at, (after) =>
          repo.openCharges({ replica: dead.id, from: dead.since, until: null, after, limit: sweepPage }))
        yield* repo.forgetReplica(dead.id, deadBefore)
      }
      const cutoff = new Date(at.getTime() - Duration.toMillis(config.ledgerSweepAfter))
      const previous = yield* Ref.get(sweptUntil)
      // A margin for charges whose insert committed late, after the previous sweep read.
      const from = previous === null ? null : new Date(previous.getTime() - 60_000)
      total += yield* refundAbandoned(at, (after) =>
        repo.openCharges({ replica: null, from, until: cutoff, after, limit: sweepPage }))
      yield* Ref.set(sweptUntil, cutoff)
      if (total > 0) yield* Effect.logWarning(`Refunded ${total} charge(s) whose request will never complete`)
      return total
    })

    /**
     * A session call's slot of its account's rate window (issue 28): the keyed calls' window and
     * limit, no credit. Refused with the rate limit's 429 and the window.
     */
    const rateSlot = (accountId: AccountId) =>
      Effect.gen(function*() {
        const slot = yield* repo.rateSlot({ accountId, now: yield* now, rateLimit: config.rateLimitPerMinute, windowSeconds: rateWindowSeconds })
        const rate: RateWindow = {
          limit: config.rateLimitPerMinute,
          remaining: slot.remaining,
          resetSeconds: Math.max(1, Math.ceil(slot.reset_ms / 1000))
        }
        if (!slot.allowed) yield* record(rateLimitRefusals, 1, { limit: "per_minute" })
        return slot.allowed ? rate : yield* Effect.fail(new WindowFull({ error: RateLimited.perMinute(config.rateLimitPerMinute), rate }))
      })

    /**
     * One more page of a streamed answer (H4): a credit charged like the call's first charge
     * `first` (same key, route and pools), no slot of the rate window; refused as admission
     * refuses (a key revoked, a plan lowered, no credit left).
     */
    const chargePage = (first: string) =>
      Effect.gen(function*() {
        const row = yield* repo.chargePage(first, yield* now, replica.id)
        switch (row.outcome) {
          case "admitted":
            yield* record(creditsCharged, 1)
            return { chargeId: row.charge_id!, credits: balanceOf(row) }
          case "plan_required":
            return yield* Effect.fail(PlanRequired.forService(config.serviceName))
          case "credits_exhausted":
            return yield* Effect.fail(new CreditsExhausted({ credits: balanceOf(row), purchase: { url: config.creditPackUrl } }))
          default:
            return yield* Effect.fail(new Unauthorized())
        }
      })

    /**
     * Whether the calls charged `chargeIds` would still be admitted (an open stream's re-check,
     * issue 44): by charge, nothing when it would, else the refusal admission would answer (a
     * key revoked or regenerated, a plan lowered). A charge not found counts as a key gone.
     */
    const standings = (chargeIds: ReadonlyArray<string>) =>
      Effect.map(chargeIds.length === 0 ? Effect.succeed([]) : repo.standings(chargeIds), (rows) => {
        const found = new Map(rows.map((row) => [row.charge_id, row.outcome]))
        return new Map(chargeIds.map((id) => {
          const outcome = found.get(id) ?? "unauthorized"
          return [id, outcome === "admitted" ? Option.none() : Option.some(
            outcome === "plan_required" ? PlanRequired.forService(config.serviceName) : new Unauthorized()
          )] as const
        }))
      })

    const span = serviceSpan
    return {
      admit: Effect.fn("Gateway.admit", span)(admit),
      standings: Effect.fn("Gateway.standings", span)(standings),
      admitDigest: Effect.fn("Gateway.admitDigest", span)(admitDigest),
      chargePage: Effect.fn("Gateway.chargePage", span)(chargePage),
      rateSlot: Effect.fn("Gateway.rateSlot", span)(rateSlot),
      /** The account a live key belongs to, charging nothing: for what costs no credit (MCP's free messages, M1). */
      accountOfKey: Effect.fn("Gateway.accountOfKey", span)(repo.accountOfKey),
      refund: Effect.fn("Gateway.refund", span)(refund),
      settle: Effect.fn("Gateway.settle", span)(settle),
      /** Waits until every completion queued so far is written (the ledger then shows those answers). */
      flush: Effect.flatMap(Deferred.make<void>(), (done) =>
        Effect.zipRight(Queue.offer(completions, new Flush(done)), Deferred.await(done))).pipe(Effect.withSpan("Gateway.flush", span)),
      /** The ids of the charges refunded from now on, while the scope lasts. */
      refunds: PubSub.subscribe(refunds),
      sweep: Effect.withSpan(sweep, "Gateway.sweep", span),
      /**
       * The sweeper loop, for a layer to fork: on a fixed grid from the start (a sweep that ends
       * past a tick is followed by the next at once). Time comes from the Clock, so TestClock drives it.
       * Each sweep is a span; the loop, which never ends, is none.
       */
      sweeper: sweep.pipe(
        Effect.withSpan("Gateway.sweep", span),
        Effect.catchAllCause((cause) => Effect.logError("Ledger sweep failed", cause)),
        Effect.repeat(Schedule.fixed(config.ledgerSweepEvery)),
        Effect.asVoid
      )
    }
  }),
  dependencies: [GatewayRepo.Default, Replica.Default]
}) {}
