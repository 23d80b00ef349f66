import { SqlClient } from "@effect/sql"
import { databaseMode } from "../../platform/db/mode/DatabaseMode.js"
import { ReadSql } from "../../platform/db/Replicas.js"
import { AdFormat, AdLibrary, AdStatus, MediaAsset, SearchCreative } from "../records/Ads.js"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import { type AdDetail, AdLanderRef, AdStoreRef, type AdView } from "./Api.js"
import { dayBounds } from "../../platform/db/DaySql.js"
import { decodeRows } from "../../platform/db/Rows.js"
import type { AdFilters, EngagementMetric, Library, Sort } from "./Filters.js"
import { engagementMetrics } from "./Filters.js"
import { AdId } from "../../kernel/Ids.js"

/** Where a keyset page starts: after this row (its sort value as exact text, and its id). */
export type After = readonly [value: string | null, id: string]

export interface SearchPlan {
  readonly libraries: ReadonlyArray<Library>
  readonly filters: AdFilters
  readonly sort: Sort
  readonly after: Option.Option<After>
  /** Rows to read: the page size plus one, to know whether there is more. */
  readonly take: number
}

/** A row of a page: the ad, and its keyset position. */
export interface Ranked<A> {
  readonly ad: A
  readonly after: After
}

/** The columns every ad view is built from; `a` is the ad, `adv` its advertiser. */
export const viewColumns = `
  a.id::text as row_id, a.external_id, a.library, a.status, a.format,
  adv.external_id as advertiser_external_id, adv.name as advertiser_name, adv.domain as advertiser_domain,
  adv.verified as advertiser_verified, adv.followers::float8 as advertiser_followers, adv.country as advertiser_country,
  to_char(a.first_seen at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as first_seen,
  to_char(a.last_seen at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as last_seen,
  a.start_date::text as start_date, a.end_date::text as end_date, a.days_running,
  a.headline, a.body, a.description, a.cta_text, a.cta_type,
  a.landing_url, a.landing_final_url, a.landing_domain, a.media,
  a.publisher_platforms, a.countries, a.languages,
  a.impressions_lower::float8 as impressions_lower, a.impressions_upper::float8 as impressions_upper,
  a.spend_lower::float8 as spend_lower, a.spend_upper::float8 as spend_upper, a.spend_currency,
  a.reach_lower::float8 as reach_lower, a.reach_upper::float8 as reach_upper,
  a.likes::float8 as likes, a.comments::float8 as comments, a.shares::float8 as shares, a.views::float8 as views,
  a.niche, a.hook, a.angle, a.persona, a.variant_group,
  (select external_id from landers where id = a.lander_id) as lander_external_id,
  (select external_id from stores where id = a.store_id) as store_external_id,
  a.search,
  to_char(a.fetched_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as fetched_at, a.source`

const Text = Schema.NullOr(Schema.String)
const Num = Schema.NullOr(Schema.Number)

/** A row of `viewColumns`, decoded: bigints and dates arrive as text, float8 as numbers, arrays and jsonb parsed. */
export const AdRow = Schema.Struct({
  row_id: Schema.String,
  external_id: AdId,
  library: AdLibrary,
  status: AdStatus,
  format: AdFormat,
  advertiser_external_id: Schema.String,
  advertiser_name: Schema.String,
  advertiser_domain: Text,
  advertiser_verified: Schema.Boolean,
  advertiser_followers: Num,
  advertiser_country: Text,
  first_seen: Schema.String,
  last_seen: Schema.String,
  start_date: Text,
  end_date: Text,
  days_running: Schema.Number,
  headline: Text,
  body: Text,
  description: Text,
  cta_text: Text,
  cta_type: Text,
  landing_url: Text,
  landing_final_url: Text,
  landing_domain: Text,
  media: Schema.Array(MediaAsset),
  publisher_platforms: Schema.Array(Schema.String),
  countries: Schema.Array(Schema.String),
  languages: Schema.Array(Schema.String),
  impressions_lower: Num,
  impressions_upper: Num,
  spend_lower: Num,
  spend_upper: Num,
  spend_currency: Text,
  reach_lower: Num,
  reach_upper: Num,
  likes: Num,
  comments: Num,
  shares: Num,
  views: Num,
  niche: Text,
  hook: Text,
  angle: Text,
  persona: Text,
  variant_group: Text,
  lander_external_id: Text,
  store_external_id: Text,
  search: Schema.NullOr(SearchCreative),
  fetched_at: Schema.String,
  source: Schema.String
})
export type AdRow = typeof AdRow.Type

