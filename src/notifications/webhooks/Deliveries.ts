import * as http from "node:http"
import * as https from "node:https"
import { Deferred, Duration, Effect, identity, Option, Random, Ref } from "effect"
import { AccountEvents } from "../../access/events/AccountEvents.js"
import { KeySealer } from "../../access/gateway/KeySealer.js"
import { record as recordMetric, webhookAttempts, webhookBacklog } from "../../platform/telemetry/Metrics.js"
import { pinnedTo, PublicAddresses } from "../../platform/PublicAddresses.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"
import { type Delivery, Inbox } from "../inbox/Inbox.js"
import { passes } from "../Passes.js"
import { signatureHeader } from "./Signing.js"
import { type Target, targets } from "./Targets.js"
import { webhookSettings } from "./WebhooksConfig.js"
import { type ClaimedAttempt, type DisabledEndpoint, type Outcome, WebhooksRepo } from "./WebhooksRepo.js"
import { errorCodeOf } from "../../kernel/Guards.js"
import { now } from "../../kernel/UtcDay.js"

/** H3: an answer counts only when a 2xx arrives within this. */
export const attemptTimeout = Duration.seconds(10)
/** The most of an answer read: the status is what counts, the rest is drained and dropped. */
export const maxAnswerBytes = 256 * 1024
/**
 * H3: the wait after each failed attempt (Standard Webhooks' example schedule), each made up to
 * 20 % longer at random (jitter, only longer: the retries then always span at least 24 hours):
 * 8 attempts over 27.6 to 33.1 hours, then `failed`.
 */
export const retryDelays: ReadonlyArray<Duration.Duration> = [
  Duration.seconds(5),
  Duration.minutes(5),
  Duration.minutes(30),
  Duration.hours(2),
  Duration.hours(5),
  Duration.hours(10),
  Duration.hours(10)
]
export const jitter = 0.2
/** An endpoint whose attempts have all failed for this long is disabled, with an inbox item. */
export const disableAfter = Duration.days(3)
/** Finished deliveries and outbox events are kept this long (the delivery log, the RPC stream's replay). */
export const retention = Duration.days(30)
const pruneBatch = 1000
/** How often a replica prunes (each pass would cost two statements every `WEBHOOK_POLL_EVERY` for rows that age by the day). */
export const pruneEvery = Duration.hours(1)

/** The wait before attempt `attempts + 1`, or none after the last. */
export const retryDelay = (attempts: number): Effect.Effect<Option.Option<number>> =>
  attempts > retryDelays.length
    ? Effect.succeedNone
    : Effect.map(Random.nextRange(1, 1 + jitter), (factor) =>
      Option.some(Math.round(Duration.toMillis(retryDelays[attempts - 1]!) * factor)))

/** The inbox item of an endpoint disabled (W5). */
export const disabledItem = (endpoint: DisabledEndpoint, at: Date): Delivery => ({
  accountId: endpoint.account_id,
  type: "webhook_disabled",
  title: "A webhook endpoint was disabled",
  body: `Deliveries to ${endpoint.url} have failed since ${endpoint.failing_since.toISOString()}, so it was disabled. ` +
    "Fix the receiver, then register it again.",
  data: { webhook_id: endpoint.id, url: endpoint.url, failing_since: endpoint.failing_since.toISOString() },
  createdAt: at,
  key: `webhook_disabled:${endpoint.id}:${endpoint.failing_since.toISOString()}`
})

/** One POST; the status when an answer came, whatever it was (a redirect is an answer, never followed). */
const post = (target: Target, headers: Record<string, string>, body: string) =>
  Effect.async<number, string>((resume) => {
    let settled = false
    const settle = (effect: Effect.Effect<number, string>) => {
      if (!settled) {
        settled = true
        resume(effect)
      }
    }
    // agent: false: no socket is shared with another target.
    const req = (target.url.protocol === "https:" ? https : http).request(target.url, {
      method: "POST",
      agent: false,
      ...pinnedTo(target.addresses),
      headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "user-agent": "adintel-webhooks/1" }
    })
    req.on("response", (res) => {
      const status = res.statusCode ?? 0
      let seen = 0
      res.on("data", (chunk: Buffer) => {
        seen += chunk.length
        if (seen > maxAnswerBytes) {
          res.destroy()
          settle(Effect.succeed(status))
        }
      })
      res.on("end", () => settle(Effect.succeed(status)))
      res.on("error", () => settle(Effect.succeed(status)))
    })
    req.on("error", (error) => settle(Effect.fail(errorCodeOf(error) ?? error.message)))
    req.end(body)
    return Effect.sync(() => req.destroy())
  })

/**
 * The delivery workers (H3): every replica runs a pass every `WEBHOOK_POLL_EVERY`, claims the
 * due deliveries (`FOR UPDATE SKIP LOCKED`, then leased: no two replicas send one attempt) that
 * fit within the concurrency caps, overall and per endpoint, and the account's attempts per
 * minute, counted over every replica (the claim leaves room for those in flight or started
 * anywhere), sends them at once and writes each outcome.
 * Deliveries cost no credit: nothing here touches the meters.
 */
