import { SqlClient, SqlSchema } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import { ShopRecordId } from "../catalog/Entities.js"
import { type Favorite, FavoriteType } from "./Api.js"
import { countOf } from "../../platform/db/Rows.js"
import type { AccountId } from "../../kernel/Ids.js"

/** The row id of a catalog entity (a bigint as text): what a favorite refers to. */
export const EntityRowId = Schema.String.pipe(Schema.brand("EntityRowId"))
export type EntityRowId = typeof EntityRowId.Type

/** An entity a request named, found in the catalog. */
export interface EntityRow {
  readonly row: EntityRowId
  readonly externalId: ShopRecordId
  readonly region: string
}

const FoundRow = Schema.Struct({ row: EntityRowId, external_id: ShopRecordId, region: Schema.String })
const FavoriteRow = Schema.Struct({
  type: FavoriteType,
  id: Schema.String,
  region: Schema.String,
  name: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf
})

/** Where each type lives, and the favorites column that refers to it. */
const entities = {
  product: { table: "shop_products", name: "title", column: "product_id" },
  shop: { table: "shop_shops", name: "name", column: "shop_id" },
  creator: { table: "shop_creators", name: "handle", column: "creator_id" },
  video: { table: "shop_videos", name: "description", column: "video_id" },
  category: { table: "shop_categories", name: "name", column: "category_id" }
} as const satisfies Record<FavoriteType, { table: string; name: string; column: string }>

/** What an add did; `present` (already a favorite) and `full` (at the cap) wrote nothing. */
export type Added = "added" | "present" | "full"

/** The SQL of the favorites: the `shop_favorites` table, keyed by account, type and entity row. */
export class ShopFavoritesRepo extends Effect.Service<ShopFavoritesRepo>()("adintel/ShopFavoritesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** How many favorites match `where` (over `shop_favorites f`). */
    const count = (where: Fragment) =>
      countOf(sql`select count(*)::int as n from shop_favorites f where ${where}`)

    const isFavorite = (account: AccountId, type: FavoriteType, row: EntityRowId) =>
      sql`select 1 from shop_favorites
           where account_id = ${account}::uuid and entity_type = ${type} and entity_id = ${row}::bigint`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    const insert = (account: AccountId, type: FavoriteType, row: EntityRowId, now: Date) =>
      sql`insert into shop_favorites (account_id, entity_type, ${sql(entities[type].column)}, created_at)
          values (${account}::uuid, ${type}, ${row}::bigint, ${now})
          on conflict do nothing`

    const remove = (account: AccountId, type: FavoriteType, row: EntityRowId) =>
      sql`delete from shop_favorites
           where account_id = ${account}::uuid and entity_type = ${type} and entity_id = ${row}::bigint`

    /**
     * Writes that may grow an account's favorites run one at a time per account, so the count
     * the cap is checked against stays true until the insert (a transaction-scoped advisory lock).
     */
    const serialized = <A, E, R>(account: AccountId, effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(
        Effect.zipRight(sql`select pg_advisory_xact_lock(hashtext('adintel.shop_favorites'), hashtext(${account}))`, effect)
      )

    /** Adds under the lock; `present` and `full` write nothing. */
    const addLocked = (account: AccountId, type: FavoriteType, row: EntityRowId, now: Date, cap: number) =>
      Effect.gen(function*() {
        if (yield* isFavorite(account, type, row)) return "present" as const
        if ((yield* count(sql`f.account_id = ${account}::uuid`)) >= cap) return "full" as const
        yield* insert(account, type, row, now)
        return "added" as const
      })

    return {
      /** The entities of a type with these ids, in `region` when given (one row per region it exists in). */
      find: (type: FavoriteType, ids: ReadonlyArray<string>, region: string | undefined): Effect.Effect<ReadonlyArray<EntityRow>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: FoundRow,
          execute: () => sql`
            select id::text as row, external_id, region from ${sql(entities[type].table)}
             where ${sql.and([sql.in("external_id", ids), ...(region === undefined ? [] : [sql`region = ${region}`])])}
             order by external_id, region`
        })(undefined).pipe(
          Effect.map((rows) => rows.map((r): EntityRow => ({ row: r.row, externalId: r.external_id, region: r.region }))),
          Effect.orDie
        ),

      /** Of these entity rows, those the account has favorited. */
      favorited: (account: AccountId, type: FavoriteType, rows: ReadonlyArray<EntityRowId>): Effect.Effect<ReadonlySet<EntityRowId>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: Schema.Struct({ row: EntityRowId }),
          execute: () => sql`
            select entity_id::text as row from shop_favorites
             where account_id = ${account}::uuid and entity_type = ${type} and ${sql.in("entity_id", rows)}`
        })(undefined).pipe(
          Effect.map((found) => new Set(found.map((r) => r.row))),
          Effect.orDie
        ),

      add: (account: AccountId, type: FavoriteType, row: EntityRowId, now: Date, cap: number): Effect.Effect<Added> =>
        serialized(account, addLocked(account, type, row, now, cap)).pipe(Effect.orDie),

      /** Removes when present, else adds (within the cap); the state afterwards, or `full`. */
      toggle: (account: AccountId, type: FavoriteType, row: EntityRowId, now: Date, cap: number): Effect.Effect<Added | "removed"> =>
        serialized(
          account,
          Effect.flatMap(isFavorite(account, type, row), (present) =>
            present ? Effect.as(remove(account, type, row), "removed" as const) : addLocked(account, type, row, now, cap))
        ).pipe(Effect.orDie),

      remove: (account: AccountId, type: FavoriteType, row: EntityRowId): Effect.Effect<void> =>
        remove(account, type, row).pipe(Effect.asVoid, Effect.orDie),

      /** One P2 page, newest first (then the later of two made at once), and how many match. */
      page: (
        account: AccountId,
        type: FavoriteType | undefined,
        window: { readonly limit: number; readonly offset: number }
      ): Effect.Effect<{ readonly favorites: ReadonlyArray<Favorite>; readonly total: number }> => {
        const where = sql.and([
          sql`f.account_id = ${account}::uuid`,
          ...(type === undefined ? [] : [sql`f.entity_type = ${type}`])
        ])
        return Effect.all({
          favorites: SqlSchema.findAll({
            Request: Schema.Void,
            Result: FavoriteRow,
            execute: () => sql`
              select f.entity_type as type,
                     coalesce(p.external_id, s.external_id, c.external_id, v.external_id, k.external_id) as id,
                     coalesce(p.region, s.region, c.region, v.region, k.region) as region,
                     case f.entity_type
                       when 'product' then p.title when 'shop' then s.name when 'creator' then c.handle
                       when 'video' then v.description when 'category' then k.name
                     end as name,
                     f.created_at
                from shop_favorites f
                left join shop_products p on p.id = f.product_id
                left join shop_shops s on s.id = f.shop_id
                left join shop_creators c on c.id = f.creator_id
                left join shop_videos v on v.id = f.video_id
                left join shop_categories k on k.id = f.category_id
               where ${where}
               order by f.created_at desc, f.seq desc
               limit ${window.limit} offset ${window.offset}`
          })(undefined).pipe(
            Effect.map((rows) =>
              rows.map((r): Favorite => ({ type: r.type, id: r.id, region: r.region, name: r.name, favorited_at: r.created_at.toISOString() }))
            )
          ),
          total: count(where)
        }).pipe(Effect.orDie)
      }
    }
  })
}) {}
