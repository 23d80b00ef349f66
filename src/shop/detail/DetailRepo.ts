import { ReadSql } from "../../platform/db/Replicas.js"
import { SqlClient, SqlSchema } from "@effect/sql"
import { dayBounds } from "../../platform/db/DaySql.js"
import { Effect, Schema } from "effect"
import type { UtcDay } from "../../kernel/UtcDay.js"
import type { ShopRecordId } from "../catalog/Entities.js"
import type { AccountId } from "../../kernel/Ids.js"

/** The records whose page openings are counted. */
export type VisitType = "product" | "shop" | "creator" | "video" | "category"

/** A record of a region over the days `from`..`to`: what most detail figures are about. */
const Span = Schema.Struct({ region: Schema.String, id: Schema.String, from: Schema.String, to: Schema.String })
type Span = typeof Span.Type

/** The same, for a record of a type whose visits are counted (`table`: where its records are). */
const VisitSpan = Schema.Struct({ ...Span.fields, type: Schema.String, table: Schema.String })

const VisitDay = Schema.Struct({ day: Schema.String, visits: Schema.Int, visitors: Schema.Int })
const OtherProduct = Schema.Struct({ id: Schema.String, title: Schema.String, visits: Schema.Int, visitors: Schema.Int })
const ShopExtra = Schema.Struct({
  products: Schema.Int,
  products_with_sales: Schema.Int,
  new_products: Schema.Int,
  videos: Schema.Int,
  creators: Schema.Int
})
const CreatorViews = Schema.Struct({ creator: Schema.String, handle: Schema.String, videos: Schema.Int, views: Schema.Number })
const Channel = Schema.Struct({ is_ad: Schema.Boolean, videos: Schema.Int, creators: Schema.Int, views: Schema.Number })
const ConversionTotals = Schema.Struct({ views: Schema.Number, units: Schema.Number, gmv: Schema.Number })