/** Decodes rows of `viewColumns` plus the statement's own columns (`extra`). */
export const decodeAdRows = <F extends Schema.Struct.Fields>(extra: F) => decodeRows(Schema.Struct({ ...AdRow.fields, ...extra }))

const range = (lower: number | null, upper: number | null, currency?: string | null) =>
  lower === null ? null : { lower, upper, ...(currency ? { currency } : {}) }

export const toView = (r: AdRow): AdView => ({
  id: r.external_id,
  library: r.library,
  status: r.status,
  format: r.format,
  advertiser: {
    id: r.advertiser_external_id,
    name: r.advertiser_name,
    domain: r.advertiser_domain,
    verified: r.advertiser_verified,
    followers: r.advertiser_followers,
    country: r.advertiser_country
  },
  first_seen: r.first_seen,
  last_seen: r.last_seen,
  start_date: r.start_date,
  end_date: r.end_date,
  days_running: r.days_running,
  headline: r.headline,
  body: r.body,
  description: r.description,
  cta: r.cta_text === null && r.cta_type === null ? null : { text: r.cta_text, type: r.cta_type },
  landing: r.landing_url === null ? null : { url: r.landing_url, final_url: r.landing_final_url, domain: r.landing_domain },
  media: r.media,
  publisher_platforms: r.publisher_platforms,
  countries: r.countries,
  languages: r.languages,
  impressions: range(r.impressions_lower, r.impressions_upper),
  spend: range(r.spend_lower, r.spend_upper, r.spend_currency),
  reach: range(r.reach_lower, r.reach_upper),
  engagement: engagementMetrics.every((m) => r[m] === null)
    ? null
    : { likes: r.likes, comments: r.comments, shares: r.shares, views: r.views },
  niche: r.niche,
  ai_tags: r.hook === null && r.angle === null && r.persona === null ? null : { hook: r.hook, angle: r.angle, persona: r.persona },
  variant_group: r.variant_group,
  lander_id: r.lander_external_id,
  store_id: r.store_external_id,
  search: r.search,
  fetched_at: r.fetched_at,
  source: r.source
})

const decodeRanked = decodeAdRows({ sort_value: Schema.NullOr(Schema.String) })
const decodeDetail = decodeAdRows({
  variants: Schema.optional(Schema.Array(Schema.String)),
  lander: Schema.NullOr(AdLanderRef),
  store: Schema.NullOr(AdStoreRef)
})

