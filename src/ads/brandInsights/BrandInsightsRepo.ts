import { SqlClient, SqlSchema } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import type { Library } from "../library/Filters.js"
import {
  angleSignals,
  codePattern,
  emojiPattern,
  hookPattern,
  lastSegmentPattern,
  maxHookChars,
  offerSignals,
  percentPattern,
  personaSignals,
  productHandlePattern,
  type Signal,
  videoLengthBuckets
} from "./CopySignals.js"
import { adsShown, brandTabs, type TabData, type TabName, topItems } from "./Tabs.js"

/** A brand: a social-network page (INTERPRETATIONS W1). `row` is its advertiser row id. */
export const BrandRow = Schema.Struct({
  row: Schema.String,
  id: Schema.String,
  name: Schema.String,
  domain: Schema.NullOr(Schema.String)
})
export type BrandRow = typeof BrandRow.Type

/**
 * The ads a tab reads: the advertisers standing for the brand in the libraries asked for, the
 * period as instants (`end` excluded) and its days, and the countries asked for.
 */
export interface TabScope {
  readonly advertisers: ReadonlyArray<string>
  readonly start: Date
  readonly end: Date
  readonly dateFrom: string
  readonly dateTo: string
  /** The Mondays of the weeks the period meets, and the first days of its months (YYYY-MM-DD). */
  readonly weeks: ReadonlyArray<string>
  readonly months: ReadonlyArray<string>
  /** Where "new" windows start: the 1, 7, 14 and 30 days ending `date_to`. */
  readonly since: { readonly d1: Date; readonly d7: Date; readonly d14: Date; readonly d30: Date }
  readonly countries: ReadonlyArray<string> | undefined
}

/** The tabs answered by one SQL statement each; `transcripts` also reads the transcripts product. */
export type SqlTab = Exclude<TabName, "transcripts">

export const VideoAd = Schema.Struct({
  ad_id: Schema.String,
  library: Schema.String,
  first_seen: Schema.String,
  duration_seconds: Schema.NullOr(Schema.Number)
})
export type VideoAd = typeof VideoAd.Type

const names = (signals: ReadonlyArray<Signal>) => signals.map((s) => s.name)
const patterns = (signals: ReadonlyArray<Signal>) => signals.map((s) => s.pattern)

/**
 * The SQL of the brand insight tabs (issue 19). Every tab is one statement over `b`, the
 * period's ads of the brand (read once through `ads_advertiser`), answering its `data` as one
 * JSON value that is decoded with the tab's declared schema: a statement that drifted from its
 * declaration is a defect (500, refunded), never a wrong answer.
 */
