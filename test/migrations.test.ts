import { describe, expect, it, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Database from "../src/platform/db/Database.js"
import webhookUrlOnce from "../src/platform/db/migrations/0104_webhook_url_once_account_pace.js"
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

    it.effect("0104 (one webhook URL per account) over endpoints registered twice before it: stored forms, the oldest kept with every event type, the rest disabled", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // As before 0104 (run by itself below: the Migrator would not run it again, whatever came after it).
        yield* sql`drop index webhook_endpoints_url_once`
        yield* sql`drop table webhook_account_starts`
        const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 0, minute))
        const [{ id: owner }] = yield* sql<{ id: string }>`
          insert into accounts (email, plan, created_at) values ('dup@example.com', 'basic', ${at(0)}) returning id::text`
        const [{ id: other }] = yield* sql<{ id: string }>`
          insert into accounts (email, plan, created_at) values ('other@example.com', 'basic', ${at(0)}) returning id::text`
        const endpoint = (account: string, url: string, events: ReadonlyArray<string>, minute: number, enabled = true) =>
          sql`insert into webhook_endpoints (account_id, url, events, enabled, secret, created_at)
              values (${account}::uuid, ${url}, ${events}::text[], ${enabled}, ${new Uint8Array([1])}, ${at(minute)})`
        yield* endpoint(owner, "https://Hooks.example.com:443/in#a", ["brand.ads_new"], 1)
        yield* endpoint(owner, "https://hooks.example.com/in", ["credits.threshold", "brand.ads_new"], 2)
        yield* endpoint(owner, "https://hooks.example.com/in#b", ["webhook.test"], 3)
        yield* endpoint(owner, "https://hooks.example.com/in", ["api_key.regenerated"], 4, false)
        yield* endpoint(owner, "https://hooks.example.com", ["brand.ads_new"], 5)
        yield* endpoint(other, "https://hooks.example.com/in", ["brand.ads_new"], 6)
        yield* webhookUrlOnce
        const rows = yield* sql<{ account: string; url: string; events: ReadonlyArray<string>; enabled: boolean }>`
          select case when account_id = ${owner}::uuid then 'owner' else 'other' end as account, url, events, enabled
            from webhook_endpoints where account_id in (${owner}::uuid, ${other}::uuid) order by created_at`
        expect(rows).toEqual([
          { account: "owner", url: "https://hooks.example.com/in", events: ["brand.ads_new", "credits.threshold", "webhook.test"], enabled: true },
          { account: "owner", url: "https://hooks.example.com/in", events: ["credits.threshold", "brand.ads_new"], enabled: false },
          { account: "owner", url: "https://hooks.example.com/in", events: ["webhook.test"], enabled: false },
          { account: "owner", url: "https://hooks.example.com/in", events: ["api_key.regenerated"], enabled: false },
          { account: "owner", url: "https://hooks.example.com/", events: ["brand.ads_new"], enabled: true },
          { account: "other", url: "https://hooks.example.com/in", events: ["brand.ads_new"], enabled: true }
        ])
        // The database refuses another.
        const again = yield* Effect.flip(endpoint(owner, "https://hooks.example.com/in", ["brand.ads_new"], 7))
        expect(Database.sqlStateOf(again)).toBe("23505")
      }))
  })
})
