import { SqlClient, SqlSchema } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import { Notification, type NotificationData, type NotificationType } from "./Api.js"
import { countOf } from "../../platform/db/Rows.js"
import { AccountId } from "../../kernel/Ids.js"

/** One item for the inbox from one of its sources, its `data` typed by its `type`; `key` makes its delivery idempotent per account. */
export type Delivery = {
  readonly [T in NotificationType]: {
    readonly accountId: AccountId
    readonly type: T
    readonly title: string
    readonly body: string
    readonly data: NotificationData<T>
    readonly createdAt: Date
    readonly key: string
  }
}[NotificationType]

/** A stored item as the inbox shows it: the column `created_at` is a timestamp, the answer's an ISO instant. */
const NotificationRow = Schema.Union(
  ...Notification.members.map((member) =>
    Schema.Struct({ ...member.fields, created_at: Schema.transform(Schema.DateFromSelf, Schema.String, {
      strict: true,
      decode: (date) => date.toISOString(),
      encode: (text) => new Date(text)
    }) })
  )
)

export interface Retention {
  /** The `brand_new_ads` items an account keeps: the newest ones. */
  readonly maxDigestItems: number
  /** Any item created before this is dropped. */
  readonly before: Date
}

/** The SQL of the inbox: `notifications` (migration 0021). */
export class InboxRepo extends Effect.Service<InboxRepo>()("adintel/InboxRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const count = (where: Fragment) =>
      countOf(sql`select count(*)::int as n from notifications n where ${where}`)

    const whereOf = (account: AccountId, unread: boolean) =>
      sql.and([sql`n.account_id = ${account}::uuid`, ...(unread ? [sql`n.read_at is null`] : [])])

    return {
      /** One P2 page, newest first (then the later of two made at once), and how many match. */
      page: (account: AccountId, unread: boolean, window: { readonly limit: number; readonly offset: number }) =>
        Effect.all({
          items: SqlSchema.findAll({
            Request: Schema.Void,
            // Each row decoded by the schema of its type: a stored item whose `data` drifted is a defect, not an answer.
            Result: NotificationRow,
            execute: () => sql`
              select n.id::text, n.type, n.title, n.body, n.created_at, n.read_at is not null as read, n.data
                from notifications n
               where ${whereOf(account, unread)}
               order by n.created_at desc, n.seq desc
               limit ${window.limit} offset ${window.offset}`
          })(undefined),
          total: count(whereOf(account, unread))
        }).pipe(Effect.orDie),

      unread: (account: AccountId): Effect.Effect<number> => count(whereOf(account, true)).pipe(Effect.orDie),

      /** Marks the account's own unread items among `ids` read; how many changed. */
      markRead: (account: AccountId, ids: ReadonlyArray<string>, now: Date): Effect.Effect<number> =>
        sql`update notifications set read_at = ${now}
             where account_id = ${account}::uuid and id = any(${ids}::uuid[]) and read_at is null
            returning 1`.pipe(Effect.map((rows) => rows.length), Effect.orDie),

      markAllRead: (account: AccountId, now: Date): Effect.Effect<number> =>
        sql`update notifications set read_at = ${now} where account_id = ${account}::uuid and read_at is null returning 1`.pipe(
          Effect.map((rows) => rows.length),
          Effect.orDie
        ),

      /**
       * Writes the items whose key the account has not had yet (another replica's delivery of the
       * same key writes nothing), in the order given (`seq` orders items of one instant), then
       * applies the retention to the accounts written to; the items that were new. In the
       * caller's transaction when there is one.
       */
      deliver: (items: ReadonlyArray<Delivery>, retention: Retention): Effect.Effect<ReadonlyArray<Delivery>> =>
        Effect.gen(function*() {
          if (items.length === 0) return []
          const inserted = yield* SqlSchema.findAll({
            Request: Schema.Void,
            Result: Schema.Struct({ account_id: AccountId, dedupe_key: Schema.String }),
            execute: () => sql`
              insert into notifications (account_id, type, title, body, data, created_at, dedupe_key)
              select v.account_id, v.type, v.title, v.body, v.data, v.created_at, v.dedupe_key
                from unnest(${items.map((i) => i.accountId)}::uuid[], ${items.map((i) => i.type)}::text[],
                            ${items.map((i) => i.title)}::text[], ${items.map((i) => i.body)}::text[],
                            ${items.map((i) => JSON.stringify(i.data))}::jsonb[], ${items.map((i) => i.createdAt)}::timestamptz[],
                            ${items.map((i) => i.key)}::text[]) with ordinality
                     as v(account_id, type, title, body, data, created_at, dedupe_key, ord)
               where not exists (select 1 from notifications n where n.account_id = v.account_id and n.dedupe_key = v.dedupe_key)
               order by v.ord
              on conflict (account_id, dedupe_key) do nothing
              returning account_id::text, dedupe_key`
          })(undefined)
          const accounts = [...new Set(inserted.map((r) => r.account_id))]
          if (accounts.length > 0) {
            yield* sql`
              delete from notifications n using (
                select id from (
                  select id, row_number() over (partition by account_id order by created_at desc, seq desc) as rank
                    from notifications where account_id = any(${accounts}::uuid[]) and type = 'brand_new_ads') ranked
                 where rank > ${retention.maxDigestItems}) old
               where n.id = old.id`
            yield* sql`delete from notifications where account_id = any(${accounts}::uuid[]) and created_at < ${retention.before}`
          }
          const fresh = new Set(inserted.map((r) => `${r.account_id} ${r.dedupe_key}`))
          return items.filter((item) => fresh.has(`${item.accountId} ${item.key}`))
        }).pipe(Effect.orDie)
    }
  })
}) {}
