import { describe, expect, it, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Database from "../src/platform/db/Database.js"
import { migrationId, migrations } from "../src/platform/db/migrations/index.js"
import { TestDatabase } from "./support/TestDatabase.js"

describe("migrations", () => {
  it("are listed with strictly increasing numbers, each named NNNN_words", () => {
    const names = Object.keys(migrations)
    for (const name of names) expect(name).toMatch(/^\d{4}_[a-z0-9_]+$/)
    const ids = names.map(migrationId)
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    expect(new Set(ids).size).toBe(ids.length)
  })

  layer(TestDatabase)((it) => {
    it.effect("a database that skipped one is refused with one sentence naming it, and nothing runs", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // As if 0050 had been added to the code after this database ran the later ones.
        yield* sql`delete from effect_sql_migrations where migration_id = 50`
        yield* sql`drop table lander_favorites`
        const error = yield* Effect.flip(Database.migrate)
        expect(error._tag).toBe("MigrationSkipped")
        const latest = Object.keys(migrations).at(-1)!
        expect(error.message).toBe(
          `This database never ran migration 0050_landers but already ran the later ${latest}, and migrations only ` +
            "run above the latest applied: restore a backup taken before that one, or apply " +
            "src/platform/db/migrations/0050_landers.ts by hand and record it in effect_sql_migrations, then start again."
        )
        const [{ present }] = yield* sql<{ present: boolean }>`select to_regclass('lander_favorites') is not null as present`
        expect(present).toBe(false)
        // Recorded again (as an operator would after applying it by hand): it migrates.
        yield* sql`insert into effect_sql_migrations (migration_id, name) values (50, 'landers')`
        yield* Database.migrate
      }))
  })
})