export class AdSearchRepo extends Effect.Service<AdSearchRepo>()("adintel/AdSearchRepo", {
  effect: Effect.gen(function*() {
    // Research reads: on a healthy replica when one is configured, read-only either way (issue 31).
    const sql = yield* ReadSql
    const sharded = (yield* Effect.provideService(databaseMode, SqlClient.SqlClient, sql))._tag === "Citus"

    const { endOf, startOf } = dayBounds(sql)

    /**
     * The newest 100 other ads of an ad's library in its variant group, in the ad's own statement
     * on one PostgreSQL; on Citus by a query of their own (`variantsOf`): they are ads of any
     * advertiser, on any shard, where a subquery correlated to the ad would not run.
     */
    const variantsColumn = sharded ? sql`` : sql`,
                 coalesce((select array_agg(v.external_id order by v.first_seen desc, v.id desc) from (
                    select o.id, o.external_id, o.first_seen from ads o
                     where o.variant_group = a.variant_group and o.library = a.library and o.id <> a.id
                     order by o.first_seen desc, o.id desc limit 100) v), '{}') as variants`
    /** The same, read on its own (Citus). */
    const variantsOf = (ad: { readonly row_id: string; readonly library: string; readonly variant_group: string | null }) =>
      ad.variant_group === null ? Effect.succeed<ReadonlyArray<string>>([]) : sql`
        select o.external_id from ads o
         where o.variant_group = ${ad.variant_group} and o.library = ${ad.library} and o.id <> ${ad.row_id}::bigint
         order by o.first_seen desc, o.id desc limit 100`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ external_id: Schema.String })))),
        Effect.map((rows): ReadonlyArray<string> => rows.map((row) => row.external_id)),
        Effect.orDie
      )
    const metricRange = (metric: EngagementMetric, min: number | undefined, max: number | undefined) => [
      min === undefined ? null : sql`a.${sql(metric)} >= ${min}`,
      max === undefined ? null : sql`a.${sql(metric)} <= ${max}`
    ]

    /**
     * The filters as one SQL condition: every clause parameterised. `advertisers`: the row ids
     * the advertiser filter names, when read first (`advertiserRows`); a constant list lets
     * Citus read one advertiser's shard only, where a subquery makes it read every shard.
     */
    const where = (libraries: ReadonlyArray<Library>, f: AdFilters, advertisers?: ReadonlyArray<string>): Fragment => {
      const clauses: ReadonlyArray<Fragment | null> = [
        libraries.length === 1 ? sql`a.library = ${libraries[0]!}` : sql`a.library = any(${libraries}::text[])`,
        f.q === undefined ? null : sql`a.search_vector @@ websearch_to_tsquery('english', ${f.q})`,
        f.advertiser_id === undefined
          ? null
          : advertisers !== undefined
          ? sql`a.advertiser_id = any(${advertisers}::bigint[])`
          : sql`a.advertiser_id in (select id from advertisers where external_id = ${f.advertiser_id} and platform = any(${libraries}::text[]))`,
        f.domain === undefined ? null : sql`a.landing_domain = ${f.domain}`,
        f.status === undefined ? null : sql`a.status = ${f.status}`,
        f.format === undefined ? null : sql`a.format = any(${f.format}::text[])`,
        f.country === undefined ? null : sql`a.countries && ${f.country}::text[]`,
        f.language === undefined ? null : sql`a.languages && ${f.language}::text[]`,
        f.platform === undefined ? null : sql`a.publisher_platforms && ${f.platform}::text[]`,
        f.niche === undefined ? null : sql`a.niche = any(${f.niche}::text[])`,
        f.cta === undefined ? null : sql`a.cta_type = any(${f.cta}::text[])`,
        f.first_seen_from === undefined ? null : sql`a.first_seen >= ${startOf(f.first_seen_from)}`,
        f.first_seen_to === undefined ? null : sql`a.first_seen < ${endOf(f.first_seen_to)}`,
        f.last_seen_from === undefined ? null : sql`a.last_seen >= ${startOf(f.last_seen_from)}`,
        f.last_seen_to === undefined ? null : sql`a.last_seen < ${endOf(f.last_seen_to)}`,
        f.min_days_running === undefined ? null : sql`a.days_running >= ${f.min_days_running}`,
        f.max_days_running === undefined ? null : sql`a.days_running <= ${f.max_days_running}`,
        ...metricRange("likes", f.min_likes, f.max_likes),
        ...metricRange("comments", f.min_comments, f.max_comments),
        ...metricRange("shares", f.min_shares, f.max_shares),
        ...metricRange("views", f.min_views, f.max_views)
      ]
      return sql.and(clauses.filter((clause): clause is Fragment => clause !== null))
    }

    /** Each sort as a keyset: the value, its exact text form, and the direction. */
    const orderOf = (sort: Sort, q: string | undefined) => {
      switch (sort) {
        case "newest":
          return { value: sql`a.first_seen`, type: sql`timestamptz`, desc: true }
        case "oldest":
          return { value: sql`a.first_seen`, type: sql`timestamptz`, desc: false }
        case "longest_running":
          return { value: sql`a.days_running`, type: sql`integer`, desc: true }
        case "most_engagement":
          return { value: sql`a.engagement`, type: sql`bigint`, desc: true }
        case "relevance":
          return { value: sql`ts_rank(a.search_vector, websearch_to_tsquery('english', ${q ?? ""}))`, type: sql`real`, desc: true }
      }
    }

    /** The row ids of the advertisers the advertiser filter names (one per library at most); none without the filter. */
    const advertiserRows = (libraries: ReadonlyArray<Library>, f: AdFilters): Effect.Effect<ReadonlyArray<string> | undefined> =>
      // On one PostgreSQL the filter's subquery costs no round trip of its own.
      f.advertiser_id === undefined || !sharded ? Effect.succeed(undefined) : sql`
        select id::text as id from advertisers where external_id = ${f.advertiser_id} and platform = any(${libraries}::text[])`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String })))),
        Effect.map((rows) => rows.map((row) => row.id)),
        Effect.orDie
      )

    return {
      /** One keyset page of a search, in the sort's order, ties broken by id. */
      search: (plan: SearchPlan): Effect.Effect<ReadonlyArray<Ranked<AdView>>> => Effect.flatMap(advertiserRows(plan.libraries, plan.filters), (advertisers) => {
        const order = orderOf(plan.sort, plan.filters.q)
        const direction = sql.literal(order.desc ? "desc" : "asc")
        const after = Option.match(plan.after, {
          onNone: () => sql`true`,
          onSome: ([value, id]) =>
            order.desc
              ? sql`(${order.value}, a.id) < (${value}::${order.type}, ${id}::bigint)`
              : sql`(${order.value}, a.id) > (${value}::${order.type}, ${id}::bigint)`
        })
        // The page's ids are chosen first, sorting only (key, id): a common word matches ~150k
        // ads at 10M, and sorting them with every shown column (and its join) was most of the
        // cost (p95 of 60 keyword searches at 10M: 423 to 185 ms). Then the page's rows are read.
        return sql`
          with page as (
            select a.advertiser_id, a.id, ${order.value} as sort_key from ads a
             where ${where(plan.libraries, plan.filters, advertisers)} and ${after}
             order by ${order.value} ${direction}, a.id ${direction}
             limit ${plan.take})
          select ${sql.literal(viewColumns)}, page.sort_key::text as sort_value
            from page join ads a on a.advertiser_id = page.advertiser_id and a.id = page.id join advertisers adv on adv.id = a.advertiser_id
           -- Said again for the page's rows: on Citus both reads then go to the advertiser's shard alone.
           where ${advertisers === undefined ? sql`true` : sql`a.advertiser_id = any(${advertisers}::bigint[])`}
           order by page.sort_key ${direction}, a.id ${direction}`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeRanked),
          Effect.map((rows) => rows.map((r) => ({ ad: toView(r), after: [r.sort_value, r.row_id] as const })))
        )
      }),

      /** One ad of a library by its id, with its variants (`variantsColumn`), lander and store. */
      find: (library: Library, externalId: AdId): Effect.Effect<Option.Option<AdDetail["data"]>> =>
        sql`
          select ${sql.literal(viewColumns)},
                 (select json_build_object('id', l.external_id, 'url', l.url, 'domain', l.domain, 'title', l.title, 'page_type', l.page_type)
                    from landers l where l.id = a.lander_id) as lander,
                 (select json_build_object('id', s.external_id, 'domain', s.domain, 'name', s.name, 'platform', s.platform)
                    from stores s where s.id = a.store_id) as store${variantsColumn}
            from ads a join advertisers adv on adv.id = a.advertiser_id
           where a.library = ${library} and a.external_id = ${externalId}`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeDetail),
          Effect.flatMap((rows) => {
            const r = rows[0]
            return r === undefined
              ? Effect.succeed(Option.none())
              : Effect.map(r.variants === undefined ? variantsOf(r) : Effect.succeed(r.variants), (variants) =>
                Option.some({ ...toView(r), variants, lander: r.lander, store: r.store }))
          })
        ),

      where
    }
  })
}) {}
