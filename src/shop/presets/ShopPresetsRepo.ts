import { SqlClient, SqlSchema } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import { type Preset, type PresetFilters, PresetFilterValues, PresetScope } from "./Api.js"
import { countOf } from "../../platform/db/Rows.js"
import type { AccountId } from "../../kernel/Ids.js"

/** A preset as written: its name, the key its uniqueness is checked on, its checked filters. */
export interface PresetInput {
  readonly name: string
  /** The name folded for comparison: two names with the same key are the same name. */
  readonly nameKey: string
  readonly filters: PresetFilters
}

/** What a save did; `taken` (the name is used in that scope) and `full` (at the cap) wrote nothing. */
export type Saved = Preset | "taken" | "full"
/** What an update did; `missing` and `taken` wrote nothing. */
export type Updated = Preset | "missing" | "taken"

const columns = "id::text as id, name, scope, filters::text as filters, created_at, updated_at"

/** A preset's row: `filters` is stored as `json` and read as text, so its keys keep the order they were saved in. */
const PresetRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  scope: PresetScope,
  filters: Schema.parseJson(PresetFilterValues),
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf
})

const presetOf = (r: typeof PresetRow.Type): Preset => ({
  ...r,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString()
})

/** The presets a statement answers. */
const presetsOf = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
  Effect.map(SqlSchema.findAll({ Request: Schema.Void, Result: PresetRow, execute: () => statement })(undefined), (rows) => rows.map(presetOf))

/** The SQL of the filter presets: the `shop_presets` table, one row per account, scope and name. */
export class ShopPresetsRepo extends Effect.Service<ShopPresetsRepo>()("adintel/ShopPresetsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * Writes that may add a preset or take a name run one at a time per account, so the count
     * the cap is checked against and the names checked for a clash stay true until the write
     * (a transaction-scoped advisory lock). The unique index stays the last word.
     */
    const serialized = <A, E, R>(account: AccountId, effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(
        Effect.zipRight(sql`select pg_advisory_xact_lock(hashtext('adintel.shop_presets'), hashtext(${account}))`, effect)
      )

    /** How many presets match `where`. */
    const count = (where: Fragment) =>
      countOf(sql`select count(*)::int as n from shop_presets where ${where}`)

    /** Whether another preset of the account has this name in this scope. */
    const taken = (account: AccountId, scope: PresetScope, nameKey: string, except: string | null) =>
      sql`select 1 from shop_presets where ${
        sql.and([
          sql`account_id = ${account}::uuid`,
          sql`scope = ${scope}`,
          sql`name_key = ${nameKey}`,
          ...(except === null ? [] : [sql`id <> ${except}::uuid`])
        ])
      }`.pipe(Effect.map((rows) => rows.length > 0))

    return {
      /** The account's preset with this id. */
      find: (account: AccountId, id: string): Effect.Effect<Option.Option<Preset>> =>
        presetsOf(sql`select ${sql.literal(columns)} from shop_presets where id = ${id}::uuid and account_id = ${account}::uuid`).pipe(
          Effect.map((presets) => Option.fromNullable(presets[0])),
          Effect.orDie
        ),

      save: (account: AccountId, scope: PresetScope, input: PresetInput, now: Date, cap: number): Effect.Effect<Saved> =>
        serialized(
          account,
          Effect.gen(function*() {
            if (yield* taken(account, scope, input.nameKey, null)) return "taken" as const
            if ((yield* count(sql`account_id = ${account}::uuid`)) >= cap) return "full" as const
            const [saved] = yield* presetsOf(sql`
              insert into shop_presets (account_id, scope, name, name_key, filters, created_at, updated_at)
              values (${account}::uuid, ${scope}, ${input.name}, ${input.nameKey}, ${JSON.stringify(input.filters)}::json, ${now}, ${now})
              returning ${sql.literal(columns)}`)
            return saved!
          })
        ).pipe(Effect.orDie),

      /** Renames and/or replaces the filters; the scope is the preset's own, never changed. */
      update: (
        account: AccountId,
        id: string,
        scope: PresetScope,
        changes: Partial<PresetInput>,
        now: Date
      ): Effect.Effect<Updated> =>
        serialized(
          account,
          Effect.gen(function*() {
            if (changes.nameKey !== undefined && (yield* taken(account, scope, changes.nameKey, id))) return "taken" as const
            const set = [
              ...(changes.name === undefined ? [] : [sql`name = ${changes.name}`, sql`name_key = ${changes.nameKey!}`]),
              ...(changes.filters === undefined ? [] : [sql`filters = ${JSON.stringify(changes.filters)}::json`]),
              sql`updated_at = ${now}`,
              sql`write_seq = nextval('shop_presets_write_seq')`
            ]
            const [updated] = yield* presetsOf(sql`
              update shop_presets set ${sql.csv(set)}
               where id = ${id}::uuid and account_id = ${account}::uuid and scope = ${scope}
              returning ${sql.literal(columns)}`)
            return updated ?? ("missing" as const)
          })
        ).pipe(Effect.orDie),

      /** Whether there was such a preset to delete. */
      remove: (account: AccountId, id: string): Effect.Effect<boolean> =>
        sql`delete from shop_presets where id = ${id}::uuid and account_id = ${account}::uuid returning id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      /** One P2 page, most recently updated first (of two written at one instant, the later write), and how many match. */
      page: (
        account: AccountId,
        scope: PresetScope | undefined,
        window: { readonly limit: number; readonly offset: number }
      ): Effect.Effect<{ readonly presets: ReadonlyArray<Preset>; readonly total: number }> => {
        const where = sql.and([
          sql`account_id = ${account}::uuid`,
          ...(scope === undefined ? [] : [sql`scope = ${scope}`])
        ])
        return Effect.all({
          presets: presetsOf(sql`
            select ${sql.literal(columns)} from shop_presets
             where ${where}
             order by updated_at desc, write_seq desc
             limit ${window.limit} offset ${window.offset}`),
          total: count(where)
        }).pipe(Effect.orDie)
      }
    }
  })
}) {}
