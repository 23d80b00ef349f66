import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { Preset, PresetFilters, PresetScope } from "./Api.js"

type Row = Record<string, any>

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

const presetOf = (r: Row): Preset => ({
  id: r.id,
  name: r.name,
  scope: r.scope,
  // Stored as `json`, read as text: the keys keep the order they were saved in.
  filters: JSON.parse(r.filters),
  created_at: new Date(r.created_at).toISOString(),
  updated_at: new Date(r.updated_at).toISOString()
})

/** The SQL of the filter presets: the `shop_presets` table, one row per account, scope and name. */
export class ShopPresetsRepo extends Effect.Service<ShopPresetsRepo>()("adintel/ShopPresetsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * Writes that may add a preset or take a name run one at a time per account, so the count
     * the cap is checked against and the names checked for a clash stay true until the write
     * (a transaction-scoped advisory lock). The unique index stays the last word.
     */
    const serialized = <A, E, R>(account: string, effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(
        Effect.zipRight(sql`select pg_advisory_xact_lock(hashtext('adintel.shop_presets'), hashtext(${account}))`, effect)
      )

    /** Whether another preset of the account has this name in this scope. */
    const taken = (account: string, scope: PresetScope, nameKey: string, except: string | null) =>
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
      find: (account: string, id: string): Effect.Effect<Option.Option<Preset>> =>
        sql<Row>`select ${sql.literal(columns)} from shop_presets where id = ${id}::uuid and account_id = ${account}::uuid`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), presetOf)),
          Effect.orDie
        ),

      save: (account: string, scope: PresetScope, input: PresetInput, now: Date, cap: number): Effect.Effect<Saved> =>
        serialized(
          account,
          Effect.gen(function*() {
            if (yield* taken(account, scope, input.nameKey, null)) return "taken" as const
            const [{ n }] = yield* sql<{ n: number }>`select count(*)::int as n from shop_presets where account_id = ${account}::uuid`
            if (n >= cap) return "full" as const
            const [row] = yield* sql<Row>`
              insert into shop_presets (account_id, scope, name, name_key, filters, created_at, updated_at)
              values (${account}::uuid, ${scope}, ${input.name}, ${input.nameKey}, ${JSON.stringify(input.filters)}::json, ${now}, ${now})
              returning ${sql.literal(columns)}`
            return presetOf(row!)
          })
        ).pipe(Effect.orDie),

      /** Renames and/or replaces the filters; the scope is the preset's own, never changed. */
      update: (
        account: string,
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
            const rows = yield* sql<Row>`
              update shop_presets set ${sql.csv(set)}
               where id = ${id}::uuid and account_id = ${account}::uuid and scope = ${scope}
              returning ${sql.literal(columns)}`
            return rows.length === 0 ? "missing" as const : presetOf(rows[0]!)
          })
        ).pipe(Effect.orDie),

      /** Whether there was such a preset to delete. */
      remove: (account: string, id: string): Effect.Effect<boolean> =>
        sql`delete from shop_presets where id = ${id}::uuid and account_id = ${account}::uuid returning id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      /** One P2 page, most recently updated first (of two written at one instant, the later write), and how many match. */
      page: (
        account: string,
        scope: PresetScope | undefined,
        window: { readonly limit: number; readonly offset: number }
      ): Effect.Effect<{ readonly presets: ReadonlyArray<Preset>; readonly total: number }> => {
        const where = sql.and([
          sql`account_id = ${account}::uuid`,
          ...(scope === undefined ? [] : [sql`scope = ${scope}`])
        ])
        return Effect.all({
          presets: sql<Row>`
            select ${sql.literal(columns)} from shop_presets
             where ${where}
             order by updated_at desc, write_seq desc
             limit ${window.limit} offset ${window.offset}`.pipe(Effect.map((rows) => rows.map(presetOf))),
          total: sql<Row>`select count(*)::int as total from shop_presets where ${where}`.pipe(
            Effect.map((rows) => rows[0]!.total as number)
          )
        }).pipe(Effect.orDie)
      }
    }
  })
}) {}
