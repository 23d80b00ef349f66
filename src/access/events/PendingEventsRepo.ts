import { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect } from "effect"
import { countOf } from "../../platform/db/Rows.js"
import { maxAdIdsPerEvent } from "./OutboxEvent.js"

/**
 * The memory the import's end may sort and hash in (its transaction's `work_mem`): it reads
 * every pending ad of the import once (3.1 million at bench scale), which at the default 4 MB
 * spilled to disk. Its transaction also turns merge joins off: the planner, underestimating the
 * events, sorted every pending row by the four keys to join it to them, where hashing the events
 * is cheaper (one tell at demo scale, the same rows in one session: 1.18 to 1.25 s before, 0.74
 * s with both, 0.94 to 1.0 s with neither).
 */
const tellWorkMem = "256MB"

/**
 * Another kind of pending row told at an import's end, in the same transaction (the saved
 * searches' per-query rows, `SavedSearchesRepo.tell`): takes import `importId`'s rows (and those
 * of imports that wrote none since `staleBefore`), records their events with `record`, and
 * answers how many it recorded.
 */
export type Teller = (importId: string, staleBefore: Date, record: (events: Fragment) => Fragment) => Effect.Effect<number>

/**
 * The SQL of `import_pending_events` (migration 0097): what an import's batches found, waiting
 * for the import's end to become one event per account, type and subject.
 */
export class PendingEventsRepo extends Effect.Service<PendingEventsRepo>()("adintel/PendingEventsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      /**
       * The insert of the pending rows `source` selects for import `importId`, as a
       * data-modifying part of the caller's own statement (`with p as (...)`). `source` has the
       * columns `account_id`, `type`, `subject` (what one event is about: a saved search, a
       * brand), `data` (the event's data but its `count` and `ad_ids`), `count`, and the newest
       * ads (at most 100) as three arrays in one order: `sort_keys` (what orders them, newest
       * first), `ad_rows` (row ids, the tie-break) and `ad_ids` (the ids the event names).
       */
      insertFrom: (importId: string, source: Fragment, at: Date): Fragment => sql`
          insert into import_pending_events (import_id, account_id, type, subject, data, count, sort_keys, ad_rows, ad_ids, written_at)
          select ${importId}::uuid, p.account_id, p.type, p.subject, p.data, p.count, p.sort_keys, p.ad_rows, p.ad_ids, ${at}
            from (${source}) p`,

      /**
       * The events of import `importId`: its pending rows taken in one statement, with those of
       * any import that wrote none since `staleBefore` (one that died before its end), and one
       * event per import, account, type and subject recorded by `record` (the outbox's insert
       * of the events a query selects): the pending `data` with `count` summed over the batches
       * and `ad_ids` the newest 100 of them. Answers how many events it recorded. A row is taken
       * once: two statements taking the same rows wait for each other, and the later finds them
       * gone. The `also` tellers tell their own rows in the same transaction.
       */
      tell: (importId: string, staleBefore: Date, record: (events: Fragment) => Fragment, also: ReadonlyArray<Teller>): Effect.Effect<number> =>
        sql.withTransaction(Effect.zipRight(sql`select set_config('work_mem', ${tellWorkMem}, true), set_config('enable_mergejoin', 'off', true)`, Effect.zipWith(countOf(sql`
          with taken as (
            delete from import_pending_events p
             where p.import_id = ${importId}::uuid
                or p.import_id in (select import_id from import_pending_events group by import_id having max(written_at) < ${staleBefore})
            returning p.import_id, p.account_id, p.type, p.subject, p.data, p.count, p.sort_keys, p.ad_rows, p.ad_ids
          ), events as materialized (
            -- One per import, account, type and subject, numbered: the ads below are grouped by
            -- that number, not by the four keys (a narrower, cheaper sort of every ad).
            select row_number() over () as e, import_id, account_id, type, subject,
                   (array_agg(data))[1] as data, sum(count)::int as count
              from taken group by import_id, account_id, type, subject
          ), newest as (
            select e.e, (array_agg(n.ad_id order by n.sort_key desc, n.ad_row desc))[1:${maxAdIdsPerEvent}] as ad_ids
              from taken t join events e using (import_id, account_id, type, subject)
              cross join lateral unnest(t.sort_keys, t.ad_rows, t.ad_ids) as n(sort_key, ad_row, ad_id)
             group by e.e
          ), told as materialized (
            select m.import_id, m.account_id, m.type, m.subject,
                   m.data || jsonb_build_object('count', m.count, 'ad_ids', to_jsonb(n.ad_ids)) as data
              from events m join newest n using (e)
          ), recorded as (
            ${record(sql`select t.account_id, t.type, t.data from told t order by t.import_id, t.account_id, t.type, t.subject`)}
          )
          select count(*)::int as n from told`).pipe(Effect.orDie),
        Effect.forEach(also, (teller) => teller(importId, staleBefore, record)),
        (n, more) => more.reduce((sum, m) => sum + m, n)))).pipe(Effect.orDie),

      /** Forgets the pending rows of one subject (a saved search deleted): its events are not told. */
      forget: (type: string, subject: string): Effect.Effect<void> =>
        sql`delete from import_pending_events where type = ${type} and subject = ${subject}`.pipe(Effect.asVoid, Effect.orDie)
    }
  })
}) {}
