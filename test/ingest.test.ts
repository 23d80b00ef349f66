import { SavedSearches } from "../src/ads/savedSearches/SavedSearches.js"
import { ImportEvents } from "../src/access/events/ImportEvents.js"
import { BrandDiffs } from "../src/ads/brands/BrandDiffs.js"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Exit, Layer, Stream } from "effect"
import { TrendCounts } from "../src/ads/trends/TrendCounts.js"
import { IngestRepo } from "../src/ingest/IngestRepo.js"
import { boundedLines, Ingest, maxLineLength, maxReportedErrors } from "../src/ingest/Ingest.js"
import * as World from "./fixtures/world.js"
import { TestDatabase } from "./support/TestDatabase.js"

type EntityName = Parameters<Ingest["lines"]>[0]

const bytes = (text: string) => new TextEncoder().encode(text)
const load = (entity: EntityName, text: string | Uint8Array) =>
  Effect.flatMap(Ingest, (ingest) => ingest.lines(entity, Stream.make(typeof text === "string" ? bytes(text) : text)))

const loadWorld = Effect.gen(function*() {
  yield* load("stores", World.ndjson(World.stores))
  yield* load("landers", World.ndjson(World.landers))
  yield* load("advertisers", World.ndjson(World.advertisers))
  yield* load("shop-categories", World.ndjson(World.categories))
  yield* load("shop-shops", World.ndjson(World.shops))
  yield* load("shop-creators", World.ndjson(World.creators))
  yield* load("shop-products", World.ndjson(World.products))
})

const count = (table: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`select count(*)::int as n from ${sql(table)}`).pipe(
    Effect.map((rows) => rows[0]!.n),
    Effect.orDie
  )

describe("boundedLines", () => {
  const lines = (...chunks: Array<string>) =>
    Effect.runSync(Stream.runCollect(boundedLines(10)(Stream.fromIterable(chunks.map(bytes))))).pipe(Array.from)

  it("splits across chunk boundaries, strips CR, keeps a last line without newline", () => {
    expect(lines("ab", "c\nde\r\n", "", "\nf")).toEqual(["abc", "de", "", "f"])
    expect(lines("a\n")).toEqual(["a"])
  })

  it("decodes each line as UTF-8 on its own: a character split across chunks is whole, a line that is not UTF-8 is marked", () => {
    const split = bytes("é\n")
    const chunks = [split.subarray(0, 1), split.subarray(1), Uint8Array.of(0x61, 0xff, 0x0a), bytes("ok\n")]
    const out = Effect.runSync(Stream.runCollect(boundedLines(10)(Stream.fromIterable(chunks)))).pipe(Array.from)
    expect(out[0]).toBe("é")
    expect(typeof out[1]).toBe("symbol")
    expect(out[2]).toBe("ok")
    // The limit counts bytes: five two-byte characters fill it.
    expect(lines("ééééé\néééééé\n").map((line) => typeof line)).toEqual(["string", "symbol"])
  })

  it("drops an over-long line as it streams, and goes on after it", () => {
    const out = lines("0123456789", "X", "YZ\nok\n", "012345678901234")
    expect(out.length).toBe(3)
    expect(typeof out[0]).toBe("symbol")
    expect(out[1]).toBe("ok")
    expect(typeof out[2]).toBe("symbol")
  })
})

