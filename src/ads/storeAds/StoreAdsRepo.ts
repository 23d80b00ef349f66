import { ReadSql } from "../../platform/db/Replicas.js"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import type { AdView } from "../library/Api.js"
import { decodeAdRows, toView, viewColumns } from "../library/AdSearchRepo.js"
import { dayBounds } from "../../platform/db/DaySql.js"
import { decodeRows } from "../../platform/db/Rows.js"
import { StoreAdOverview, StoreAdvertiser, StoreCreative } from "./Api.js"
import { type AdId, type StoreId, StoreRow } from "../../kernel/Ids.js"

/** How a request names its store: its id (branded), or its domain (lowercase). */
export type StoreKey =
  | { readonly by: "store_id"; readonly value: StoreId }
  | { readonly by: "domain"; readonly value: string }

/** The list's filters, decoded. */
export interface StoreAdFilters {
  readonly status?: "active" | "inactive" | undefined
  readonly region?: string | undefined
  readonly first_seen_from?: string | undefined
  readonly first_seen_to?: string | undefined
}

const OverviewRow = StoreAdOverview.pipe(Schema.omit("success"))
export type Overview = typeof OverviewRow.Type

const decodeAds = decodeAdRows({})
const decodeStore = decodeRows(Schema.Struct({ id: StoreRow }))
const decodeTotal = decodeRows(Schema.Struct({ total: Schema.Int }))
const decodeCount = decodeRows(Schema.Struct({ total: Schema.Int, active: Schema.Int }))
const decodeCreative = decodeRows(StoreCreative)
const decodeOverview = decodeRows(OverviewRow)
const decodeAdvertisers = decodeRows(StoreAdvertiser)

