import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { tabNames } from "../src/ads/brandInsights/Tabs.js"
import { SimilarityRepo } from "../src/ads/library/SimilarityRepo.js"
import { flagship } from "../src/demo/FlagshipBrand.js"
import { databaseMode, describeMode } from "../src/platform/db/mode/DatabaseMode.js"
import { loadedSmallWorldServer, recordsOf } from "./support/AdWorld.js"
import { citusInstalled, stopNode } from "./support/CitusCluster.js"
import { clusterServer, Nodes } from "./support/CitusWorld.js"
import { clientFor } from "./support/RpcCalls.js"
import { account, balanceOf, call, keyHeader } from "./support/TestServer.js"

/**
 * The small world on a Citus coordinator and two workers (issue 45): the service detects the
 * cluster, distributes the corpus as docs/SCALING.md plans, and its research routes give the
 * same answers as on one PostgreSQL (`comparable`); a brand's tabs run on one shard and a keyword
 * search on every shard, each shard's top rows merged on the coordinator.
 */


const json = (key: string, body: unknown): RequestInit => ({
  method: "POST",
  headers: { "X-API-Key": key, "content-type": "application/json" },
  body: JSON.stringify(body)
})

const ads = recordsOf("ads")
/** A word of a headline of the world: a keyword search with matches. */
const word = String(ads.find((ad) => typeof ad.headline === "string" && ad.headline.length > 0)!.headline).split(/\W+/).find((w) => w.length > 4)!

/** Research calls over every family that reads the corpus. */
const researchCalls = (key: string): ReadonlyArray<readonly [string, RequestInit]> => [
  ["/api/v1/adlibrary?limit=50", keyHeader(key)],
  [`/api/v1/adlibrary?q=${word}&limit=50`, keyHeader(key)],
  [`/api/v1/adlibrary?q=${word}&sort=relevance&limit=20`, keyHeader(key)],
  ["/api/v1/adlibrary?country=US&format=video&limit=30", keyHeader(key)],
  ["/api/v1/clipapp-ads?limit=20", keyHeader(key)],
  ["/api/v1/pinboard-ads?limit=20", keyHeader(key)],
  ["/api/v1/search-ads?limit=20", keyHeader(key)],
  // An ad's detail: one with variants, one without.
  ...[ads.find((ad) => ad.library === "clipapp" && ad.variant_group !== null), ads.find((ad) => ad.library === "clipapp" && ad.variant_group === null)]
    .map((ad): readonly [string, RequestInit] => [`/api/v1/clipapp-ads/${ad!.external_id}`, keyHeader(key)]),
  ["/api/v1/magic-ai", json(key, { text: "Tired of dull skin? This serum brightens in 7 days.", limit: 10 })],
  [`/api/v1/brands/ads?id=${flagship.id}`, keyHeader(key)],
  ...tabNames.map((tab): readonly [string, RequestInit] => [`/api/v1/brands/${tab}?id=${flagship.id}`, keyHeader(key)]),
  ["/api/v1/landers/explore", json(key, { q: "serum" })],
  ["/api/v1/landers/explore", json(key, { sort: "most_ads", page_size: 50 })],
  ["/api/v1/store-explorer", json(key, {})],
  [`/api/v1/adlibrary/export?q=${word}`, keyHeader(key)],
  ["/api/v1/clipapp-ads/export?format=csv", keyHeader(key)],
  ["/api/v1/trends/topics", json(key, { window_days: 90 })],
  ["/api/v1/trends/hooks", json(key, { window_days: 30 })]
]

/**
 * A body as both databases must agree on it. Two things name row ids, which follow the order an
 * import wrote the ads in (one lane on Citus, two on one PostgreSQL), not the ads: a scroll
 * token (its cursor's last id; left out here) and the order of ads tied on similarity (by id;
 * sorted here by similarity, then external id). The media URLs name each test server's own
 * address.
 */