/** What the detail pages add to the catalog read model: visits, and aggregates over what videos show. */
export class DetailRepo extends Effect.Service<DetailRepo>()("adintel/DetailRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // What videos and metrics show is read on a healthy replica when one is configured (issue 31);
    // visits, which an account's own calls write and read back, stay on the primary.
    const read = yield* ReadSql
    const { endOf, startOf } = dayBounds(sql)
    /** The videos showing a shop's products, published within the period. */
    const shopVideos = ({ from, id, region, to }: Span) => read`
      select distinct v.id, v.creator_id, v.is_ad from shop_videos v
        join shop_video_products vp on vp.video_id = v.id
        join shop_products p on p.id = vp.product_id
       where p.shop_id = (select id from shop_shops where region = ${region} and external_id = ${id})
         and v.published_at >= ${startOf(from)} and v.published_at < ${endOf(to)}`

    const visits = SqlSchema.findAll({
      Request: VisitSpan,
      Result: VisitDay,
      execute: ({ from, id, region, table, to, type }) => sql`
        with e as (select id from ${sql(table)} where region = ${region} and external_id = ${id})
        select g.day::date::text as day, coalesce(sum(v.visits), 0)::int as visits, count(v.account_id)::int as visitors
          from generate_series(${from}::date, ${to}::date, interval '1 day') as g(day)
          left join shop_visits v on v.entity_type = ${type} and v.entity_id = (select id from e) and v.day = g.day::date
         group by g.day order by g.day`
    })

    const visitors = SqlSchema.single({
      Request: VisitSpan,
      Result: Schema.Struct({ n: Schema.Int }),
      execute: ({ from, id, region, table, to, type }) => sql`
        select count(distinct account_id)::int as n from shop_visits
         where entity_type = ${type} and day between ${from}::date and ${to}::date
           and entity_id = (select id from ${sql(table)} where region = ${region} and external_id = ${id})`
    })

    const otherProducts = SqlSchema.findAll({
      Request: Span,
      Result: OtherProduct,
      execute: ({ from, id, region, to }) => sql`
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
         limit 10`
    })

    const shopExtra = SqlSchema.single({
      Request: Span,
      Result: ShopExtra,
      execute: (span) => read`
        with p as (select id, launched_on from shop_products
                    where shop_id = (select id from shop_shops where region = ${span.region} and external_id = ${span.id})),
             v as (${shopVideos(span)})
        select (select count(*) from p)::int as products,
               (select count(distinct d.product_id) from shop_product_daily d
                 where d.product_id in (select id from p) and d.day between ${span.from}::date and ${span.to}::date and d.units > 0)::int
                 as products_with_sales,
               (select count(*) from p where launched_on between ${span.from}::date and ${span.to}::date)::int as new_products,
               (select count(*) from v)::int as videos,
               (select count(distinct creator_id) from v)::int as creators`
    })

    const shopStrategy = SqlSchema.findAll({
      Request: Schema.Struct({ ...Span.fields, ads: Schema.Boolean }),
      Result: CreatorViews,
      execute: ({ ads, ...span }) => read`
        with v as (select * from (${shopVideos(span)}) x where is_ad = ${ads}),
             views as (select v.id, v.creator_id,
                              coalesce((select sum(d.views) from shop_video_daily d
                                         where d.video_id = v.id and d.day between ${span.from}::date and ${span.to}::date), 0)::float8 as views
                         from v)
        select c.external_id as creator, c.handle, count(*)::int as videos, sum(views.views)::float8 as views
          from views join shop_creators c on c.id = views.creator_id
         group by c.id, c.external_id, c.handle
         order by views desc, c.id desc`
    })

    const productChannels = SqlSchema.findAll({
      Request: Span,
      Result: Channel,
      execute: ({ from, id, region, to }) => read`
        with v as (
          select v.id, v.creator_id, v.is_ad,
                 (select sum(d.views) from shop_video_daily d
                   where d.video_id = v.id and d.day between ${from}::date and ${to}::date)::float8 as views
            from shop_video_products vp join shop_videos v on v.id = vp.video_id
           where vp.product_id = (select id from shop_products where region = ${region} and external_id = ${id}))
        select is_ad, count(*)::int as videos, count(distinct creator_id)::int as creators, coalesce(sum(views), 0)::float8 as views
          from v where views > 0 group by is_ad`
    })

    const conversionTotals = SqlSchema.single({
      Request: Span,
      Result: ConversionTotals,
      execute: ({ from, id, region, to }) => read`
        select coalesce(sum(d.views), 0)::float8 as views, coalesce(sum(d.units), 0)::float8 as units,
               coalesce(sum(d.gmv), 0)::float8 as gmv
          from shop_product_daily d
         where d.product_id = (select id from shop_products where region = ${region} and external_id = ${id})
           and d.day between ${from}::date and ${to}::date`
    })

    const conversionCreators = SqlSchema.findAll({
      Request: Span,
      Result: CreatorViews,
      execute: ({ from, id, region, to }) => read`
        select c.external_id as creator, c.handle, count(distinct v.id)::int as videos,
               coalesce(sum((select sum(d.views) from shop_video_daily d
                              where d.video_id = v.id and d.day between ${from}::date and ${to}::date)), 0)::float8 as views
          from shop_video_products vp
          join shop_videos v on v.id = vp.video_id
          join shop_creators c on c.id = v.creator_id
         where vp.product_id = (select id from shop_products where region = ${region} and external_id = ${id})
         group by c.id, c.external_id, c.handle
         order by views desc, c.id desc
         limit 50`
    })

    /** A record of a region over a period, as the statements take it. */
    const span = (region: string, id: ShopRecordId, from: UtcDay, to: UtcDay): Span => ({ region, id, from, to })

    return {
      /** One more visit of a record's page by an account on a UTC day. */
      visit: (type: VisitType, table: string, region: string, id: ShopRecordId, accountId: AccountId, day: UtcDay) =>
        sql`
          insert into shop_visits (entity_type, entity_id, day, account_id, visits)
          select ${type}, e.id, ${day}::date, ${accountId}::uuid, 1 from ${sql(table)} e
           where e.region = ${region} and e.external_id = ${id}
          on conflict (entity_type, entity_id, day, account_id) do update set visits = shop_visits.visits + 1`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      /** A record's visits per day over the period (every day), and its distinct visitors. */
      visits: (type: VisitType, table: string, region: string, id: ShopRecordId, from: UtcDay, to: UtcDay) =>
        visits({ ...span(region, id, from, to), type, table }).pipe(Effect.orDie),

      /** Distinct accounts that opened a record's page in the period. */
      visitors: (type: VisitType, table: string, region: string, id: ShopRecordId, from: UtcDay, to: UtcDay) =>
        visitors({ ...span(region, id, from, to), type, table }).pipe(Effect.map((row) => row.n), Effect.orDie),

      /** The products most opened by the accounts that opened this one, in the period (at most 10). */
      otherProducts: (region: string, id: ShopRecordId, from: UtcDay, to: UtcDay) => otherProducts(span(region, id, from, to)).pipe(Effect.orDie),

      /** A shop's products, those with sales and those launched in the period, its videos and their creators. */
      shopExtra: (region: string, id: ShopRecordId, from: UtcDay, to: UtcDay) => shopExtra(span(region, id, from, to)).pipe(Effect.orDie),

      /** Paid (`ads`) or organic videos showing a shop's products: counts, views, top creators. */
      shopStrategy: (region: string, id: ShopRecordId, from: UtcDay, to: UtcDay, ads: boolean) =>
        shopStrategy({ ...span(region, id, from, to), ads }).pipe(Effect.orDie),

      /** The videos showing a product with views in the period, paid and organic apart. */
      productChannels: (region: string, id: ShopRecordId, from: UtcDay, to: UtcDay) =>
        productChannels(span(region, id, from, to)).pipe(Effect.orDie),

      /** A product's views, units and GMV over the period, and the creators showing it with their videos' views. */
      conversion: (region: string, id: ShopRecordId, from: UtcDay, to: UtcDay) =>
        Effect.all({ totals: conversionTotals(span(region, id, from, to)), creators: conversionCreators(span(region, id, from, to)) }).pipe(
          Effect.orDie
        )
    }
  })
}) {}
