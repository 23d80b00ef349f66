import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Schema, Stream } from "effect"
import { Ingest } from "../src/ingest/Ingest.js"
import { entityNames, records } from "../src/ingest/Records.js"
import { scales, world } from "../src/demo/World.js"
import { TestDatabase } from "./support/TestDatabase.js"

const options = { seed: 7, today: "2026-11-22", scale: scales.small }
const everything = (w: ReturnType<typeof world>) => entityNames.map((name) => [name, Array.from(w.records[name]())] as const)

describe("demo world generator", () => {
  it("is deterministic: same seed and day, same records; another seed, another world", () => {
    const first = JSON.stringify(everything(world(options)))
    expect(JSON.stringify(everything(world(options)))).toBe(first)
    expect(JSON.stringify(everything(world({ ...options, seed: 8 })))).not.toBe(first)
  })

  it("round-trips every record through its schema: decode then encode gives the line back", () => {
    for (const [name, items] of everything(world(options))) {
      const schema: Schema.Schema<any, any> = records[name].schema
      for (const item of items) {
        const decoded = Schema.decodeUnknownSync(schema)(item)
        expect(Schema.encodeSync(schema)(decoded)).toEqual(item)
      }
    }
  })

  it("counts what it generates and writes ad copy, not lorem ipsum", () => {
    const w = world(options)
    for (const [name, records] of everything(w)) {
      if (name === "shop-metrics") expect(records.length).toBeLessThanOrEqual(w.counts[name])
      else expect(records.length).toBe(w.counts[name])
    }
    const ads = Array.from(w.records.ads()) as Array<{ body: string | null; headline: string; library: string }>
    expect(ads.filter((a) => a.body !== null).every((a) => /^[A-Z0-9"'P].+\.$/.test(a.body!))).toBe(true)
    expect(ads.some((a) => /lorem|ipsum/i.test(a.body ?? ""))).toBe(false)
    expect(new Set(ads.map((a) => a.library))).toEqual(new Set(["social", "pinboard", "clipapp", "search"]))
  })

  layer(Ingest.Default.pipe(Layer.provideMerge(TestDatabase)))((it) => {
    it.effect("loads through the ingestion path with no line refused, into a coherent world", () =>
      Effect.gen(function*() {
        const ingest = yield* Ingest
        const w = world(options)
        for (const name of entityNames) {
          const report = yield* ingest.records(name, Stream.fromIterable(w.records[name]()))
          expect([name, report.rejected, report.errors]).toEqual([name, 0, []])
        }
        const sql = yield* SqlClient.SqlClient
        const [counts] = yield* sql<Record<string, number>>`
          select (select count(*) from ads)::int as ads,
                 (select count(distinct library) from ads)::int as libraries,
                 (select count(*) from ads where variant_group is not null)::int as variants,
                 (select count(*) from shop_video_products)::int as links,
                 (select count(*) from shop_categories where level = 3)::int as leaves`
        expect(counts!.ads).toBe(w.counts.ads)
        expect(counts!.libraries).toBe(4)
        expect(counts!.variants).toBeGreaterThan(30)
        expect(counts!.links).toBeGreaterThan(100)
        expect(counts!.leaves).toBe(2 * 6 * 9)
        // A category's series is the sum of its products' series.
        const mismatches = yield* sql`
          select c.external_id, cd.day from shop_category_daily cd
            join shop_categories c on c.id = cd.category_id
           where c.level = 3 and cd.units <> (
             select coalesce(sum(pd.units), 0) from shop_product_daily pd
               join shop_products p on p.id = pd.product_id
              where p.category_id = c.id and pd.day = cd.day)`
        expect(mismatches).toEqual([])
      }))
  })
})