describe("ingestion", () => {
  // The records ads, videos and metrics refer to, loaded as the layer is built.
  layer(Layer.effectDiscard(loadWorld).pipe(Layer.provideMerge(Ingest.Default), Layer.provideMerge(TestDatabase)))((it) => {
    it.effect("loads a linked world of every entity", () =>
      Effect.gen(function*() {
        const ok = { accepted: 1, rejected: 0, errors: [] }
        expect(yield* load("ads", World.ndjson([World.ad("ad-1"), World.ad("ad-2")]))).toEqual({ ...ok, accepted: 2 })
        expect(yield* load("shop-videos", World.ndjson(World.videos))).toEqual(ok)
        expect(yield* load("shop-metrics", World.ndjson(World.metrics))).toEqual(ok)
        const sql = yield* SqlClient.SqlClient
        const [ad] = yield* sql<Record<string, unknown>>`
          select a.library, a.status, a.days_running, a.countries, a.impressions_lower, a.impressions_upper,
                 a.spend_currency, a.reach_lower, a.likes, a.views, a.engagement::int, adv.name as advertiser,
                 l.title as lander, s.domain as store,
                 a.search_vector @@ plainto_tsquery('english', 'glowlab serum') as matches
            from ads a join advertisers adv on adv.id = a.advertiser_id
            left join landers l on l.id = a.lander_id left join stores s on s.id = a.store_id
           where a.external_id = 'ad-1'`
        expect(ad).toEqual({
          library: "social",
          status: "active",
          days_running: 31,
          countries: ["US", "CA"],
          impressions_lower: "10000",
          impressions_upper: "50000",
          spend_currency: "USD",
          reach_lower: null,
          likes: "120",
          views: null,
          engagement: 143,
          advertiser: "GlowLab Skincare",
          lander: "The serum dermatologists love",
          store: "glowlab.example.com",
          matches: true
        })
        expect(yield* count("shop_video_products")).toBe(1)
        expect(yield* count("shop_product_daily")).toBe(2)
      }))

    it.effect("stores the good lines, reports each bad line with its number and field, stores none of them", () =>
      Effect.gen(function*() {
        const lines = [
          JSON.stringify(World.ad("mix-1")),
          "{not json",
          JSON.stringify({ ...World.ad("mix-3"), status: "paused" }),
          "",
          JSON.stringify({ ...World.ad("mix-5"), advertiser_external_id: "nobody" }),
          JSON.stringify({ ...World.ad("mix-6"), spend: { lower: 1, upper: 2 } }),
          JSON.stringify({ ...World.ad("mix-7"), countries: ["US", "usa"] }),
          JSON.stringify(World.ad("mix-8")),
          JSON.stringify((({ format, ...rest }) => rest)(World.ad("mix-9"))),
          JSON.stringify({ ...World.ad("mix-10"), last_seen: "2026-09-01T00:00:00Z" }),
          JSON.stringify({ ...World.ad("mix-11"), impressions: { lower: 0 } })
        ]
        const report = yield* load("ads", lines.join("\n"))
        expect(report).toEqual({
          accepted: 2,
          rejected: 8,
          errors: [
            { line: 2, error: expect.stringMatching(/^invalid JSON: /) },
            { line: 3, error: "status: must be one of active, inactive" },
            { line: 5, error: "advertiser_external_id: no advertiser of this library has this external_id" },
            { line: 6, error: "spend.currency: is required for a spend range" },
            { line: 7, error: "countries.1: must be an ISO 3166-1 alpha-2 country code such as US" },
            { line: 9, error: "format is missing" },
            { line: 10, error: "last_seen: must not be before first_seen" },
            { line: 11, error: "impressions.upper is missing" }
          ]
        })
        const sql = yield* SqlClient.SqlClient
        const stored = yield* sql<{ external_id: string }>`select external_id from ads where external_id like 'mix-%' order by 1`
        expect(stored.map((r) => r.external_id)).toEqual(["mix-1", "mix-8"])
      }))

    it.effect("is idempotent: the same file twice writes nothing the second time", () =>
      Effect.gen(function*() {
        const file = World.ndjson([World.ad("same-1"), World.ad("same-2", { headline: "Second" })])
        yield* load("ads", file)
        const sql = yield* SqlClient.SqlClient
        const versions = sql<{ external_id: string; xmin: string }>`
          select external_id, xmin::text from ads where external_id like 'same-%' order by 1`
        const before = yield* versions
        expect(yield* load("ads", file)).toEqual({ accepted: 2, rejected: 0, errors: [] })
        expect(yield* versions).toEqual(before)
        // A changed record is rewritten.
        yield* load("ads", World.ndjson([World.ad("same-2", { headline: "Changed" })]))
        const after = yield* versions
        expect(after[0]).toEqual(before[0])
        expect(after[1]!.xmin).not.toBe(before[1]!.xmin)
      }))

    it.effect("keeps a video's product links when it is sent again, replaces them when its list changes", () =>
      Effect.gen(function*() {
        yield* load("shop-products", World.ndjson([{ ...World.products[0], external_id: "p2" }]))
        const links = Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ product: string }>`select p.external_id as product from shop_video_products vp
            join shop_videos v on v.id = vp.video_id join shop_products p on p.id = vp.product_id
           where v.external_id = 'links' order by 1`).pipe(Effect.map((rows) => rows.map((r) => r.product)))
        const video = (products: Array<string>) => World.ndjson([{ ...World.videos[0], external_id: "links", product_external_ids: products }])
        yield* load("shop-videos", video(["p1", "p2"]))
        expect(yield* links).toEqual(["p1", "p2"])
        yield* load("shop-videos", video(["p1", "p2"]))
        expect(yield* links).toEqual(["p1", "p2"])
        yield* load("shop-videos", video(["p2"]))
        expect(yield* links).toEqual(["p2"])
        const refused = yield* load("shop-videos", video(["p2", "nope"]))
        expect(refused.errors).toEqual([{ line: 1, error: "product_external_ids: a product of this list does not exist in this region" }])
        expect(yield* links).toEqual(["p2"])
      }))

    it.effect("stores text exactly, whatever characters it holds", () =>
      Effect.gen(function*() {
        const tricky = `tab\there, new\nline, cr\r, back\\slash \\N "quotes" {braces} ,commas, ünïcødé 🎉 \u0000-free`.replace("\u0000", "")
        const record = World.ad("tricky", {
          body: tricky,
          publisher_platforms: ["feed", `a "quoted", \\ odd {one}`, "NULL"],
          media: [{ type: "image", url: "https://cdn.example.com/a.jpg?x=1\\2" }],
          cta: { text: "Shop\tnow", type: "SHOP_NOW" }
        })
        expect((yield* load("ads", World.ndjson([record]))).accepted).toBe(1)
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ body: string; publisher_platforms: Array<string>; media: unknown; cta_text: string }>`
          select body, publisher_platforms, media, cta_text from ads where external_id = 'tricky'`
        expect(row).toEqual({
          body: tricky,
          publisher_platforms: ["feed", `a "quoted", \\ odd {one}`, "NULL"],
          media: [{ type: "image", url: "https://cdn.example.com/a.jpg?x=1\\2" }],
          cta_text: "Shop\tnow"
        })
      }))

    it.effect("keeps the later of two lines for one record", () =>
      Effect.gen(function*() {
        const report = yield* load("ads", World.ndjson([World.ad("twice", { headline: "First" }), World.ad("twice", { headline: "Last" })]))
        expect(report).toEqual({ accepted: 2, rejected: 0, errors: [] })
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`select headline from ads where external_id = 'twice'`).toEqual([{ headline: "Last" }])
      }))

    it.effect("refuses an over-long line by number and stores the lines around it", () =>
      Effect.gen(function*() {
        const long = JSON.stringify({ ...World.ad("long"), body: "x".repeat(maxLineLength) })
        const report = yield* load("ads", [JSON.stringify(World.ad("around-1")), long, JSON.stringify(World.ad("around-3"))].join("\n"))
        expect(report).toEqual({ accepted: 2, rejected: 1, errors: [{ line: 2, error: "line is longer than 1048576 bytes" }] })
      }))

    it.effect("reports the first 1,000 errors in line order, whichever lane found them, with exact counts", () =>
      Effect.gen(function*() {
        // Odd lines fail validation, even lines refer to an unknown advertiser (refused by the
        // database, in either write lane).
        const lines = Array.from({ length: 3_000 }, (_, i) =>
          JSON.stringify(i % 2 === 0 ? { ...World.ad(`bad-${i}`), status: "?" } : World.ad(`bad-${i}`, { advertiser_external_id: "nobody" })))
        const report = yield* load("ads", lines.join("\n"))
        expect([report.accepted, report.rejected, report.errors.length]).toEqual([0, 3_000, maxReportedErrors])
        expect(report.errors.map((e) => e.line)).toEqual(Array.from({ length: 1_000 }, (_, i) => i + 1))
        expect(report.errors.slice(0, 2)).toEqual([
          { line: 1, error: "status: must be one of active, inactive" },
          { line: 2, error: "advertiser_external_id: no advertiser of this library has this external_id" }
        ])
      }))

    it.effect("follows an advertiser's new name into its ads' full-text documents", () =>
      Effect.gen(function*() {
        yield* load("ads", World.ndjson([World.ad("renamed-ad")]))
        yield* load("advertisers", World.ndjson([{ ...World.advertisers[0], name: "Radiance Collective" }]))
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ matches: boolean }>`
          select search_vector @@ plainto_tsquery('english', 'radiance collective') as matches from ads where external_id = 'renamed-ad'`
        expect(row!.matches).toBe(true)
      }))
  })

  // A batch is one transaction: a failure between a video and its product links loses the
  // batch whole, never half a record.
  const failingSecondBatch = Layer.effect(
    IngestRepo,
    Effect.gen(function*() {
      const real = yield* IngestRepo
      let batches = 0
      return IngestRepo.make({
        ...real,
        replaceVideoProducts: (rows) => (++batches === 2 ? Effect.die("disk full") : real.replaceVideoProducts(rows))
      })
    })
  ).pipe(Layer.provide(IngestRepo.Default))

  layer(Ingest.DefaultWithoutDependencies.pipe(Layer.provide([failingSecondBatch, TrendCounts.Default, SavedSearches.Default, BrandDiffs.Default, ImportEvents.Default]), Layer.provideMerge(TestDatabase)))((it) => {
    it.effect("a crash in the middle of an import leaves whole batches only", () =>
      Effect.gen(function*() {
        yield* loadWorld
        const videos = Array.from({ length: 2_500 }, (_, i) => ({ ...World.videos[0], external_id: `v-${i}` }))
        const exit = yield* Effect.exit(load("shop-videos", World.ndjson(videos)))
        expect(Exit.isFailure(exit)).toBe(true)
        // The failed batch is gone whole (no orphan below); batches that committed before it stay.
        expect(yield* count("shop_videos")).toBeLessThan(2_500)
        const sql = yield* SqlClient.SqlClient
        const [orphans] = yield* sql<{ n: number }>`
          select count(*)::int as n from shop_videos v
           where not exists (select 1 from shop_video_products vp where vp.video_id = v.id)`
        expect(orphans!.n).toBe(0)
      }))
  })
})
