import { SqlClient } from "@effect/sql"
import * as Statement from "@effect/sql/Statement"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { AccountId } from "../src/kernel/Ids.js"
import { ShopRollups } from "../src/shop/search/ShopRollups.js"
import { type SuggestionType } from "../src/shop/search/Api.js"
import { ShopSearch } from "../src/shop/search/ShopSearch.js"
import { TestDatabase } from "./support/TestDatabase.js"

/** An account id of no account: the statements read are the same for every account. */
const noAccount = Schema.decodeUnknownSync(AccountId)("00000000-0000-0000-0000-000000000000")

/**
 * Suggestions are asked on every keystroke: at scale each of their statements must read indexes,
 * never a large table whole. A database of its own with enough generated rows that PostgreSQL
 * plans as it would in production (bench/shopSearch.ts measures the demo world at bench scale).
 */
describe("suggestions at scale", () => {
  const rows = { shops: 3_000, creators: 12_000, products: 60_000 }
  const generated = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const provenance = sql`'1970-01-01T00:00:00Z'::timestamptz, 'test', 'generated', 'x'`
    yield* sql`insert into shop_categories (region, external_id, name, level, fetched_at, source, method, content_hash)
               values ('US', 'cat', 'Everything', 1, ${provenance})`
    yield* sql`insert into shop_shops (region, external_id, name, shop_type, followers, fetched_at, source, method, content_hash)
               select 'US', 'shop-' || i, (array['Glow', 'Pure', 'Zen', 'Bloom', 'Nova'])[1 + i % 5] || ' Store ' || i, 'brand', (i * 7919) % 100000, ${provenance}
                 from generate_series(1, ${rows.shops}) i`
    yield* sql`insert into shop_creators (region, external_id, handle, followers, fetched_at, source, method, content_hash)
               select 'US', 'creator-' || i, '@' || (array['its', 'the', 'just', 'hey'])[1 + i % 4] || 'creator' || i, (i * 104729) % 1000000, ${provenance}
                 from generate_series(1, ${rows.creators}) i`
    yield* sql`insert into shop_products (region, external_id, title, shop_id, category_id, price_min, price_max, currency, reviews, fetched_at, source, method, content_hash)
               select 'US', 'product-' || i,
                      (array['Viral ', 'New ', 'Premium ', '', '', '2-Pack '])[1 + i % 6]
                        || (array['Vitamin C Serum', 'Yoga Mat', 'Smart Lock', 'Cat Tunnel', 'Litter Box', 'Sun Stick', 'Lip Oil', 'Pet Camera'])[1 + (i / 7) % 8]
                        || ' Model ' || (i % 2000),
                      s.id, c.id, 10, 10, 'USD', (i * 7877) % 5000, ${provenance}
                 from generate_series(1, ${rows.products}) i
                 join shop_shops s on s.external_id = 'shop-' || (1 + i % ${rows.shops})
                 cross join (select id from shop_categories where external_id = 'cat') c`
    yield* sql`vacuum analyze shop_products`
    yield* sql`vacuum analyze shop_shops`
    yield* sql`vacuum analyze shop_creators`
  }).pipe(Effect.orDie)

  /** The statements a call runs, with the indexes and the large tables each read (EXPLAIN ANALYZE). */
  const readsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const seen: Array<readonly [string, ReadonlyArray<unknown>]> = []
      yield* effect.pipe(Statement.withTransformer((statement) => Effect.sync(() => (seen.push(statement.compile()), statement))))
      return yield* Effect.forEach(seen, ([text, params]) =>
        Effect.map(sql.unsafe<{ "QUERY PLAN": string }>(`explain (analyze, timing off, buffers off) ${text}`, params as Array<any>), (plan) => {
          // What PostgreSQL skipped ("never executed") read nothing.
          const ran = plan.map((r) => r["QUERY PLAN"]).filter((line) => !line.includes("never executed")).join("\n")
          return {
            indexes: [...new Set([...ran.matchAll(/(?:Index Scan|Index Only Scan) using (\w+)|Bitmap Index Scan on (\w+)/g)].map((m) => (m[1] ?? m[2])!))],
            whole: [...new Set([...ran.matchAll(/Seq Scan on (\w+)/g)].map((m) => m[1]!))].filter((t) => t !== "shop_categories" && t !== "shop_suggestions_categories")
          }
        }))
    }).pipe(Effect.orDie)

  layer(Layer.effectDiscard(generated).pipe(Layer.provideMerge(ShopSearch.Default.pipe(Layer.provideMerge(TestDatabase)))))((it) => {
    it.effect("every statement of suggestions reads indexes only: by popularity for a common prefix, by prefix and trigrams for a rare one", () =>
      Effect.gen(function*() {
        const search = yield* ShopSearch
        const ask = (prefix: string, types?: ReadonlyArray<SuggestionType>) =>
          readsOf(search.suggestions(noAccount, { prefix, country: "US", ...(types ? { types } : {}) }))
        const cases: Array<[string, ReadonlyArray<SuggestionType> | undefined, ReadonlyArray<string>]> = [
          ["v", ["products"], ["shop_products_popular"]],
          ["premium", ["products"], ["shop_products_popular"]],
          ["@its", ["creators"], ["shop_creators_popular"]],
          ["zq", ["products"], ["shop_products_popular", "shop_products_title_prefix", "shop_products_title_trgm"]],
          ["model 1999", ["products"], ["shop_products_title_prefix", "shop_products_title_trgm"]],
          ["creator11999", ["creators"], ["shop_creators_handle_prefix", "shop_creators_handle_trgm"]],
          ["store 2999", ["shops"], ["shop_shops_name_prefix", "shop_shops_name_trgm"]],
          ["s", undefined, ["shop_products_popular", "shop_shops_popular", "shop_creators_popular"]],
          ["zq", undefined, ["shop_products_title_prefix", "shop_shops_name_prefix", "shop_creators_handle_prefix", "shop_products_title_trgm"]]
        ]
        for (const [prefix, types, expected] of cases) {
          const reads = yield* ask(prefix, types)
          const indexes = new Set(reads.flatMap((r) => r.indexes))
          expect([prefix, types, expected.filter((index) => !indexes.has(index))]).toEqual([prefix, types, []])
          expect([prefix, types, reads.flatMap((r) => r.whole)]).toEqual([prefix, types, []])
        }
      }))

    it.effect("summed ahead, suggestions read the strings' indexes only: by prefix or popularity, and later words by their keys", () =>
      Effect.gen(function*() {
        const search = yield* ShopSearch
        expect(yield* Effect.flatMap(ShopRollups, (rollups) => rollups.refreshStale)).toBeGreaterThan(0)
        const cases: Array<[string, ReadonlyArray<string>]> = [
          ["s", []],
          ["premium", []],
          ["@its", []],
          ["zq", ["shop_suggestion_words_key"]],
          ["model 1999", ["shop_suggestion_words_key"]],
          ["creator11999", ["shop_suggestion_words_key"]]
        ]
        for (const [prefix, expected] of cases) {
          const reads = yield* readsOf(search.suggestions(noAccount, { prefix, country: "US" }))
          const indexes = [...new Set(reads.flatMap((r) => r.indexes))]
          expect([prefix, indexes.filter((index) => !index.startsWith("shop_suggestion") && index !== "shop_rollup_state_pkey")]).toEqual([prefix, []])
          expect([prefix, expected.filter((index) => !indexes.includes(index))]).toEqual([prefix, []])
          expect([prefix, reads.flatMap((r) => r.whole)]).toEqual([prefix, []])
        }
      }).pipe(Effect.provide(ShopRollups.Default)))
  })
})
