import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { type CommitPosition } from "../../access/events/AccountEvents.js"
import { AccountId, SavedSearchId } from "../../kernel/Ids.js"

/** The outbox readers that keep their place (`notification_cursors`): a closed set. */
export type CursorName = "saved_search_digest"

/** A queued row: an event (its outbox position) and one search it tells of (since issue 44, an event may tell several). */
export interface QueuedSearch {
  readonly seq: number
  readonly savedSearchId: SavedSearchId
}

/** An event to queue for one of its searches, with the account and the slot that tells it. */
export interface Queued extends QueuedSearch {
  readonly accountId: AccountId
  readonly slot: Date
}

/** A queued event whose slot has come, with what the event recorded. */
export const DueEvent = Schema.Struct({
  seq: Schema.NumberFromString,
  id: Schema.String,
  account_id: AccountId,
  saved_search_id: SavedSearchId,
  slot: Schema.DateFromSelf,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  created_at: Schema.DateFromSelf
})
export type DueEvent = typeof DueEvent.Type

/** The SQL of `notification_cursors` and `saved_search_digest_queue` (migrations 0100 and 0105: a row per event and search). */
export class DigestQueueRepo extends Effect.Service<DigestQueueRepo>()("adintel/DigestQueueRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const seqs = (values: ReadonlyArray<number>) => values.map(String)

    return {
      /**
       * The reader's place, its row locked until the caller's transaction ends (another replica's
       * pass waits for it): the start of the outbox before its first move.
       */
      lockCursor: (name: CursorName): Effect.Effect<CommitPosition> =>
        Effect.zipRight(
          sql`insert into notification_cursors (name, xid, seq) values (${name}, '0', 0) on conflict (name) do nothing`,
          SqlSchema.single({
            Request: Schema.Void,
            Result: Schema.Struct({ xid: Schema.String, seq: Schema.NumberFromString }),
            execute: () => sql`select xid::text, seq::text from notification_cursors where name = ${name} for update`
          })(undefined)
        ).pipe(Effect.orDie),

      /** Moves the reader's place on (in the transaction that locked it). */
      moveCursor: (name: CursorName, position: CommitPosition): Effect.Effect<void> =>
        Effect.asVoid(sql`update notification_cursors set xid = ${position.xid}::xid8, seq = ${position.seq} where name = ${name}`).pipe(Effect.orDie),

      /** Queues events under their slots, a row per event and search (one queued already keeps its row). */
      enqueue: (rows: ReadonlyArray<Queued>): Effect.Effect<void> =>
        rows.length === 0 ? Effect.void : Effect.asVoid(sql`
          insert into saved_search_digest_queue (event_seq, account_id, saved_search_id, slot)
          select * from unnest(${seqs(rows.map((r) => r.seq))}::bigint[], ${rows.map((r) => r.accountId)}::uuid[],
                               ${rows.map((r) => r.savedSearchId)}::uuid[], ${rows.map((r) => r.slot)}::timestamptz[])
          on conflict (event_seq, saved_search_id) do nothing`).pipe(Effect.orDie),

      /**
       * The queued events of the first `groups` (account, search, slot) groups whose slot is at or
       * before `now`, earliest slot first; each group whole, its events in commit order.
       */
      due: (now: Date, groups: number): Effect.Effect<ReadonlyArray<DueEvent>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: DueEvent,
          execute: () => sql`
            with due as (
              select distinct slot, account_id, saved_search_id from saved_search_digest_queue
               where slot <= ${now}
               order by slot, account_id, saved_search_id
               limit ${groups})
            select q.event_seq::text as seq, e.id, q.account_id::text, q.saved_search_id::text, q.slot, e.data, e.created_at
              from due join saved_search_digest_queue q using (slot, account_id, saved_search_id)
              join outbox_events e on e.seq = q.event_seq
             order by q.slot, q.account_id, q.saved_search_id, e.xid, e.seq`
        })(undefined).pipe(Effect.orDie),

      /**
       * Takes queued rows out: told, or no longer to tell. By event and search: another search of
       * the same event may be in a group a later transaction tells.
       */
      remove: (rows: ReadonlyArray<QueuedSearch>): Effect.Effect<void> =>
        rows.length === 0 ? Effect.void : Effect.asVoid(sql`
          delete from saved_search_digest_queue q
           using unnest(${seqs(rows.map((r) => r.seq))}::bigint[], ${rows.map((r) => r.savedSearchId)}::uuid[]) as r(seq, search)
           where q.event_seq = r.seq and q.saved_search_id = r.search`).pipe(Effect.orDie),

      /** Moves queued rows to a later slot (the account's digest preferences changed). */
      reslot: (rows: ReadonlyArray<QueuedSearch & { readonly slot: Date }>): Effect.Effect<void> =>
        rows.length === 0 ? Effect.void : Effect.asVoid(sql`
          update saved_search_digest_queue q set slot = r.slot
            from unnest(${seqs(rows.map((r) => r.seq))}::bigint[], ${rows.map((r) => r.savedSearchId)}::uuid[],
                        ${rows.map((r) => r.slot)}::timestamptz[]) as r(seq, search, slot)
           where q.event_seq = r.seq and q.saved_search_id = r.search`).pipe(Effect.orDie)
    }
  })
}) {}
