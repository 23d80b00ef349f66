import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { categorySubtree } from "../shopExplore/ExploreRepo.js"

/** The records whose page openings are counted. */
export type VisitType = "product" | "shop" | "creator" | "video" | "category"

/** What the detail pages add to the explore engine: aggregates over what videos show. */
export class DetailRepo extends Effect.Service<DetailRepo>()("adintel/DetailRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const utc = (day: string, next = false) =>
      next ? sql`((${day}::date + 1)::timestamp at time zone 'UTC')` : sql`(${day}::date::timestamp at time zone 'UTC')`
    /** The videos showing a shop's products, published within the period. */
    const shopVideos = (region: string, shopId: string, from: string, to: string) => sql`
      select distinct v.id, v.creator_id, v.is_ad from shop_videos v
        join shop_video_products vp on vp.video_id = v.id
        join shop_products p on p.id = vp.product_id
       where p.shop_id = (select id from shop_shops where region = ${region} and external_id = ${shopId})
         and v.published_at >= ${utc(from)} and v.published_at < ${utc(to, true)}`

    const subtree = (region: string, id: string) => categorySubtree(sql, region, id)

    return {
      /** One more visit of a record's page by an account on a UTC day. */
      visit: (type: VisitType, table: string, region: string, id: string, accountId: string, day: string) =>
        sql`
          insert into shop_visits (entity_type, entity_id, day, account_id, visits)
          select ${type}, e.id, ${day}::date, ${accountId}::uuid, 1 from ${sql(table)} e
           where e.region = ${region} and e.external_id = ${id}
          on conflict (entity_type, entity_id, day, account_id) do update set visits = shop_visits.visits + 1`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      /** A record's visits per day over the period (every day), and its distinct visitors. */
      visits: (type: VisitType, table: string, region: string, id: string, from: string, to: string) =>
        sql<{ day: string; visits: number; visitors: number }>`
          with e as (select id from ${sql(table)} where region = ${region} and external_id = ${id})
          select g.day::date::text as day, coalesce(sum(v.visits), 0)::int as visits, count(v.account_id)::int as visitors
            from generate_series(${from}::date, ${to}::date, interval '1 day') as g(day)
            left join shop_visits v on v.entity_type = ${type} and v.entity_id = (select id from e) and v.day = g.day::date
           group by g.day order by g.day`.pipe(Effect.orDie),

      /** Distinct accounts that opened a record's page in the period. */
      visitors: (type: VisitType, table: string, region: string, id: string, from: string, to: string) =>
        sql<{ n: number }>`
          select count(distinct account_id)::int as n from shop_visits
           where entity_type = ${type} and day between ${from}::date and ${to}::date
             and entity_id = (select id from ${sql(table)} where region = ${region} and external_id = ${id})`.pipe(
          Effect.map((rows) => rows[0]?.n ?? 0),
          Effect.orDie
        ),

      /** The products most opened by the accounts that opened this one, in the period (at most 10). */
      otherProducts: (region: string, id: string, from: string, to: string) =>
        sql<{ id: string; title: string; visits: number; visitors: number }>`
          with me as (select id from shop_products where region = ${region} and external_id = ${id}),
               visitors as (select distinct account_id from shop_visits
                             where entity_type = 'product' and entity_id = (select id from me)
                               and day between ${from}::date and ${to}::date)
          select p.external_id as id, p.title, sum(v.visits)::int as visits, count(distinct v.account_id)::int as visitors
            from shop_visits v join shop_products p on p.id = v.entity_id
           where v.entity_type = 'product' and v.entity_id <> (select id from me)
             and v.account_id in (select account_id from visitors) and v.day between ${from}::date and ${to}::date
           group by p.id, p.external_id, p.title
           order by visitors desc, visits desc, p.id desc
           limit 10`.pipe(Effect.orDie),

      /** Every category of a region, parents before children. */
      categories: (region: string) =>
        sql<{ id: string; name: string; level: number; parent_id: string | null }>`
          select c.external_id as id, c.name, c.level, p.external_id as parent_id
            from shop_categories c left join shop_categories p on p.id = c.parent_id
           where c.region = ${region}
           order by c.level, c.name, c.id`.pipe(Effect.orDie),

      /** How many products, shops (by main category) and creators a category and those below it hold. */
      categoryCounts: (region: string, id: string) =>
        sql<{ products: number; shops: number; creators: number; subcategories: number }>`
          select (select count(*) from shop_products where category_id in ${subtree(region, id)})::int as products,
                 (select count(*) from shop_shops where main_category_id in ${subtree(region, id)})::int as shops,
                 (select count(*) from shop_creators where category_ids && array${subtree(region, id)})::int as creators,
                 ((select count(*) from ${subtree(region, id)} t) - 1)::int as subcategories`.pipe(
          Effect.map((rows) => rows[0]!),
          Effect.orDie
        ),

      /** A shop's products, those with sales and those launched in the period, its videos and their creators. */
      shopExtra: (region: string, shopId: string, from: string, to: string) =>
        sql<{ products: number; products_with_sales: number; new_products: number; videos: number; creators: number }>`
          with p as (select id, launched_on from shop_products
                      where shop_id = (select id from shop_shops where region = ${region} and external_id = ${shopId})),
               v as (${shopVideos(region, shopId, from, to)})
          select (select count(*) from p)::int as products,
                 (select count(distinct d.product_id) from shop_product_daily d
                   where d.product_id in (select id from p) and d.day between ${from}::date and ${to}::date and d.units > 0)::int
                   as products_with_sales,
                 (select count(*) from p where launched_on between ${from}::date and ${to}::date)::int as new_products,
                 (select count(*) from v)::int as videos,
                 (select count(distinct creator_id) from v)::int as creators`.pipe(Effect.map((rows) => rows[0]!), Effect.orDie),

      /** Paid (`ads`) or organic videos showing a shop's products: counts, views, top creators. */
      shopStrategy: (region: string, shopId: string, from: string, to: string, ads: boolean) =>
        sql<{ creator: string; handle: string; videos: number; views: number }>`
          with v as (select * from (${shopVideos(region, shopId, from, to)}) x where is_ad = ${ads}),
               views as (select v.id, v.creator_id,
                                coalesce((select sum(d.views) from shop_video_daily d
                                           where d.video_id = v.id and d.day between ${from}::date and ${to}::date), 0)::float8 as views
                           from v)
          select c.external_id as creator, c.handle, count(*)::int as videos, sum(views.views)::float8 as views
            from views join shop_creators c on c.id = views.creator_id
           group by c.id, c.external_id, c.handle
           order by views desc, c.id desc`.pipe(Effect.orDie),

      /** The videos showing a product with views in the period, paid and organic apart. */
      productChannels: (region: string, productId: string, from: string, to: string) =>
        sql<{ is_ad: boolean; videos: number; creators: number; views: number }>`
          with v as (
            select v.id, v.creator_id, v.is_ad,
                   (select sum(d.views) from shop_video_daily d
                     where d.video_id = v.id and d.day between ${from}::date and ${to}::date)::float8 as views
              from shop_video_products vp join shop_videos v on v.id = vp.video_id
             where vp.product_id = (select id from shop_products where region = ${region} and external_id = ${productId}))
          select is_ad, count(*)::int as videos, count(distinct creator_id)::int as creators, coalesce(sum(views), 0)::float8 as views
            from v where views > 0 group by is_ad`.pipe(Effect.orDie),

      /** A product's views, units and GMV over the period, and the creators showing it with their videos' views. */
      conversion: (region: string, productId: string, from: string, to: string) =>
        Effect.all({
          totals: sql<{ views: number; units: number; gmv: number }>`
            select coalesce(sum(d.views), 0)::float8 as views, coalesce(sum(d.units), 0)::float8 as units,
                   coalesce(sum(d.gmv), 0)::float8 as gmv
              from shop_product_daily d
             where d.product_id = (select id from shop_products where region = ${region} and external_id = ${productId})
               and d.day between ${from}::date and ${to}::date`.pipe(Effect.map((rows) => rows[0]!)),
          creators: sql<{ creator: string; handle: string; videos: number; views: number }>`
            select c.external_id as creator, c.handle, count(distinct v.id)::int as videos,
                   coalesce(sum((select sum(d.views) from shop_video_daily d
                                  where d.video_id = v.id and d.day between ${from}::date and ${to}::date)), 0)::float8 as views
              from shop_video_products vp
              join shop_videos v on v.id = vp.video_id
              join shop_creators c on c.id = v.creator_id
             where vp.product_id = (select id from shop_products where region = ${region} and external_id = ${productId})
             group by c.id, c.external_id, c.handle
             order by views desc, c.id desc
             limit 50`
        }).pipe(Effect.orDie)
    }
  })
}) {}
