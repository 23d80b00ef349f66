import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { ShareLink } from "./Api.js"
import type { Window } from "./WorkspaceRepo.js"
import { countOf } from "../../platform/db/Rows.js"
import { AccountId, BoardId } from "../../kernel/Ids.js"

const LinkRow = Schema.Struct({
  id: Schema.String,
  board_id: Schema.String,
  created_at: Schema.DateFromSelf,
  expires_at: Schema.DateFromSelf
})
const linkOf = (r: typeof LinkRow.Type): ShareLink => ({
  id: r.id,
  board_id: r.board_id,
  created_at: r.created_at.toISOString(),
  expires_at: r.expires_at.toISOString()
})
const linkColumns = "l.id::text as id, l.board_id::text as board_id, l.created_at, l.expires_at"

/** What a live token opens: whose board, until when. */
export interface SharedTarget {
  readonly accountId: AccountId
  readonly boardId: BoardId
  readonly expiresAt: Date
}

/** What a create did; `missing` (no such board of the account) and `full` wrote nothing. */
export type Created = ShareLink | "missing" | "full"

/**
 * The SQL of share links (`workspace_share_links`, only the token's SHA-256 kept) and of the
 * public page's views per client address (`workspace_share_views`). A link is live until it
 * expires or is revoked (deleted); creates take the workspace's per-account lock, so the
 * per-board cap holds under concurrent calls.
 */
export class ShareLinksRepo extends Effect.Service<ShareLinksRepo>()("adintel/ShareLinksRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    return {
      create: (account: AccountId, board: BoardId, tokenHash: string, now: Date, expiresAt: Date, cap: number): Effect.Effect<Created> =>
        sql.withTransaction(
          Effect.gen(function*() {
            yield* sql`select pg_advisory_xact_lock(hashtext('adintel.workspace'), hashtext(${account}))`
            const owned = yield* sql`select 1 from workspace_boards where id = ${board}::uuid and account_id = ${account}::uuid`
            if (owned.length === 0) return "missing" as const
            // Expired links open nothing any more: they make room rather than pile up.
            yield* sql`delete from workspace_share_links where board_id = ${board}::uuid and expires_at <= ${now}`
            const live = yield* countOf(sql`select count(*)::int as n from workspace_share_links where board_id = ${board}::uuid`)
            if (live >= cap) return "full" as const
            const [row] = yield* SqlSchema.findAll({
              Request: Schema.Void,
              Result: LinkRow,
              execute: () => sql`
                insert into workspace_share_links as l (account_id, board_id, token_hash, created_at, expires_at)
                values (${account}::uuid, ${board}::uuid, ${tokenHash}, ${now}, ${expiresAt})
                returning ${sql.literal(linkColumns)}`
            })(undefined)
            return linkOf(row!)
          })
        ).pipe(Effect.orDie),

      /** One P2 page of the account's live links (of one board), newest first, and how many. */
      page: (
        account: AccountId,
        board: BoardId | undefined,
        now: Date,
        window: Window
      ): Effect.Effect<{ readonly links: ReadonlyArray<ShareLink>; readonly total: number }> => {
        const where = sql.and([
          sql`l.account_id = ${account}::uuid`,
          sql`l.expires_at > ${now}`,
          ...(board === undefined ? [] : [sql`l.board_id = ${board}::uuid`])
        ])
        return Effect.all({
          links: SqlSchema.findAll({
            Request: Schema.Void,
            Result: LinkRow,
            execute: () => sql`
              select ${sql.literal(linkColumns)} from workspace_share_links l where ${where}
               order by l.created_at desc, l.seq desc limit ${window.limit} offset ${window.offset}`
          })(undefined).pipe(Effect.map((rows) => rows.map(linkOf))),
          total: countOf(sql`select count(*)::int as n from workspace_share_links l where ${where}`)
        }).pipe(Effect.orDie)
      },

      /** Whether there was a live link of the account to revoke. */
      revoke: (account: AccountId, id: string, now: Date): Effect.Effect<boolean> =>
        sql`delete from workspace_share_links
             where id = ${id}::uuid and account_id = ${account}::uuid and expires_at > ${now} returning id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      /** What a token opens while it is live. */
      resolve: (tokenHash: string, now: Date): Effect.Effect<Option.Option<SharedTarget>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: Schema.Struct({ account_id: AccountId, board_id: BoardId, expires_at: Schema.DateFromSelf }),
          execute: () => sql`
            select account_id::text as account_id, board_id::text as board_id, expires_at
              from workspace_share_links where token_hash = ${tokenHash} and expires_at > ${now}`
        })(undefined).pipe(
          Effect.map((rows) =>
            Option.map(Option.fromNullable(rows[0]), (r): SharedTarget => ({ accountId: r.account_id, boardId: r.board_id, expiresAt: r.expires_at }))
          ),
          Effect.orDie
        ),

      /**
       * Counts one view from `address` in the minute starting at `window`, and answers how many
       * that address made in it (this one included). One row per address, reset when its minute
       * is over; rows of addresses quiet for a minute are dropped as others come by.
       */
      view: (address: string, window: Date): Effect.Effect<number> =>
        SqlSchema.single({
          Request: Schema.Void,
          Result: Schema.Struct({ views: Schema.Int }),
          execute: () => sql`
            with stale as (
              delete from workspace_share_views where window_start < ${window} and address <> ${address}
            )
            insert into workspace_share_views as v (address, window_start, views) values (${address}, ${window}, 1)
            on conflict (address) do update
              set views = case when v.window_start = excluded.window_start then v.views + 1 else 1 end,
                  window_start = excluded.window_start
            returning v.views`
        })(undefined).pipe(Effect.map(({ views }) => views), Effect.orDie)
    }
  })
}) {}
