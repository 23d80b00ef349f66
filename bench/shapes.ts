import { SqlClient } from "@effect/sql"
import { Console, Effect } from "effect"

/**
 * The query shapes the routes to come will run, and the index each must use at scale. EXPLAIN
 * is read as text; a shape passes when its plan names the index (a sequential scan of a large
 * table fails it).
 */
export const shapes: ReadonlyArray<{ readonly name: string; readonly index: string; readonly sql: string }> = [
  {
    name: "ads: full-text search in a library, with country and status, ranked",
    index: "ads_search_social",
    sql: `select id from ads where library = 'social' and search_vector @@ websearch_to_tsquery('english', 'vitamin serum')
            and countries && array['US'] and status = 'active'
          order by ts_rank(search_vector, websearch_to_tsquery('english', 'vitamin serum')) desc, id desc limit 20`
  },
  {
    name: "ads: newest of a library, keyset page",
    index: "ads_newest",
    sql: `select id from ads where library = 'social' and (first_seen, id) < (now(), 9223372036854775807)
          order by first_seen desc, id desc limit 20`
  },
  {
    name: "ads: longest running of a library",
    index: "ads_longest",
    sql: `select id from ads where library = 'clipapp' order by days_running desc, id desc limit 20`
  },
  {
    name: "ads: most engagement of a library",
    index: "ads_engagement",
    sql: `select id from ads where library = 'social' order by engagement desc, id desc limit 20`
  },
  {
    name: "ads: a library's ads in a rare country",
    index: "ads_search_pinboard",
    sql: `select count(*) from ads where library = 'pinboard' and countries && array['SG']`
  },
  {
    name: "ads: one advertiser's ads, newest first",
    index: "ads_advertiser",
    sql: `select id from ads where advertiser_id = 42 order by first_seen desc, id desc limit 20`
  },
  {
    name: "ads: niche of a library, newest first",
    index: "ads_niche",
    sql: `select id from ads where library = 'pinboard' and niche = 'pets' order by first_seen desc limit 20`
  },
  {
    name: "ads: variants of a creative",
    index: "ads_variant",
    sql: `select id from ads where variant_group = 'vg-1000'`
  },
  {
    name: "advertisers: fuzzy name",
    index: "advertisers_name_trgm",
    sql: `select id from advertisers where name % 'glowlabb' order by similarity(name, 'glowlabb') desc limit 10`
  },
  {
    name: "products: top GMV over a date range",
    index: "shop_product_daily_day",
    sql: `select product_id, sum(gmv) from shop_product_daily where day between date '2026-11-15' and date '2026-11-21'
          group by product_id order by 2 desc limit 20`
  },
  {
    name: "products: one product's series",
    index: "shop_product_daily_pkey",
    sql: `select day, units, gmv, views from shop_product_daily where product_id = 1234 and day >= date '2026-08-01' order by day`
  },
  {
    name: "products: fuzzy title",
    index: "shop_products_title_trgm",
    sql: `select id from shop_products where title % 'vitamn c serum' order by similarity(title, 'vitamn c serum') desc limit 20`
  },
  {
    name: "shop: a creator's videos",
    index: "shop_videos_creator",
    sql: `select id from shop_videos where creator_id = 77 order by published_at desc limit 20`
  },
  {
    name: "shop: videos featuring a product",
    index: "shop_video_products_product",
    sql: `select video_id from shop_video_products where product_id = 991`
  }
]

export const explainShapes = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`analyze`
  yield* Console.log("\nQuery shapes (EXPLAIN):")
  let failed = 0
  for (const shape of shapes) {
    const plan = (yield* sql.unsafe<{ "QUERY PLAN": string }>(`explain ${shape.sql}`)).map((r) => r["QUERY PLAN"]).join("\n")
    const uses = plan.includes(shape.index)
    if (!uses) failed++
    yield* Console.log(`  ${uses ? "uses" : "MISSES"} ${shape.index.padEnd(28)} ${shape.name}`)
    if (!uses) yield* Console.log(plan.split("\n").map((line) => `      ${line}`).join("\n"))
  }
  yield* Console.log(failed === 0 ? "All query shapes use their index." : `${failed} query shape(s) do not use their index.`)
}).pipe(Effect.orDie)
