import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Either, Option, Schema } from "effect"
import { EventType } from "../../access/events/OutboxEvent.js"
import { AccountId, WebhookDeliveryId, WebhookId } from "../../kernel/Ids.js"
import type { PageWindow } from "../../kernel/Paging.js"
import { sqlStateOf } from "../../platform/db/Database.js"
import { countOf } from "../../platform/db/Rows.js"
import { deliveryStatuses } from "./Api.js"

/** An instant column as the answers show it: an ISO string. */
const Instant = Schema.transform(Schema.DateFromSelf, Schema.String, {
  strict: true,
  decode: (date) => date.toISOString(),
  encode: (text) => new Date(text)
})

/** An endpoint as the routes show it (never the secret). */
const EndpointRow = Schema.Struct({
  id: WebhookId,
  url: Schema.String,
  events: Schema.Array(EventType),
  description: Schema.NullOr(Schema.String),
  enabled: Schema.Boolean,
  created_at: Instant
})
export type EndpointRow = typeof EndpointRow.Type

const DeliveryRow = Schema.Struct({
  id: WebhookDeliveryId,
  event_id: Schema.String,
  type: EventType,
  status: Schema.Literal(...deliveryStatuses),
  attempts: Schema.Int,
  last_status_code: Schema.NullOr(Schema.Int),
  created_at: Instant,
  delivered_at: Schema.NullOr(Instant)
})

const Bytes = Schema.Uint8ArrayFromSelf

/** A claimed attempt: the delivery, its endpoint with its sealed secrets, and the event. */
export const ClaimedAttempt = Schema.Struct({
  id: WebhookDeliveryId,
  attempts: Schema.Int,
  endpoint_id: WebhookId,
  account_id: AccountId,
  url: Schema.String,
  secret: Bytes,
  previous_secret: Schema.NullOr(Bytes),
  previous_until: Schema.NullOr(Schema.DateFromSelf),
  event_id: Schema.String,
  type: EventType,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  event_created_at: Schema.DateFromSelf
})
export type ClaimedAttempt = typeof ClaimedAttempt.Type

export interface NewEndpoint {
  readonly url: string
  readonly events: ReadonlyArray<EventType>
  readonly description: string | null
  readonly secret: Uint8Array
}

/** What an attempt came to: delivered, retried at `next`, or failed for good (`next` null). */
export type Outcome =
  | { readonly _tag: "Delivered"; readonly statusCode: number }
  | { readonly _tag: "Failed"; readonly statusCode: number | null; readonly next: Date | null }

/** An endpoint disabled for failing too long. */
const DisabledRow = Schema.Struct({ id: WebhookId, account_id: AccountId, url: Schema.String, failing_since: Schema.DateFromSelf })
export type DisabledEndpoint = typeof DisabledRow.Type

/** Where an account stands for a new endpoint at one URL: its endpoints, and whether an enabled one has that URL. */
const Standing = Schema.Struct({ endpoints: Schema.Int, taken: Schema.Boolean })
export type Standing = typeof Standing.Type

/** Why an account may not register another endpoint at a URL: it has one there, or its plan's cap is reached. */
export type Refusal = "Taken" | "Full"
export const refusalOf = (standing: Standing, limit: number): Refusal | undefined =>
  standing.taken ? "Taken" : standing.endpoints >= limit ? "Full" : undefined

const uniqueViolation = "23505"

const endpointColumns = "id::text, url, events, description, enabled, created_at"