export class Deliveries extends Effect.Service<Deliveries>()("adintel/WebhookDeliveries", {
  scoped: Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    const events = yield* AccountEvents
    const inbox = yield* Inbox
    const sealer = yield* KeySealer
    const settings = yield* webhookSettings
    const { check } = targets(settings.allowLoopback, yield* PublicAddresses)
    const firstPass = yield* Deferred.make<void>()
    // A claim takes no more than can be sent at once (the caps hold over every replica): the
    // lease outlasts one attempt's timeout, with room to write its outcome.
    const leaseMs = Duration.toMillis(attemptTimeout) + Duration.toMillis(settings.leaseMargin)

    const secretsOf = (attempt: ClaimedAttempt, at: Date) =>
      Effect.all([
        sealer.open(attempt.secret),
        ...(attempt.previous_secret !== null && attempt.previous_until !== null && attempt.previous_until > at
          ? [sealer.open(attempt.previous_secret)]
          : [])
      ])

    /**
     * Sends one attempt; its outcome, never a failure (a refused or broken target is a failed
     * attempt). The look-up is part of the attempt: its 10 s count from before it (issue 44).
     */
    const send = (attempt: ClaimedAttempt): Effect.Effect<{ readonly statusCode: number | null }> =>
      Effect.gen(function*() {
        const target = yield* Effect.either(check(attempt.url))
        if (target._tag === "Left") {
          yield* Effect.logWarning(`Webhook ${attempt.endpoint_id} refused before connecting: ${target.left.reason}`)
          return { statusCode: null }
        }
        const at = yield* now
        const timestamp = Math.floor(at.getTime() / 1000)
        const body = JSON.stringify({
          id: attempt.event_id,
          type: attempt.type,
          created_at: attempt.event_created_at.toISOString(),
          data: attempt.data
        })
        const headers = {
          "webhook-id": attempt.event_id,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": signatureHeader(yield* secretsOf(attempt, at), attempt.event_id, timestamp, body)
        }
        return yield* post(target.right, headers, body).pipe(
          Effect.match({ onFailure: () => ({ statusCode: null }), onSuccess: (statusCode) => ({ statusCode }) })
        )
      }).pipe(Effect.timeoutTo({ duration: attemptTimeout, onSuccess: identity, onTimeout: () => ({ statusCode: null }) }))

    const attempt = (claimed: ClaimedAttempt) =>
      Effect.gen(function*() {
        const { statusCode } = yield* send(claimed)
        const at = yield* now
        const delivered = statusCode !== null && statusCode >= 200 && statusCode <= 299
        const outcome: Outcome = delivered
          ? { _tag: "Delivered", statusCode }
          : {
            _tag: "Failed",
            statusCode,
            next: Option.getOrNull(Option.map(yield* retryDelay(claimed.attempts), (ms) => new Date(at.getTime() + ms)))
          }
        yield* recordMetric(webhookAttempts, 1, { outcome: delivered ? "delivered" : "failed" })
        const disabled = yield* repo.record(claimed, outcome, at, new Date(at.getTime() - Duration.toMillis(disableAfter)))
        if (Option.isSome(disabled)) yield* inbox.deliver([disabledItem(disabled.value, at)])
      })

    /** When this replica last pruned (Clock ms); none before its first pass. */
    const lastPruned = yield* Ref.make(Option.none<number>())
    /** Repeats a bounded delete while it finds a full batch. */
    const drained = (batch: Effect.Effect<number>) => Effect.repeat(batch, { while: (gone) => gone >= pruneBatch })

    /**
     * Past retention, finished deliveries and outbox events are deleted, 1,000 rows a statement
     * until none is left: at a replica's first pass, then once every `pruneEvery` (by the Clock).
     */
    const pruneIfDue = (at: Date) =>
      Effect.gen(function*() {
        const last = yield* Ref.get(lastPruned)
        if (Option.isSome(last) && at.getTime() - last.value < Duration.toMillis(pruneEvery)) return
        yield* Ref.set(lastPruned, Option.some(at.getTime()))
        const before = new Date(at.getTime() - Duration.toMillis(retention))
        yield* drained(repo.prune(before, pruneBatch))
        yield* drained(events.pruneEvents(before, pruneBatch))
      })

    /** The due attempts that fit within the caps and the accounts' pace at `at`, claimed and leased. */
    const claimAt = (at: Date) =>
      repo.claim(at, new Date(at.getTime() + leaseMs), {
        overall: settings.maxConcurrent,
        perEndpoint: settings.maxPerEndpoint,
        perAccountPerMinute: settings.maxPerAccountPerMinute
      })

    /**
     * One pass: the due attempts sent, as many at once as the caps leave room for, claiming again
     * once they are answered until a claim finds none (an endpoint's backlog is not held to its
     * cap per poll); old rows pruned when due. How many attempts were made.
     */
    const pass = (at: Date) =>
      Effect.gen(function*() {
        let made = 0
        for (let claimed = yield* claimAt(at); claimed.length > 0; claimed = yield* Effect.flatMap(now, claimAt)) {
          yield* Effect.forEach(claimed, attempt, { concurrency: "unbounded", discard: true })
          made += claimed.length
        }
        yield* pruneIfDue(at)
        yield* recordMetric(webhookBacklog, yield* repo.backlog(yield* now))
        return made
      })

    const job = yield* passes("Webhook deliveries pass", settings.pollEvery, (at) =>
      Effect.ensuring(pass(at), Deferred.succeed(firstPass, undefined)))

    return {
      /** One pass at the clock's instant; how many attempts were made. */
      pass: Effect.withSpan(Effect.flatMap(now, pass), "Deliveries.pass", serviceSpan),
      /** The instants of the passes finished from now on, while the scope lasts. */
      passes: job.subscribe,
      /** Done once the first pass of `run` has finished. */
      started: Deferred.await(firstPass),
      /** The loop, for a layer to fork: a pass at start, then one every `WEBHOOK_POLL_EVERY`. */
      run: job.run
    }
  }),
  dependencies: [WebhooksRepo.Default, AccountEvents.Default, Inbox.Default, KeySealer.Default, PublicAddresses.Default]
}) {}
