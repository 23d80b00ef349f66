import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Redacted, Stream } from "effect"
import * as Database from "../src/platform/db/Database.js"
import { defaultLanes, Ingest, laneOf } from "../src/ingest/Ingest.js"
import { adLockSpace } from "../src/ingest/IngestRepo.js"
import { landers as fixtureLanders } from "./fixtures/world.js"
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

const rows = (text: string, params: ReadonlyArray<unknown> = []) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.orDie(sql.unsafe<Record<string, unknown>>(text, params)))

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

    it.effect("ads of many brands and landers are written in two lanes at once, and every lander's count is its ads'", () =>
      Effect.gen(function*() {
        const landers = Array.from({ length: 6 }, (_, i) => ({
          ...fixtureLanders[0], external_id: `lanes-lander-${i}`, url: `https://lanes.example/${i}`, domain: "lanes.example", store_external_id: null
        }))
        yield* ingestAll("landers", landers)
        yield* ingestAll("advertisers", Array.from({ length: 12 }, (_, i) => advertiser(`lanes-brand-${i}`, `Lanes ${i}`)))
        // 600 ads over 12 brands (both workers' shards) and 6 landers, in both lanes; imported
        // again, each moves to the next lander: both lanes move the same landers' counts.
        const adsOn = (shift: number) => Array.from({ length: 600 }, (_, i) =>
          adOf(`lanes-${i}`, i % 30, { advertiser_external_id: `lanes-brand-${i % 12}`, lander_external_id: `lanes-lander-${(i + shift) % 6}`, headline: `Lanes ${shift}` }))
        const laneOfAd = (ad: { library: string; external_id: string }) => laneOf(`${ad.library}/${ad.external_id}`, defaultLanes)
        const countOf = (ads: ReadonlyArray<{ external_id: string }>) =>
          rows(`select count(*)::int as n from ads where external_id = any($1::text[])`, [ads.map((ad) => ad.external_id)])
        const counts = rows(`
          select l.external_id, c.ads_count, coalesce(a.n, 0)::int as ads
            from landers l join lander_ad_counts c on c.lander_id = l.id
            left join (select lander_id, count(*) as n from ads group by lander_id) a on a.lander_id = l.id
           where l.domain = 'lanes.example' order by l.external_id`)
        // The lanes write at once: while one ad's lock (the one `adsBefore` takes) is held by
        // another transaction, its lane waits, and the other lane writes all of its ads.
        const first = adsOn(0)
        const stuck = first.filter((ad) => laneOfAd(ad) === laneOfAd(first[0]!))
        const free = first.filter((ad) => laneOfAd(ad) !== laneOfAd(first[0]!))
        const sql = yield* SqlClient.SqlClient
        const [held, release, freeWritten] = yield* Effect.all([Deferred.make<void>(), Deferred.make<void>(), Deferred.make<void>()])
        const holder = yield* Effect.fork(sql.withTransaction(
          sql`select pg_advisory_xact_lock(hashtextextended(${`social/${first[0]!.external_id}`}, ${adLockSpace}))`.pipe(
            Effect.zipRight(Deferred.succeed(held, undefined)),
            Effect.zipRight(Deferred.await(release))
          )
        ))
        yield* Deferred.await(held)
        const importing = yield* Effect.fork(Effect.flatMap(Ingest, (ingest) =>
          ingest.records("ads", Stream.fromIterable(first), (progress) =>
            progress.accepted >= free.length ? Deferred.succeed(freeWritten, undefined) : Effect.void)))
        yield* Deferred.await(freeWritten)
        expect([yield* countOf(free), yield* countOf(stuck)]).toEqual([[{ n: free.length }], [{ n: 0 }]])
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(holder)
        expect((yield* Fiber.join(importing)).rejected).toBe(0)
        yield* Effect.flatMap(Ingest, (ingest) => ingest.settled)
        expect(yield* counts).toEqual(landers.map((l) => ({ external_id: l.external_id, ads_count: 100, ads: 100 })))
        yield* ingestAll("ads", adsOn(1))
        expect(yield* counts).toEqual(landers.map((l) => ({ external_id: l.external_id, ads_count: 100, ads: 100 })))
        // Their shards are on both workers.
        const advertisers = (yield* rows(`select distinct advertiser_id::text as id from ads where external_id like 'lanes-%'`)).map((r) => r["id"])
        expect(yield* rows(`
          select count(distinct nodeport)::int as n from citus_shards
           where table_name = 'ads'::regclass
             and shardid in (select get_shard_id_for_distribution_column('ads', id) from unnest($1::bigint[]) id)`, [advertisers]))
          .toEqual([{ n: 2 }])
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
