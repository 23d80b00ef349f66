import { randomBytes } from "node:crypto"
import { SqlClient, SqlSchema } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import { AccountId } from "../../kernel/Ids.js"
import { EventType } from "./OutboxEvent.js"

/** An event to record: for whom, what, and its ids and counts. */
export interface NewEvent {
  readonly accountId: AccountId
  readonly type: EventType
  readonly data: Readonly<Record<string, unknown>>
}

/** A recorded event, with its stream position. */
export const StoredEvent = Schema.Struct({
  seq: Schema.NumberFromString,
  id: Schema.String,
  account_id: AccountId,
  type: EventType,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  created_at: Schema.DateFromSelf
})
export type StoredEvent = typeof StoredEvent.Type

/** A place in the outbox's commit order: the event's transaction (`xid8`, as text) and its seq. */
export const CommitPosition = Schema.Struct({ xid: Schema.String, seq: Schema.Number })
export type CommitPosition = typeof CommitPosition.Type

/** A recorded event with its place in commit order, for a reader that keeps where it stopped. */
export const CommittedEvent = Schema.extend(StoredEvent, Schema.Struct({ xid: Schema.String }))
export type CommittedEvent = typeof CommittedEvent.Type

/** A new event id: `evt_` and 16 random bytes, base64url (not a time: ids never say when). */
export const newEventId = () => `evt_${randomBytes(16).toString("base64url")}`

/**
 * `newEventId` in SQL, per row: 16 random bytes taken from three version-4 UUIDs where their
 * bits are all random (bytes 1-6 and 10-16 of one, 1-3 of another; byte 7 holds the version and
 * byte 9 the variant), base64url without padding like Node's.
 */
const sqlEventId = `'evt_' || rtrim(translate(encode(
    substring(uuid_send(gen_random_uuid()) from 1 for 6) || substring(uuid_send(gen_random_uuid()) from 10 for 7)
    || substring(uuid_send(gen_random_uuid()) from 1 for 3), 'base64'), '+/', '-_'), '=')`

/** The SQL of `outbox_events` (migration 0082). */
export class OutboxRepo extends Effect.Service<OutboxRepo>()("adintel/OutboxRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = (events: ReadonlyArray<NewEvent>, at: Date) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: StoredEvent,
        execute: () => sql`
          insert into outbox_events (id, account_id, type, data, created_at)
          select e.id, e.account_id, e.type, e.data, ${at}
            from unnest(${events.map(newEventId)}::text[], ${events.map((e) => e.accountId)}::uuid[],
                        ${events.map((e) => e.type)}::text[], ${events.map((e) => JSON.stringify(e.data))}::jsonb[])
                 with ordinality as e(id, account_id, type, data, n)
           order by e.n
          returning seq::text, id, account_id::text, type, data, created_at`
      })(undefined)

    return {
      /**
       * The insert of the events `source` selects (`account_id`, `type`, `data`, in the order to
       * record them), as a data-modifying part of the caller's own statement (`with e as (...)`):
       * for a change that finds its events in SQL, so they never travel to the process and back.
       */
      insertFrom: (source: Fragment, at: Date): Fragment => sql`
          insert into outbox_events (id, account_id, type, data, created_at)
          select ${sql.literal(sqlEventId)}, e.account_id, e.type, e.data, ${at} from (${source}) e
          returning seq`,

      /** Records events in one statement, in the caller's transaction when there is one; answers them in order. */
      emit: (events: ReadonlyArray<NewEvent>, at: Date): Effect.Effect<ReadonlyArray<StoredEvent>> =>
        events.length === 0 ? Effect.succeed([]) : insert(events, at).pipe(Effect.orDie),

      /**
       * The account's events after the one at position `seq` (0: from its first), in commit
       * order, at most `limit`: ordered by (transaction, seq), and only those of transactions
       * older than every one of this database still running, so an event committed later is never
       * passed over (migrations 0091 and 0103). An event pruned since it was read restarts at the oldest kept.
       */
      after: (accountId: AccountId, seq: number, limit: number): Effect.Effect<ReadonlyArray<StoredEvent>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: StoredEvent,
          execute: () => sql`
            select seq::text, id, account_id::text, type, data, created_at from outbox_events
             where account_id = ${accountId}::uuid
               and (xid, seq) > (coalesce((select xid from outbox_events where seq = ${seq}), '0'::xid8), ${seq})
               and xid < (select outbox_horizon())
             order by outbox_events.xid, outbox_events.seq -- (the table's: the answer's seq is text, and 10 sorts before 9)
             limit ${limit}`
        })(undefined).pipe(Effect.orDie),

      /**
       * Every account's events of one type created at or after `from`, after `position` (none:
       * from the oldest), in commit order as `after` reads them (only transactions older than
       * every one of this database still running), at most `limit`: a reader that keeps the last one's position
       * reads each event once.
       */
      ofType: (type: EventType, from: Date, position: CommitPosition | null, limit: number): Effect.Effect<ReadonlyArray<CommittedEvent>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: CommittedEvent,
          execute: () => sql`
            select seq::text, xid::text, id, account_id::text, type, data, created_at from outbox_events
             where type = ${type} and created_at >= ${from}
               and (xid, seq) > (${position?.xid ?? "0"}::xid8, ${position?.seq ?? 0})
               and xid < (select outbox_horizon())
             order by outbox_events.xid, outbox_events.seq
             limit ${limit}`
        })(undefined).pipe(Effect.orDie),

      /** The account's last stream position in commit order (0 before its first event): where "from now" starts. */
      latest: (accountId: AccountId): Effect.Effect<number> =>
        SqlSchema.single({
          Request: Schema.Void,
          Result: Schema.Struct({ seq: Schema.NumberFromString }),
          execute: () => sql`
            select coalesce((select seq from outbox_events where account_id = ${accountId}::uuid
                              order by xid desc, seq desc limit 1), 0)::text as seq`
        })(undefined).pipe(Effect.map(({ seq }) => seq), Effect.orDie),

      /** Forgets events created before `before`, at most `limit` of them; answers how many went. */
      prune: (before: Date, limit: number): Effect.Effect<number> =>
        SqlSchema.single({
          Request: Schema.Void,
          Result: Schema.Struct({ n: Schema.Int }),
          execute: () => sql`
            with gone as (
              delete from outbox_events where seq in (
                select seq from outbox_events where created_at < ${before} order by created_at limit ${limit})
              returning 1)
            select count(*)::int as n from gone`
        })(undefined).pipe(Effect.map(({ n }) => n), Effect.orDie)
    }
  })
}) {}