/** An instant as every ad view shows it. */
const isoUtc = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`

/** The SQL of the store search-ads routes: every creative is `library = 'search'` of one store. */
export class StoreAdsRepo extends Effect.Service<StoreAdsRepo>()("adintel/StoreAdsRepo", {
  effect: Effect.gen(function*() {
    // Research reads: on a healthy replica when one is configured, read-only either way (issue 31).
    const sql = yield* ReadSql

    const { endOf, startOf } = dayBounds(sql)

    /** The store's search creatives, `a`, within the filters; every value parameterised. */
    const where = (store: StoreRow, f: StoreAdFilters = {}): Fragment => {
      const clauses: ReadonlyArray<Fragment | null> = [
        sql`a.store_id = ${store}::bigint`,
        sql`a.library = 'search'`,
        f.status === undefined ? null : sql`a.status = ${f.status}`,
        f.region === undefined
          ? null
          : sql`a.search->'regions' @> jsonb_build_array(jsonb_build_object('region', ${f.region}::text))`,
        f.first_seen_from === undefined ? null : sql`a.first_seen >= ${startOf(f.first_seen_from)}`,
        f.first_seen_to === undefined ? null : sql`a.first_seen < ${endOf(f.first_seen_to)}`
      ]
      return sql.and(clauses.filter((clause): clause is Fragment => clause !== null))
    }

    const first = <A>(rows: ReadonlyArray<A>): Option.Option<A> => Option.fromNullable(rows[0])

    return {
      /** The store a request names; several stores may share a domain: the first imported wins. */
      store: (key: StoreKey): Effect.Effect<Option.Option<StoreRow>> =>
        (key.by === "store_id"
          ? sql`select id::text as id from stores where external_id = ${key.value}`
          : sql`select id::text as id from stores where domain = ${key.value} order by id limit 1`).pipe(
          Effect.orDie,
          Effect.flatMap(decodeStore),
          Effect.map((rows) => Option.map(first(rows), (r) => r.id))
        ),

      /** One P2 page, newest first (ties by id), and how many match in all. */
      page: (store: StoreRow, filters: StoreAdFilters, window: { readonly limit: number; readonly offset: number }) =>
        Effect.all({
          ads: sql`
            select ${sql.literal(viewColumns)}
              from ads a join advertisers adv on adv.id = a.advertiser_id
             where ${where(store, filters)}
             order by a.first_seen desc, a.id desc
             limit ${window.limit} offset ${window.offset}`.pipe(Effect.orDie, Effect.flatMap(decodeAds), Effect.map((rows) => rows.map(toView))),
          total: sql`select count(*)::int as total from ads a where ${where(store, filters)}`.pipe(
            Effect.orDie,
            Effect.flatMap(decodeTotal),
            Effect.map((rows) => rows[0]?.total ?? 0)
          )
        }),

      count: (store: StoreRow, filters: StoreAdFilters): Effect.Effect<{ readonly total: number; readonly active: number }> =>
        sql`
          select count(*)::int as total, (count(*) filter (where a.status = 'active'))::int as active
            from ads a where ${where(store, filters)}`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeCount),
          Effect.map((rows) => rows[0] ?? { total: 0, active: 0 })
        ),

      /** One creative of the store, as the ad searches show it. */
      find: (store: StoreRow, externalId: AdId): Effect.Effect<Option.Option<AdView>> =>
        sql`
          select ${sql.literal(viewColumns)}
            from ads a join advertisers adv on adv.id = a.advertiser_id
           where ${where(store)} and a.external_id = ${externalId}`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeAds),
          Effect.map((rows) => Option.map(first(rows), toView))
        ),

      /** One creative of the store with its regions, straight from its `search` record. */
      creative: (store: StoreRow, externalId: AdId): Effect.Effect<Option.Option<StoreCreative>> =>
        sql`
          select a.external_id as id, a.headline, a.description,
                 a.search->>'display_url' as display_url,
                 (a.search->>'advertiser_verified')::boolean as advertiser_verified,
                 ${sql.literal(isoUtc("a.first_seen"))} as first_shown,
                 ${sql.literal(isoUtc("a.last_seen"))} as last_shown,
                 a.days_running,
                 coalesce(a.search->'regions', '[]'::jsonb) as regions
            from ads a
           where ${where(store)} and a.external_id = ${externalId}`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeCreative),
          Effect.map(first)
        ),

      /**
       * The store's creatives at a glance, in one statement. A week counts a creative when its
       * shown span [first_seen, last_seen] meets the week (Monday 00:00 UTC to the next Monday).
       */
      overview: (store: StoreRow, maxWeeks: number): Effect.Effect<Overview> =>
        sql`
          with c as (
            select a.id, a.status, a.format, a.first_seen, a.last_seen, a.search from ads a where ${where(store)}
          ), span as (
            select min(first_seen) as first_shown, max(last_seen) as last_shown from c
          ), weeks as (
            select w.week
              from span, generate_series(
                greatest(date_trunc('week', span.first_shown at time zone 'UTC'),
                         date_trunc('week', span.last_shown at time zone 'UTC') - make_interval(weeks => ${maxWeeks - 1}::int)),
                date_trunc('week', span.last_shown at time zone 'UTC'),
                interval '1 week') as w(week)
          )
          select
            (select count(*)::int from c) as total,
            (select count(*)::int from c where status = 'active') as active,
            (select ${sql.literal(isoUtc("first_shown"))} from span) as first_shown,
            (select ${sql.literal(isoUtc("last_shown"))} from span) as last_shown,
            coalesce((
              select json_agg(json_build_object('format', format, 'count', n) order by n desc, format)
                from (select format, count(*)::int as n from c group by format) f
            ), '[]') as by_format,
            coalesce((
              select json_agg(json_build_object('region', region, 'count', n) order by n desc, region)
                from (
                  select r.value->>'region' as region, count(distinct c.id)::int as n
                    from c, jsonb_array_elements(coalesce(c.search->'regions', '[]'::jsonb)) as r(value)
                   where r.value->>'region' is not null
                   group by 1
                ) g
            ), '[]') as by_region,
            coalesce((
              select json_agg(json_build_object('week', to_char(week, 'YYYY-MM-DD'), 'active', n) order by week)
                from (
                  select w.week, count(c.id)::int as n
                    from weeks w left join c
                      on c.first_seen < ((w.week + interval '1 week') at time zone 'UTC')
                     and c.last_seen >= (w.week at time zone 'UTC')
                   group by w.week
                ) t
            ), '[]') as active_over_time`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeOverview),
          // An aggregate without group by answers exactly one row.
          Effect.map((rows) => rows[0]!)
        ),

      /** The advertisers of the store's creatives with their totals, most creatives first. */
      advertisers: (store: StoreRow, limit: number): Effect.Effect<ReadonlyArray<StoreAdvertiser>> =>
        sql`
          with c as (
            select a.id, a.advertiser_id, a.status, a.first_seen, a.last_seen, a.search from ads a where ${where(store)}
          ), totals as (
            select advertiser_id, count(*)::int as creatives, (count(*) filter (where status = 'active'))::int as active,
                   min(first_seen) as first_shown, max(last_seen) as last_shown
              from c group by advertiser_id
          ), shown as (
            select c.advertiser_id, array_agg(distinct r.value->>'region' order by r.value->>'region') as regions
              from c, jsonb_array_elements(coalesce(c.search->'regions', '[]'::jsonb)) as r(value)
             where r.value->>'region' is not null
             group by c.advertiser_id
          )
          select adv.external_id as id, adv.name, adv.domain, adv.verified, t.creatives, t.active,
                 ${sql.literal(isoUtc("t.first_shown"))} as first_shown,
                 ${sql.literal(isoUtc("t.last_shown"))} as last_shown,
                 coalesce(s.regions, '{}') as regions
            from totals t
            join advertisers adv on adv.id = t.advertiser_id
            left join shown s on s.advertiser_id = t.advertiser_id
           order by t.creatives desc, adv.external_id, adv.id
           limit ${limit}`.pipe(Effect.orDie, Effect.flatMap(decodeAdvertisers))
    }
  })
}) {}
