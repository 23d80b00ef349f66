import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Database from "../src/platform/db/Database.js"
import { ingestAll } from "./support/AdWorld.js"
import { adMovesToAnotherAdvertiser } from "./support/AdMoves.js"
import { advertiser, ingestBrands } from "./support/BrandWorld.js"
import { citusInstalled } from "./support/CitusCluster.js"
import { clusterServer, Nodes } from "./support/CitusWorld.js"
import { withAdmin } from "./support/RunDatabases.js"
import { adOf, allIds, create, prefix } from "./support/SavedSearchWorld.js"
import { account } from "./support/TestServer.js"

/**
 * Writes on a Citus coordinator and two workers (issue 45; the reads are citusSameAnswers.test.ts):
 * a database moved onto a coordinator, an ad that moves to another advertiser, an import large
 * enough to analyze what it grew, and a saved search matched by an import.
 */

/** `migrate`, as the service runs it at start, on a database of a node. */
const migrateOn = (url: string) => Database.migrate.pipe(Effect.provide(Database.clientLayer(Redacted.make(url))), Effect.orDie, Effect.scoped)

const rows = (text: string) => Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.orDie(sql.unsafe<Record<string, unknown>>(text)))

describe.skipIf(!citusInstalled())("imports and schema on a Citus cluster (issue 45)", () => {
  layer(clusterServer(false), { timeout: 300_000 })((it) => {
    it.effect("a database migrated on one PostgreSQL, then made a coordinator, is distributed at its next start with its ads", () =>
      Effect.gen(function*() {
        const { coordinator, workers } = yield* Nodes
        const password = decodeURIComponent(new URL(coordinator.adminUrl).password)
        for (const node of [coordinator, ...workers]) yield* withAdmin(node.adminUrl, (client) => client.query("create database moved"))
        const moved = coordinator.urlFor("moved")
        // One PostgreSQL: no Citus in the database; the migrations run; an advertiser and two ads.
        yield* migrateOn(moved)
        yield* withAdmin(moved, async (client) => {
          await client.query(`insert into advertisers (platform, external_id, name, fetched_at, source, method, content_hash)
                              values ('social', 'b1', 'B', now(), 'test', 'manual', 'h')`)
          await client.query(`insert into ads (library, external_id, advertiser_id, status, first_seen, last_seen, days_running, format,
                                               search_vector, fetched_at, source, method, content_hash)
                              select 'social', 'ad-' || n, (select id from advertisers), 'active', now(), now(), 0, 'image', ''::tsvector,
                                     now(), 'test', 'manual', 'h'
                                from generate_series(1, 2) n`)
        })
        expect((yield* withAdmin(moved, (client) => client.query("select count(*)::int as n from ads"))).rows).toEqual([{ n: 2 }])
        // Made a coordinator by its operator: the extension on every node, the nodes' password, the workers added.
        for (const node of [coordinator, ...workers]) {
          yield* withAdmin(node.urlFor("moved"), async (client) => {
            await client.query("create extension citus")
            await client.query("insert into pg_dist_authinfo (nodeid, rolename, authinfo) values (0, 'postgres', $1)", [`password=${password}`])
          })
        }
        yield* withAdmin(moved, async (client) => {
          await client.query("select citus_set_coordinator_host('127.0.0.1', $1)", [Number(new URL(coordinator.adminUrl).port)])
          for (const worker of workers) await client.query("select citus_add_node('127.0.0.1', $1)", [Number(new URL(worker.adminUrl).port)])
        })
        // Its next start: distributed, its ads on the workers' shards, new ads numbered after them.
        yield* migrateOn(moved)
        const after = yield* withAdmin(moved, async (client) => ({
          ads: (await client.query(`select count(*)::int as n from pg_dist_partition where logicalrelid = 'ads'::regclass and partmethod = 'h'`)).rows,
          held: (await client.query(`select sum(result::int)::int as n from run_command_on_shards('ads', 'select count(*) from %s')`)).rows,
          before: Number((await client.query(`select max(id)::text as id from ads`)).rows[0].id),
          next: Number((await client.query(`insert into ads (library, external_id, advertiser_id, status, first_seen, last_seen, days_running, format,
                                                      search_vector, fetched_at, source, method, content_hash)
                                     select 'social', 'ad-3', id, 'active', now(), now(), 0, 'image', ''::tsvector, now(), 'test', 'manual', 'h'
                                       from advertisers returning id::text`)).rows[0].id)
        }))
        expect({ ...after, later: after.next > after.before }).toMatchObject({ ads: [{ n: 1 }], held: [{ n: 2 }], later: true })
      }))

    it.effect("an ad imported again under another advertiser moves to that brand's shard, one row under its own id", () => adMovesToAnotherAdvertiser)

    it.effect("an import of over a thousand ads, which then analyzes the tables it grew, runs on the cluster", () =>
      Effect.gen(function*() {
        const many = Array.from({ length: 1_001 }, (_, i) => ({
          id: `bulk-${i}`, brand: "bulk-brand", firstDaysAgo: 1 + (i % 30), lastDaysAgo: 0, status: "active", format: "image", domain: "bulk.example"
        } as const))
        yield* ingestBrands([advertiser("bulk-brand", "Bulk")], many)
        expect(yield* rows(`select count(*)::int as n from ads where external_id like 'bulk-%'`)).toEqual([{ n: 1_001 }])
      }))

    it.effect("a saved search is matched by the ads an import brings, and lists them, on the cluster", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "pro" })
        const created = yield* create(api_key, { name: "Zanzibarite", library: "social", filters: { q: "zanzibarite" } })
        expect(created.status).toBe(200)
        yield* ingestAll("advertisers", [advertiser("saved-brand", "Saved Brand")])
        yield* ingestAll("ads", [adOf("zanzi-1", 3, { advertiser_external_id: "saved-brand", headline: "Zanzibarite lamps" }), adOf("other-1", 4, { advertiser_external_id: "saved-brand" })])
        expect(yield* allIds(api_key, `${prefix}/${created.json.saved_search.id}/matches`, {})).toEqual(["zanzi-1"])
      }))
  })
})