export class BrandInsightsRepo extends Effect.Service<BrandInsightsRepo>()("adintel/BrandInsightsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findBrand = SqlSchema.findOne({
      Request: Schema.String,
      Result: BrandRow,
      execute: (id) => sql`
        select id::text as row, external_id as id, name, domain
          from advertisers where platform = 'social' and external_id = ${id}`
    })

    /** The page itself, and in the other libraries the advertisers with the page's domain. */
    const findAdvertisers = SqlSchema.findAll({
      Request: Schema.Struct({ brand: BrandRow, libraries: Schema.Array(Schema.String) }),
      Result: Schema.Struct({ row: Schema.String }),
      execute: ({ brand, libraries }) => sql`
        select id::text as row from advertisers
         where platform = any(${libraries}::text[])
           and (id = ${brand.row}::bigint or (${brand.domain}::text is not null and domain = ${brand.domain} and platform <> 'social'))`
    })

    const iso = (column: string) => sql.literal(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`)

    /** `b`: the period's ads of the brand, with `copy` (body, headline and description). */
    const periodAds = (scope: TabScope) => {
      const clauses = [
        sql`a.advertiser_id = any(${scope.advertisers}::bigint[])`,
        sql`a.first_seen < ${scope.end}`,
        sql`a.last_seen >= ${scope.start}`,
        ...(scope.countries === undefined ? [] : [sql`a.countries && ${scope.countries}::text[]`])
      ]
      return sql`b as materialized (
        select a.id, a.external_id, a.library, a.status, a.format, a.headline, a.body, a.description,
               a.first_seen, a.last_seen, a.days_running, a.landing_url, a.landing_domain, a.cta_type, a.cta_text,
               a.countries, a.languages, a.publisher_platforms, a.media,
               a.impressions_lower, a.impressions_upper, a.reach_lower, a.reach_upper, a.spend_lower, a.spend_upper, a.spend_currency,
               a.likes, a.comments, a.shares, a.views, a.engagement, a.niche, a.hook, a.angle, a.persona, a.variant_group,
               nullif(concat_ws(E'\\n', a.body, a.headline, a.description), '') as copy
          from ads a
         where ${sql.and(clauses)})`
    }

    /** An ad as a tab lists it (`TabAd`). */
    const tabAd = sql`json_build_object('id', external_id, 'library', library, 'status', status, 'format', format,
      'headline', headline, 'first_seen', ${iso("first_seen")}, 'last_seen', ${iso("last_seen")},
      'days_running', days_running, 'landing_url', landing_url)`

    /** Up to `limit` ads of `from` (rows of `b`) in `order`, as a JSON array of `TabAd`. */
    const adList = (from: Fragment, order: Fragment, limit = adsShown, item: Fragment = tabAd) =>
      sql`coalesce((select json_agg(t.item order by t.n) from (
        select ${item} as item, row_number() over (order by ${order}) as n from ${from} order by ${order} limit ${limit}) t), '[]'::json)`

    interface RankOptions {
      readonly limit?: number
      readonly active?: boolean
      readonly span?: boolean
    }

    /**
     * A ranked list of the values `k` that `source` (rows of `k`, `id`, `status`, `first_seen`,
     * `last_seen`) yields: the distinct ads with each, most first, ties by the value's text.
     */
    const rank = (source: Fragment, key: string, { active = true, limit = topItems, span = false }: RankOptions = {}) =>
      sql`coalesce((select json_agg(json_build_object(${key}::text, t.k, 'ads', t.ads
          ${active ? sql`, 'active', t.active` : sql``}
          ${span ? sql`, 'first_seen', ${iso("t.first_seen")}, 'last_seen', ${iso("t.last_seen")}` : sql``}) order by t.ads desc, t.k::text collate "C")
        from (select s.k, count(distinct s.id)::int as ads, (count(distinct s.id) filter (where s.status = 'active'))::int as active,
                     min(s.first_seen) as first_seen, max(s.last_seen) as last_seen
                from (${source}) s where s.k is not null
               group by s.k order by ads desc, s.k::text collate "C" limit ${limit}) t), '[]'::json)`

    const of = (key: Fragment, from: Fragment = sql`b`) => sql`select ${key} as k, b.id, b.status, b.first_seen, b.last_seen from ${from}`

    /** The name of the first signal whose pattern the copy matches (case-insensitive), for the row of `b`. */
    const firstSignal = (signals: ReadonlyArray<Signal>) =>
      sql`(select s.name from unnest(${names(signals)}::text[], ${patterns(signals)}::text[]) with ordinality as s(name, pattern, n)
            where b.copy ~* s.pattern order by s.n limit 1)`

    /** A tagged field, else derived from the copy: the ranked values and how many ads came by each way. */
    const taggedOrDerived = (column: "angle" | "persona", key: string, signals: ReadonlyArray<Signal>) => sql`
      , t as (select b.id, b.status, b.first_seen, b.last_seen, b.${sql.literal(column)} is not null as tagged,
                     coalesce(b.${sql.literal(column)}, ${firstSignal(signals)}) as k from b)
      select json_build_object(
        ${`${key}s`}::text, ${rank(sql`select k, id, status, first_seen, last_seen from t`, key)},
        'tagged', (select count(*) filter (where tagged) from t)::int,
        'derived', (select count(*) filter (where not tagged and k is not null) from t)::int,
        'unknown', (select count(*) filter (where k is null) from t)::int) as data`

    /** A range column pair as `RangeStats`, over the rows of `b` that `where` keeps. */
    const rangeStats = (lower: string, upper: string, where: Fragment = sql`true`) => {
      const [lo, up] = [sql.literal(lower), sql.literal(upper)]
      return sql`(select json_build_object(
          'reported', count(${lo})::int,
          'unreported', (count(*) - count(${lo}))::int,
          'lower_total', coalesce(sum(${lo}), 0),
          'upper_total', case when count(${lo}) = 0 or count(${up}) < count(${lo}) then null else sum(${up}) end,
          'ranges', coalesce((select json_agg(json_build_object('lower', r.lower, 'upper', r.upper, 'ads', r.ads) order by r.lower, r.upper nulls last)
                                from (select ${lo} as lower, ${up} as upper, count(*)::int as ads from b where ${where} and ${lo} is not null group by 1, 2) r), '[]'::json))
        from b where ${where})`
    }

    /** Per week of the period (its Mondays), a count of `b` rows per `columns` condition. */
    const weekly = (scope: TabScope, counts: Fragment, join: Fragment) =>
      sql`coalesce((select json_agg(t.item order by t.week) from (
        select w.week, json_build_object('week', to_char(w.week, 'YYYY-MM-DD'), ${counts}) as item
          from unnest(${scope.weeks}::date[]) as w(week)
          left join b on ${join}
         group by w.week) t), '[]'::json)`
    const weekStart = sql.literal("(w.week::timestamp at time zone 'UTC')")
    const weekEnd = sql.literal("((w.week + 7)::timestamp at time zone 'UTC')")

    const formats = ["image", "video", "carousel", "text", "dpa"] as const
    const hook = sql`coalesce(b.hook, left(coalesce(substring(b.copy from ${hookPattern}), split_part(b.copy, E'\\n', 1)), ${maxHookChars}))`
    const product = sql`lower(coalesce(substring(b.landing_url from ${productHandlePattern}), substring(b.landing_url from ${lastSegmentPattern})))`
    const videoSeconds = sql`(select (m.value->>'duration_seconds')::float8 from jsonb_array_elements(b.media) with ordinality as m(value, n)
                                where m.value->>'type' = 'video' order by m.n limit 1)`
    const launchedIn = (scope: TabScope) => sql`b.first_seen >= ${scope.start}`

    /** Each tab's statement after `with b as (...)`; `data` is its answer. */
    const statements: { readonly [T in SqlTab]: (scope: TabScope) => Fragment } = {
      "overview-cards": (scope) => sql`
        select json_build_object(
          'total', (select count(*) from b)::int,
          'active', (select count(*) from b where status = 'active')::int,
          'new_1d', (select count(*) from b where first_seen >= ${scope.since.d1})::int,
          'new_7d', (select count(*) from b where first_seen >= ${scope.since.d7})::int,
          'new_30d', (select count(*) from b where first_seen >= ${scope.since.d30})::int,
          'median_days_running', (select percentile_cont(0.5) within group (order by days_running) from b),
          'top_format', (select format from b group by format order by count(*) desc, format collate "C" limit 1),
          'first_seen', (select ${iso("min(first_seen)")} from b),
          'last_seen', (select ${iso("max(last_seen)")} from b),
          'libraries', ${rank(of(sql`b.library`), "library", { active: false })},
          'countries', ${rank(of(sql`c.k`, sql`b cross join unnest(b.countries) as c(k)`), "country", { active: false, limit: 10 })}) as data`,

      "ad-copies": () => {
        const lengths = (column: "body" | "headline") => {
          const c = sql.literal(`char_length(${column})`)
          return sql`(select json_build_object('ads', count(${c})::int, 'min', min(${c}),
            'median', percentile_cont(0.5) within group (order by ${c}), 'max', max(${c})) from b)`
        }
        return sql`
          select json_build_object(
            'bodies', ${rank(of(sql`b.body`), "text")},
            'headlines', ${rank(of(sql`b.headline`), "text")},
            'body_length', ${lengths("body")},
            'headline_length', ${lengths("headline")},
            'emoji', json_build_object(
              'ads', (select count(*) from b where b.copy ~ ${emojiPattern})::int,
              'top', ${rank(of(sql`e.m[1]`, sql`b cross join lateral regexp_matches(b.copy, ${emojiPattern}, 'g') as e(m)`), "emoji", { active: false, limit: 10 })})) as data`
      },

      hooks: () => sql`
        select json_build_object(
          'hooks', ${rank(of(hook), "hook", { span: true })},
          'tagged', (select count(*) from b where b.hook is not null)::int,
          'derived', (select count(*) from b where b.hook is null and ${hook} is not null)::int) as data`,

      angles: () => taggedOrDerived("angle", "angle", angleSignals),
      personas: () => taggedOrDerived("persona", "persona", personaSignals),

      offers: () => {
        const discount = offerSignals.find((s) => s.name === "discount")!.pattern
        return sql`
          , o as (select b.id, b.status, b.first_seen, b.last_seen, s.name as k
                    from b cross join unnest(${names(offerSignals)}::text[], ${patterns(offerSignals)}::text[]) as s(name, pattern)
                   where b.copy ~* s.pattern)
          select json_build_object(
            'ads_with_offer', (select count(distinct id) from o)::int,
            'offers', ${rank(sql`select k, id, status, first_seen, last_seen from o`, "offer")},
            'discounts', ${rank(of(sql`(p.m[1])::int`, sql`b cross join lateral regexp_matches(b.copy, ${percentPattern}, 'gi') as p(m) where b.copy ~* ${discount}`), "percent", { active: false })},
            'codes', ${rank(of(sql`upper(c.m[1])`, sql`b cross join lateral regexp_matches(b.copy, ${codePattern}, 'gi') as c(m)`), "code", { active: false })}) as data`
      },

      ctas: () => sql`
        select json_build_object(
          'ctas', coalesce((select json_agg(json_build_object('type', t.type, 'text', t.text, 'ads', t.ads, 'active', t.active)
                                            order by t.ads desc, t.type collate "C", t.text collate "C")
                              from (select cta_type as type, cta_text as text, count(*)::int as ads, (count(*) filter (where status = 'active'))::int as active
                                      from b where cta_type is not null or cta_text is not null
                                     group by 1, 2 order by ads desc, cta_type collate "C", cta_text collate "C" limit ${topItems}) t), '[]'::json),
          'without_cta', (select count(*) from b where cta_type is null and cta_text is null)::int) as data`,

      "landing-pages": () => sql`
        select json_build_object(
          'urls', coalesce((select json_agg(json_build_object('url', t.url, 'domain', t.domain, 'ads', t.ads, 'active', t.active,
                                                              'first_seen', ${iso("t.first_seen")}, 'last_seen', ${iso("t.last_seen")})
                                            order by t.ads desc, t.url collate "C")
                              from (select landing_url as url, min(landing_domain) as domain, count(*)::int as ads,
                                           (count(*) filter (where status = 'active'))::int as active, min(first_seen) as first_seen, max(last_seen) as last_seen
                                      from b where landing_url is not null
                                     group by 1 order by ads desc, landing_url collate "C" limit ${topItems}) t), '[]'::json),
          'domains', coalesce((select json_agg(json_build_object('domain', t.domain, 'urls', t.urls, 'ads', t.ads, 'active', t.active,
                                                                 'first_seen', ${iso("t.first_seen")}, 'last_seen', ${iso("t.last_seen")})
                                               order by t.ads desc, t.domain collate "C")
                                 from (select landing_domain as domain, count(distinct landing_url)::int as urls, count(*)::int as ads,
                                              (count(*) filter (where status = 'active'))::int as active, min(first_seen) as first_seen, max(last_seen) as last_seen
                                         from b where landing_domain is not null
                                        group by 1 order by ads desc, landing_domain collate "C" limit ${topItems}) t), '[]'::json),
          'without_landing', (select count(*) from b where landing_url is null)::int) as data`,

      products: () => sql`
        select json_build_object(
          'products', ${rank(of(product), "product", { span: true })},
          'unknown', (select count(*) from b where ${product} is null)::int) as data`,

      formats: (scope) => sql`
        select json_build_object(
          'formats', ${rank(of(sql`b.format`), "format")},
          'weeks', ${
        weekly(
          scope,
          sql.csv(formats.map((f) => sql`${f}::text, (count(b.id) filter (where b.format = ${f}))::int`)),
          sql`b.first_seen < ${weekEnd} and b.last_seen >= ${weekStart}`
        )
      }) as data`,

      platforms: () => sql`
        select json_build_object(
          'libraries', ${rank(of(sql`b.library`), "library")},
          'placements', ${rank(of(sql`p.k`, sql`b cross join unnest(b.publisher_platforms) as p(k)`), "placement")}) as data`,

      countries: () => sql`
        select json_build_object(
          'countries', ${rank(of(sql`c.k`, sql`b cross join unnest(b.countries) as c(k)`), "country", { limit: 250 })},
          'untargeted', (select count(*) from b where cardinality(countries) = 0)::int) as data`,

      languages: () => sql`
        select json_build_object(
          'languages', ${rank(of(sql`l.k`, sql`b cross join unnest(b.languages) as l(k)`), "language", { limit: 50 })},
          'unknown', (select count(*) from b where cardinality(languages) = 0)::int) as data`,

      "launch-cadence": (scope) => sql`
        , w as (select w.week, count(b.id)::int as launched
                  from unnest(${scope.weeks}::date[]) as w(week)
                  left join b on b.first_seen >= ${weekStart} and b.first_seen < ${weekEnd} and ${launchedIn(scope)}
                 group by w.week)
        select json_build_object(
          'weeks', coalesce((select json_agg(json_build_object('week', to_char(week, 'YYYY-MM-DD'), 'launched', launched) order by week) from w), '[]'::json),
          'launched', (select count(*) from b where ${launchedIn(scope)})::int,
          'average_per_week', (select count(*) from b where ${launchedIn(scope)})::float8 / ${scope.weeks.length},
          'busiest_week', (select to_char(week, 'YYYY-MM-DD') from w where launched > 0 order by launched desc, week limit 1)) as data`,

      winners: () => sql`
        select json_build_object('ads', ${adList(sql`b`, sql`days_running desc, first_seen, external_id collate "C"`)}) as data`,

      "new-this-week": (scope) => sql`
        select json_build_object(
          'since', to_char(${scope.since.d7}::timestamptz at time zone 'UTC', 'YYYY-MM-DD'),
          'total', (select count(*) from b where first_seen >= ${scope.since.d7})::int,
          'ads', ${adList(sql`b where first_seen >= ${scope.since.d7}`, sql`first_seen desc, external_id collate "C"`)}) as data`,

      movers: (scope) => {
        const bucket = (where: Fragment, order: Fragment) =>
          sql`json_build_object('ads', (select count(*) from b where ${where})::int, 'items', ${adList(sql`b where ${where}`, order)})`
        return sql`
          select json_build_object(
            'scaling', ${bucket(sql`status = 'active' and first_seen < ${scope.since.d14}`, sql`days_running desc, first_seen, external_id collate "C"`)},
            'testing', ${bucket(sql`status = 'active' and first_seen >= ${scope.since.d14}`, sql`first_seen desc, external_id collate "C"`)},
            'stopped', ${bucket(sql`status = 'inactive'`, sql`last_seen desc, external_id collate "C"`)}) as data`
      },

      variants: () => sql`
        select json_build_object(
          'groups', coalesce((select json_agg(json_build_object('group', t.grp, 'headlines', t.headlines, 'ads', t.ads, 'active', t.active,
                                                                'first_seen', ${iso("t.first_seen")}, 'last_seen', ${iso("t.last_seen")})
                                              order by t.ads desc, t.grp collate "C")
                                from (select variant_group as grp, count(distinct headline)::int as headlines, count(*)::int as ads,
                                             (count(*) filter (where status = 'active'))::int as active, min(first_seen) as first_seen, max(last_seen) as last_seen
                                        from b where variant_group is not null
                                       group by 1 order by ads desc, variant_group collate "C" limit ${topItems}) t), '[]'::json),
          'grouped_ads', (select count(*) from b where variant_group is not null)::int,
          'single_ads', (select count(*) from b where variant_group is null)::int) as data`,

      "video-lengths": () => sql`
        , v as (select b.status, ${videoSeconds} as seconds from b where b.format = 'video')
        select json_build_object(
          'video_ads', (select count(*) from v)::int,
          'with_length', (select count(seconds) from v)::int,
          'median_seconds', (select percentile_cont(0.5) within group (order by seconds) from v),
          'buckets', (select json_agg(json_build_object('bucket', k.bucket, 'min_seconds', k.lo, 'max_seconds', k.hi,
                                      'ads', (select count(*) from v where v.seconds >= k.lo and (k.hi is null or v.seconds < k.hi))::int,
                                      'active', (select count(*) from v where v.status = 'active' and v.seconds >= k.lo and (k.hi is null or v.seconds < k.hi))::int)
                                      order by k.n)
                        from unnest(${videoLengthBuckets.map((k) => k.bucket)}::text[], ${videoLengthBuckets.map((k) => k.min)}::int[],
                                    ${videoLengthBuckets.map((k) => k.max)}::int[]) with ordinality as k(bucket, lo, hi, n))) as data`,

      reach: () => sql`
        select json_build_object(
          'impressions', ${rangeStats("impressions_lower", "impressions_upper")},
          'reach', ${rangeStats("reach_lower", "reach_upper")},
          'spend', json_build_object(
            'reported', (select count(spend_lower) from b)::int,
            'unreported', (select count(*) - count(spend_lower) from b)::int,
            'currencies', coalesce((select json_agg(json_build_object('currency', c.currency) ::jsonb || ${rangeStats("spend_lower", "spend_upper", sql`b.spend_currency = c.currency`)}::jsonb order by c.currency collate "C")
                                      from (select distinct spend_currency as currency from b where spend_lower is not null and spend_currency is not null) c), '[]'::json))) as data`,

      engagement: () => {
        const shows = sql.literal("(likes is not null or comments is not null or shares is not null or views is not null)")
        const item = sql`(${tabAd}::jsonb || jsonb_build_object('likes', likes, 'comments', comments, 'shares', shares, 'views', views, 'engagement', engagement))`
        return sql`
          select json_build_object(
            'ads_with_engagement', (select count(*) from b where ${shows})::int,
            'likes', (select sum(likes) from b), 'comments', (select sum(comments) from b),
            'shares', (select sum(shares) from b), 'views', (select sum(views) from b),
            'top', ${adList(sql`b where ${shows}`, sql`engagement desc, first_seen, external_id collate "C"`, adsShown, item)}) as data`
      },

      seasonality: (scope) => sql`
        select json_build_object(
          'months', (select json_agg(json_build_object('month', to_char(m.month, 'YYYY-MM'), 'launched',
                                       (select count(*) from b where ${launchedIn(scope)} and b.first_seen >= (m.month::timestamp at time zone 'UTC')
                                          and b.first_seen < ((m.month + interval '1 month') at time zone 'UTC'))::int) order by m.month)
                       from unnest(${scope.months}::date[]) as m(month)),
          'weekdays', (select json_agg(json_build_object('weekday', trim(to_char(date '2024-01-01' + d.n - 1, 'Day')), 'launched',
                                         (select count(*) from b where ${launchedIn(scope)} and extract(isodow from b.first_seen at time zone 'UTC') = d.n)::int) order by d.n)
                         from generate_series(1, 7) as d(n))) as data`,

      niches: () => sql`
        select json_build_object(
          'niches', ${rank(of(sql`b.niche`), "niche")},
          'unknown', (select count(*) from b where niche is null)::int) as data`
    }

    const dataOf = <T extends SqlTab>(tab: T, scope: TabScope): Effect.Effect<TabData<T>> =>
      sql<{ readonly data: unknown }>`with ${periodAds(scope)} ${statements[tab](scope)}`.pipe(
        // (`as`: indexing the table by a type parameter types the schema as any tab's; it is tab `T`'s.)
        Effect.flatMap((rows) => Schema.decodeUnknown(brandTabs[tab].data as Schema.Schema<TabData<T>, unknown>)(rows[0]?.data)),
        Effect.orDie
      )

    return {
      brand: (id: string) => Effect.orDie(findBrand(id)),

      advertisers: (brand: BrandRow, libraries: ReadonlyArray<Library>) =>
        Effect.map(Effect.orDie(findAdvertisers({ brand, libraries })), (rows) => rows.map((r) => r.row)),

      data: dataOf,

      /** The period's video ads of the brand, newest first: what the transcripts tab looks up. */
      videoAds: (scope: TabScope) =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: VideoAd,
          execute: () => sql`with ${periodAds(scope)}
            select external_id as ad_id, library, ${iso("first_seen")} as first_seen, ${videoSeconds} as duration_seconds
              from b where format = 'video' order by b.first_seen desc, external_id collate "C"`
        })(undefined).pipe(Effect.orDie)
    }
  })
}) {}