/** The SQL of `webhook_endpoints`, `webhook_deliveries` and `webhook_account_starts` (migrations 0083, 0096, 0104). */
export class WebhooksRepo extends Effect.Service<WebhooksRepo>()("adintel/WebhooksRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const endpoint = (account: AccountId, id: WebhookId) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: EndpointRow,
        execute: () =>
          sql`select ${sql.literal(endpointColumns)} from webhook_endpoints where id = ${id}::uuid and account_id = ${account}::uuid`
      })(undefined).pipe(Effect.orDie)

    const standingOf = (account: AccountId, url: string) =>
      SqlSchema.single({
        Request: Schema.Void,
        Result: Standing,
        execute: () => sql`
          select count(*)::int as endpoints, coalesce(bool_or(url = ${url} and enabled), false) as taken
            from webhook_endpoints where account_id = ${account}::uuid`
      })(undefined)

    return {
      endpoint,

      standing: (account: AccountId, url: string): Effect.Effect<Standing> => Effect.orDie(standingOf(account, url)),

      /**
       * Registers an endpoint unless the account's standing refuses it (`refusalOf`), read with
       * the account's row locked: two concurrent registrations cannot both take the last place,
       * nor one URL. The unique index (migration 0104) holds the URL rule for any writer.
       */
      create: (account: AccountId, input: NewEndpoint, at: Date, limit: number): Effect.Effect<Either.Either<EndpointRow, Refusal>> =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`select 1 from accounts where id = ${account}::uuid for update`
          const refusal = refusalOf(yield* standingOf(account, input.url), limit)
          if (refusal !== undefined) return Either.left(refusal)
          return Either.right(yield* SqlSchema.single({
            Request: Schema.Void,
            Result: EndpointRow,
            execute: () => sql`
              insert into webhook_endpoints (account_id, url, events, description, secret, created_at)
              values (${account}::uuid, ${input.url}, ${input.events}::text[], ${input.description}, ${input.secret}, ${at})
              returning ${sql.literal(endpointColumns)}`
          })(undefined))
        })).pipe(
          Effect.catchIf((error) => sqlStateOf(error) === uniqueViolation, () => Effect.succeed(Either.left<Refusal>("Taken"))),
          Effect.orDie
        ),

      /** One P2 page of the account's endpoints, newest first, and how many there are. */
      page: (account: AccountId, window: PageWindow) =>
        Effect.all({
          items: SqlSchema.findAll({
            Request: Schema.Void,
            Result: EndpointRow,
            execute: () => sql`
              select ${sql.literal(endpointColumns)} from webhook_endpoints where account_id = ${account}::uuid
               order by created_at desc, id limit ${window.limit} offset ${window.offset}`
          })(undefined),
          total: countOf(sql`select count(*)::int as n from webhook_endpoints where account_id = ${account}::uuid`)
        }).pipe(Effect.orDie),

      /** Deletes the account's endpoint (and its deliveries); whether there was one. */
      remove: (account: AccountId, id: WebhookId): Effect.Effect<boolean> =>
        sql`delete from webhook_endpoints where id = ${id}::uuid and account_id = ${account}::uuid returning 1`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      /** The new secret in place; the current one kept as the previous until `previousUntil`. */
      rotate: (account: AccountId, id: WebhookId, secret: Uint8Array, previousUntil: Date): Effect.Effect<boolean> =>
        sql`update webhook_endpoints set previous_secret = secret, previous_until = ${previousUntil}, secret = ${secret}
             where id = ${id}::uuid and account_id = ${account}::uuid returning 1`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      /** A delivery of an event to one endpoint, due at `at` (the test route's); in the caller's transaction. */
      deliver: (endpointId: WebhookId, eventSeq: number, at: Date): Effect.Effect<WebhookDeliveryId> =>
        SqlSchema.single({
          Request: Schema.Void,
          Result: Schema.Struct({ id: WebhookDeliveryId }),
          execute: () => sql`
            insert into webhook_deliveries (endpoint_id, event_seq, next_attempt_at, created_at)
            values (${endpointId}::uuid, ${eventSeq}, ${at}, ${at}) returning id::text`
        })(undefined).pipe(Effect.map(({ id }) => id), Effect.orDie),

      /** One P2 page of an endpoint's deliveries, newest first. */
      deliveries: (endpointId: WebhookId, window: PageWindow) =>
        Effect.all({
          items: SqlSchema.findAll({
            Request: Schema.Void,
            Result: DeliveryRow,
            execute: () => sql`
              select d.id::text, e.id as event_id, e.type, d.status, d.attempts, d.last_status_code, d.created_at, d.delivered_at
                from webhook_deliveries d join outbox_events e on e.seq = d.event_seq
               where d.endpoint_id = ${endpointId}::uuid
               order by d.created_at desc, d.id limit ${window.limit} offset ${window.offset}`
          })(undefined),
          total: countOf(sql`select count(*)::int as n from webhook_deliveries where endpoint_id = ${endpointId}::uuid`)
        }).pipe(Effect.orDie),

      /** Queues a delivery again, due at `at`, as a new round of attempts; whether it exists. */
      replay: (endpointId: WebhookId, id: WebhookDeliveryId, at: Date): Effect.Effect<boolean> =>
        sql`update webhook_deliveries
               set status = 'pending', attempts = 0, next_attempt_at = ${at}, delivered_at = null, finished_at = null
             where id = ${id}::uuid and endpoint_id = ${endpointId}::uuid returning 1`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      /**
       * Claims due deliveries of enabled endpoints within the caps, counted over every replica
       * (SPEC-NOTES, "Webhook concurrency caps" and issue 44): at most `caps.overall` deliveries
       * in flight (leased, the lease not run out, no outcome written yet), at most
       * `caps.perEndpoint` at one endpoint, those already in flight included, and at most
       * `caps.perAccountPerMinute` attempts started for one account in the minute up to `at`
       * (`webhook_account_starts`, one row per claim and account). Claims run one at a time (a
       * transaction-scoped advisory lock), so two replicas cannot both take the last place.
       * Each endpoint's oldest due rows are locked with `SKIP LOCKED` (a row another transaction
       * holds is passed over), then taken round-robin over the endpoints, oldest first, within
       * their account's room; each is leased until `leaseUntil` (`leased_until`, and
       * `next_attempt_at` moved past it) and its attempt counted. Another replica sees one again
       * only when the lease runs out (this one died mid-attempt), and it no longer counts as in
       * flight then. A due delivery left out waits, due, for a later claim: it is neither
       * attempted nor failed. Starts older than the minute are forgotten.
       */
      claim: (
        at: Date,
        leaseUntil: Date,
        caps: { readonly overall: number; readonly perEndpoint: number; readonly perAccountPerMinute: number }
      ): Effect.Effect<ReadonlyArray<ClaimedAttempt>> => {
        const minuteAgo = new Date(at.getTime() - 60_000)
        return sql.withTransaction(Effect.gen(function*() {
          yield* sql`select pg_advisory_xact_lock(hashtext('adintel.webhook_claims'))`
          yield* sql`delete from webhook_account_starts where started_at <= ${minuteAgo}`
          return yield* SqlSchema.findAll({
            Request: Schema.Void,
            Result: ClaimedAttempt,
            execute: () => sql`
              with flight as materialized (
                select d.endpoint_id, count(*)::int as n from webhook_deliveries d
                 where d.leased_until > ${at} and d.status = 'pending'
                 group by d.endpoint_id
              ), candidates as (
                select c.id, c.next_attempt_at, c.turn, w.account_id
                  from webhook_endpoints w
                  left join flight f on f.endpoint_id = w.id
                 cross join lateral (
                   select o.id, o.next_attempt_at, row_number() over (order by o.next_attempt_at, o.id) as turn
                     from (select d.id, d.next_attempt_at from webhook_deliveries d
                            where d.endpoint_id = w.id and d.status = 'pending' and d.next_attempt_at <= ${at}
                            order by d.next_attempt_at, d.id
                            limit greatest(${caps.perEndpoint}::int - coalesce(f.n, 0), 0)
                              for update of d skip locked) o
                 ) c
                 where w.enabled
              ), started as (
                select a.account_id, coalesce(sum(s.attempts), 0)::int as n
                  from (select distinct account_id from candidates) a
                  left join webhook_account_starts s on s.account_id = a.account_id and s.started_at > ${minuteAgo}
                 group by a.account_id
              ), paced as (
                select p.id, p.next_attempt_at, p.turn
                  from (select c.*, row_number() over (partition by c.account_id order by c.turn, c.next_attempt_at, c.id) as place
                          from candidates c) p
                  join started s on s.account_id = p.account_id
                 where p.place <= ${caps.perAccountPerMinute}::int - s.n
              ), due as (
                select id from paced
                 order by turn, next_attempt_at, id
                 limit greatest(${caps.overall}::int - (select coalesce(sum(n), 0)::int from flight), 0)
              ), leased as (
                update webhook_deliveries d set attempts = d.attempts + 1, next_attempt_at = ${leaseUntil}, leased_until = ${leaseUntil}
                  from due, webhook_endpoints w, outbox_events e
                 where d.id = due.id and w.id = d.endpoint_id and e.seq = d.event_seq
                returning d.id::text, d.attempts, w.id::text as endpoint_id, w.account_id::text, w.url, w.secret,
                          w.previous_secret, w.previous_until, e.id as event_id, e.type, e.data, e.created_at as event_created_at
              ), counted as (
                insert into webhook_account_starts (account_id, started_at, attempts)
                select account_id::uuid, ${at}, count(*)::int from leased group by account_id
              )
              select * from leased`
          })(undefined)
        })).pipe(Effect.orDie)
      },

      /**
       * Writes an attempt's outcome, and ends its lease (no longer in flight), only while the
       * attempt is still the delivery's latest (a lease that ran out and was claimed again
       * belongs to the newer attempt), and the
       * endpoint's failing streak. An endpoint failing since before `disableBefore` is disabled
       * and answered, once.
       */
      record: (attempt: ClaimedAttempt, outcome: Outcome, at: Date, disableBefore: Date): Effect.Effect<Option.Option<DisabledEndpoint>> =>
        sql.withTransaction(Effect.gen(function*() {
          if (outcome._tag === "Delivered") {
            yield* sql`update webhook_deliveries
                          set status = 'delivered', last_status_code = ${outcome.statusCode}, delivered_at = ${at}, finished_at = ${at},
                              leased_until = null
                        where id = ${attempt.id}::uuid and attempts = ${attempt.attempts} and status = 'pending'`
            yield* sql`update webhook_endpoints set failing_since = null where id = ${attempt.endpoint_id}::uuid and failing_since is not null`
            return Option.none()
          }
          yield* outcome.next === null
            ? sql`update webhook_deliveries set status = 'failed', last_status_code = ${outcome.statusCode}, finished_at = ${at}, leased_until = null
                   where id = ${attempt.id}::uuid and attempts = ${attempt.attempts} and status = 'pending'`
            : sql`update webhook_deliveries set last_status_code = ${outcome.statusCode}, next_attempt_at = ${outcome.next}, leased_until = null
                   where id = ${attempt.id}::uuid and attempts = ${attempt.attempts} and status = 'pending'`
          yield* sql`update webhook_endpoints set failing_since = ${at}
                      where id = ${attempt.endpoint_id}::uuid and failing_since is null`
          return yield* SqlSchema.findOne({
            Request: Schema.Void,
            Result: DisabledRow,
            execute: () => sql`
              update webhook_endpoints set enabled = false
               where id = ${attempt.endpoint_id}::uuid and enabled and failing_since < ${disableBefore}
              returning id::text, account_id::text, url, failing_since`
          })(undefined)
        })).pipe(Effect.orDie),

      /** Forgets finished deliveries older than `before`, at most `limit`; how many went. */
      prune: (before: Date, limit: number): Effect.Effect<number> =>
        countOf(sql`
          with gone as (
            delete from webhook_deliveries where id in (
              select id from webhook_deliveries where status <> 'pending' and finished_at < ${before} limit ${limit})
            returning 1)
          select count(*)::int as n from gone`).pipe(Effect.orDie),

      /** Deliveries due and not yet sent (the backlog gauge). */
      backlog: (at: Date): Effect.Effect<number> =>
        countOf(sql`select count(*)::int as n from webhook_deliveries where status = 'pending' and next_attempt_at <= ${at}`).pipe(
          Effect.orDie
        )
    }
  })
}) {}