const comparable = (raw: string) => {
  const body = raw.replace(/http:\/\/127\.0\.0\.1:\d+\//g, "http://server/")
  // An export is a file (NDJSON or CSV), compared as it is.
  if (!body.startsWith("{\"success\"")) return body
  return JSON.stringify(JSON.parse(body), (key, value) =>
    key === "scroll_token"
      ? undefined
      : key === "data" && Array.isArray(value) && value.every((row) => typeof row?.similarity === "number")
      ? [...value].sort((x, y) => y.similarity - x.similarity || String(x.id).localeCompare(String(y.id)))
      : value)
}

/** Every research call's status and body, in order, as a fresh account sees them. */
const answers = Effect.gen(function*() {
  const { api_key } = yield* account({ plan: "pro" })
  const out: Array<readonly [string, number, string]> = []
  for (const [path, init] of researchCalls(api_key)) {
    const answer = yield* call(path, init)
    out.push([path, answer.status, comparable(answer.body)])
  }
  return out
})

const rows = (text: string) => Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.orDie(sql.unsafe<Record<string, unknown>>(text)))
const plan = (text: string) => Effect.map(rows(`explain ${text}`), (lines) => lines.map((line) => line["QUERY PLAN"]).join("\n"))

describe.skipIf(!citusInstalled())("the corpus on a Citus cluster (issue 45)", () => {
  layer(clusterServer(true), { timeout: 300_000 })((it) => {
    it.effect("the service finds a coordinator with two workers, and the corpus distributed as planned", () =>
      Effect.gen(function*() {
        const mode = yield* databaseMode
        expect(mode).toEqual({ _tag: "Citus", workers: 2 })
        expect(describeMode(mode)).toBe("Database: Citus coordinator, 2 workers holding shards")
        const layout = yield* rows(`
          select logicalrelid::text as table, partmethod as method, coalesce(column_to_column_name(logicalrelid, partkey), '') as by
            from pg_dist_partition order by partmethod, logicalrelid::text`)
        expect(layout).toEqual([
          ...["ad_creatives", "ad_embeddings", "ads", "brand_ad_signals", "brand_ad_stops"].map((table) => ({ table, method: "h", by: "advertiser_id" })),
          ...["advertisers", "lander_ad_counts", "lander_facets", "landers", "store_daily", "store_product_daily", "store_product_images", "store_products", "stores"]
            .map((table) => ({ table, method: "n", by: "" }))
        ])
        // Every ad of the world is there, spread over both workers.
        const held = yield* rows(`
          select s.nodeport, sum(r.result::bigint)::int as n
            from run_command_on_shards('ads', 'select count(*) from %s') r join citus_shards s on s.shardid = r.shardid
           group by s.nodeport`)
        expect(held).toHaveLength(2)
        expect(held.reduce((sum, row) => sum + Number(row["n"]), 0)).toBe(ads.length)
      }))

    it.effect("every research route answers as on one PostgreSQL", () =>
      Effect.gen(function*() {
        const onCluster = yield* answers
        const onOne = yield* Effect.scoped(Effect.flatMap(Layer.build(loadedSmallWorldServer()), (context) => Effect.provide(answers, context)))
        expect(onCluster.map(([path, status]) => [path, status])).toEqual(onCluster.map(([path]) => [path, 200]))
        expect(onCluster).toEqual(onOne)
      }))

    it.effect("EXPLAIN: a brand's ads are read on one shard; a keyword search on every shard, its top rows merged", () =>
      Effect.gen(function*() {
        const [advertiser] = yield* rows(`select id::text from advertisers where platform = 'social' and external_id = '${flagship.id}'`)
        const brand = yield* plan(`
          select a.id from ads a join advertisers v on v.id = a.advertiser_id
           where a.advertiser_id = ${String(advertiser!["id"])} order by a.first_seen desc limit 50`)
        expect(brand).toContain("Task Count: 1")
        const keyword = yield* plan(`
          select a.id from ads a where a.search_vector @@ websearch_to_tsquery('english', '${word}')
           order by a.first_seen desc, a.id desc limit 50`)
        expect(keyword).toMatch(/Task Count: 32/)
        expect(keyword).toMatch(/Limit[\s\S]*Custom Scan \(Citus Adaptive\)[\s\S]*Limit/)
      }))

    it.effect("magic-ai reads the shards' planner statistics: the ads' count, and the share of ads a common word is in", () =>
      Effect.gen(function*() {
        yield* rows("analyze ads")
        const repo = yield* SimilarityRepo
        // Small shards are analyzed whole: their counts are exact.
        expect(yield* repo.estimatedAds).toBe(ads.length)
        // The world's most common word, and the share of ads it is in.
        const [common] = yield* rows(`
          select w.lexeme, count(*)::int as n
            from ads a cross join lateral unnest(tsvector_to_array(a.search_vector)) as w(lexeme)
           group by w.lexeme order by count(*) desc, w.lexeme limit 1`)
        const share = Number(common!["n"]) / ads.length
        const [found] = (yield* repo.lexemes(String(common!["lexeme"]))).filter((l) => l.lexeme === common!["lexeme"])
        // The shards' shares weighted by their ads: the whole corpus's, within what sampling moves.
        expect(found!.freq).toBeGreaterThan(share * 0.67)
        expect(found!.freq).toBeLessThan(Math.min(1, share * 1.5))
      }).pipe(Effect.provide(SimilarityRepo.Default)))

    // Last: it stops a worker (started again at its end, on another port).
    it.scoped("a worker stopped: the calls that need it answer 503 with their credit back, the others answer; started again, all answer", () =>
      Effect.gen(function*() {
        const cluster = yield* Nodes
        const { api_key, id } = yield* account({ plan: "pro" })
        const stopped = Number(new URL(cluster.workers[0]!.adminUrl).port)
        // A brand whose ads are all on the other worker: its pages need only that one.
        const nodeOf = new Map((yield* rows(`select shardid::text as shard, nodeport from citus_shards where table_name = 'ads'::regclass`))
          .map((row) => [String(row["shard"]), Number(row["nodeport"])]))
        const advertised = new Set((yield* rows(`select distinct advertiser_id::text as id from ads`)).map((row) => String(row["id"])))
        const brands = yield* rows(`
          select id::text as id, external_id, get_shard_id_for_distribution_column('ads', id)::text as shard
            from advertisers where platform = 'social' order by external_id`)
        const elsewhere = brands.find((brand) => advertised.has(String(brand["id"])) && nodeOf.get(String(brand["shard"])) !== stopped)!
        const brandAds = `/api/v1/brands/ads?id=${String(elsewhere["external_id"])}`
        const search = `/api/v1/adlibrary?q=${word}&limit=20`
        expect((yield* call(search, keyHeader(api_key))).status).toBe(200)
        yield* stopNode(cluster.workers[0]!)
        const before = yield* balanceOf(id)
        const refused = yield* call(search, keyHeader(api_key))
        expect({ status: refused.status, body: refused.body }).toEqual({
          status: 503,
          body: JSON.stringify({ success: false, error: "Part of the ad corpus is unavailable: one of its database servers did not answer. Try again shortly" })
        })
        // Over RPC, the same failure, typed; over MCP, a refusal with its message (M1). Neither costs a credit.
        const rpc = yield* Effect.either((yield* clientFor(api_key)).SearchSocialAds({ q: word, limit: 20 }))
        expect(Either.isLeft(rpc) && rpc.left._tag).toBe("CorpusUnavailable")
        const mcp = yield* call("/mcp", {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-api-key": api_key },
          body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "search_social_ads", arguments: { q: word, limit: 20 } } })
        })
        const result = JSON.parse(mcp.body).result
        expect({ isError: result.isError, text: result.content[0].text }).toEqual({
          isError: true,
          text: "Part of the ad corpus is unavailable: one of its database servers did not answer. Try again shortly"
        })
        expect(yield* balanceOf(id)).toEqual(before)
        // What needs only the other worker, or only the coordinator, still answers.
        expect((yield* call(brandAds, keyHeader(api_key))).status).toBe(200)
        expect((yield* call("/api/v1/credits", keyHeader(api_key))).status).toBe(200)
        yield* cluster.restartWorker(0)
        expect((yield* call(search, keyHeader(api_key))).status).toBe(200)
      }), 120_000)
  })
})
