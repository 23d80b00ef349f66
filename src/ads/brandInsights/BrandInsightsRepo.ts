import { SqlClient, SqlSchema } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import { BrandId } from "../../kernel/Ids.js"
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
import { adsShown, type BrandTabs, brandTabs, type TabData, type TabName, topItems } from "./Tabs.js"
import { ReadSql } from "../../platform/db/Replicas.js"

/** An advertiser's row id (`advertisers.id`, a bigint as text): what the ads of a tab are read by. */
export const AdvertiserRowId = Schema.String.pipe(Schema.brand("AdvertiserRowId"))
export type AdvertiserRowId = typeof AdvertiserRowId.Type

/** A brand: a social-network page (INTERPRETATIONS W1). `row` is its advertiser row id. */
export const BrandRow = Schema.Struct({
  row: AdvertiserRowId,
  id: BrandId,
  name: Schema.String,
  domain: Schema.NullOr(Schema.String)
})
export type BrandRow = typeof BrandRow.Type

/**
 * The ads a tab reads: the advertisers standing for the brand in the libraries asked for, the
 * period as instants (`end` excluded) and its days, and the countries asked for.
 */
export interface TabScope {
  readonly advertisers: ReadonlyArray<AdvertiserRowId>
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

/**
 * The tabs' schemas of `data`, typed per tab: indexing this mapped type by a tab `T` gives tab
 * `T`'s schema (`brandTabs[T]` would give the union of every tab's), so decoding needs no cast.
 */
const tabSchemas: { readonly [T in SqlTab]: { readonly data: Schema.Schema<TabData<T>, BrandTabs[T]["data"]["Encoded"]> } } = brandTabs

/** What a tab's statement reads: its answer, and how many of its ads had no stored signals holding. */
const TabRow = Schema.Struct({ data: Schema.Unknown, stale: Schema.Int })

/** What every tab reads of an ad (`TabAd` and the period's counts). */
const baseColumns = ["id", "external_id", "library", "status", "format", "headline", "first_seen", "last_seen", "days_running", "landing_url"] as const
/** The other columns a tab may read. */
type Column =
  | "body" | "landing_domain" | "cta_type" | "cta_text" | "countries" | "languages" | "publisher_platforms"
  | "impressions_lower" | "impressions_upper" | "reach_lower" | "reach_upper" | "spend_lower" | "spend_upper" | "spend_currency"
  | "likes" | "comments" | "shares" | "views" | "engagement" | "niche" | "hook" | "angle" | "persona" | "variant_group"

/** The signals derived from an ad's copy, landing URL and media, as `brand_ad_signals` stores them (migration 0030). */
const signalColumns = ["hook", "angle", "persona", "offers", "percents", "codes", "emoji", "product", "video_seconds"] as const
type SignalColumn = (typeof signalColumns)[number]

/**
 * What a statement splices into its text (`sql.literal`) comes from these closed lists, never from
 * a caller's string: the instants of an ad, and the names a statement reads rows under (`a`: `ads`,
 * `b`: the period's ads, `l`: its launches, `t`: a ranked or grouped row).
 */
type Seen = "first_seen" | "last_seen"
type Alias = "a" | "b" | "l" | "t"
/** An instant column, or the earliest or latest of one over a group. */
type SeenExpression = Seen | `${Alias}.${Seen}` | `${"min" | "max"}(${Seen})`
/** The field naming the value of a ranked list's items (`rank`); a parameter, but from the tabs' declared names. */
type RankKey =
  | "library" | "country" | "text" | "emoji" | "hook" | "angle" | "persona" | "offer" | "percent" | "code"
  | "product" | "format" | "placement" | "language" | "niche"
/** The reported ranges of an ad: each a `<range>_lower`, `<range>_upper` column pair. */
type Range = "impressions" | "reach" | "spend"
/** An ad's formats, as the `formats` tab counts them per week. */
const formats = ["image", "video", "carousel", "text", "dpa"] as const
/** The counts a weekly series carries (`weekly`): launches, or the ads running per format. */
type WeekCount = "launched" | (typeof formats)[number]

/** Names the rules the stored signals were derived with: rows derived with other rules no longer hold. */
const rulesDigest = createHash("sha256")
  .update(JSON.stringify([offerSignals, angleSignals, personaSignals, hookPattern, maxHookChars, percentPattern, codePattern, emojiPattern, productHandlePattern, lastSegmentPattern]))
  .digest("hex")
  .slice(0, 16)

/** What a tab's statement reads: the columns of `b` beyond the base ones, and the derived signals (as `d_<signal>`). */
interface Reads {
  readonly columns: ReadonlyArray<Column>
  readonly signals: ReadonlyArray<SignalColumn>
}
interface Statement {
  readonly reads: Reads
  readonly answer: (scope: TabScope) => Fragment
}
const reading = (
  columns: ReadonlyArray<Column>,
  answer: (scope: TabScope) => Fragment,
  signals: ReadonlyArray<SignalColumn> = []
): Statement => ({ reads: { columns, signals }, answer })

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
    // The tabs are read on a healthy replica when one is configured (issue 31). A tab derives
    // the signals an ad has none stored for, so it answers the same there; the signals it then
    // stores for next time are written on the primary.
    const read = yield* ReadSql

    const findBrand = SqlSchema.findOne({
      Request: BrandId,
      Result: BrandRow,
      execute: (id) => read`
        select id::text as row, external_id as id, name, domain
          from advertisers where platform = 'social' and external_id = ${id}`
    })

    /** The page itself, and in the other libraries the advertisers with the page's domain. */
    const findAdvertisers = SqlSchema.findAll({
      Request: Schema.Struct({ brand: BrandRow, libraries: Schema.Array(Schema.String) }),
      Result: Schema.Struct({ row: AdvertiserRowId }),
      execute: ({ brand, libraries }) => read`
        select id::text as row from advertisers
         where platform = any(${libraries}::text[])
           and (id = ${brand.row}::bigint or (${brand.domain}::text is not null and domain = ${brand.domain} and platform <> 'social'))`
    })

    const iso = (instant: SeenExpression) => sql.literal(`to_char(${instant} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`)

    /** The period's ads of the brand (`a`), in the libraries and countries asked for. */
    const inScope = (scope: TabScope) =>
      sql.and([
        sql`a.advertiser_id = any(${scope.advertisers}::bigint[])`,
        sql`a.first_seen < ${scope.end}`,
        sql`a.last_seen >= ${scope.start}`,
        ...(scope.countries === undefined ? [] : [sql`a.countries && ${scope.countries}::text[]`])
      ])

    /** Each derived signal of an ad `a` whose copy is `a.copy` (CopySignals.ts), as SQL. */
    const firstSignal = (signals: ReadonlyArray<Signal>) =>
      sql`(select s.name from unnest(${names(signals)}::text[], ${patterns(signals)}::text[]) with ordinality as s(name, pattern, n)
            where a.copy ~* s.pattern order by s.n limit 1)`
    const discount = offerSignals.find((signal) => signal.name === "discount")!.pattern
    const derive: { readonly [K in SignalColumn]: Fragment } = {
      hook: sql`left(coalesce(substring(a.copy from ${hookPattern}), split_part(a.copy, E'\\n', 1)), ${maxHookChars})`,
      angle: firstSignal(angleSignals),
      persona: firstSignal(personaSignals),
      offers: sql`array(select s.name from unnest(${names(offerSignals)}::text[], ${patterns(offerSignals)}::text[]) with ordinality as s(name, pattern, n)
                         where a.copy ~* s.pattern order by s.n)`,
      percents: sql`case when a.copy ~* ${discount}
                         then array(select distinct (m.m[1])::int from regexp_matches(a.copy, ${percentPattern}, 'gi') as m(m) order by 1)
                         else '{}'::int[] end`,
      codes: sql`array(select distinct upper(m.m[1]) from regexp_matches(a.copy, ${codePattern}, 'gi') as m(m) order by 1)`,
      emoji: sql`array(select distinct m.m[1] from regexp_matches(a.copy, ${emojiPattern}, 'g') as m(m) order by 1)`,
      product: sql`lower(coalesce(substring(a.landing_url from ${productHandlePattern}), substring(a.landing_url from ${lastSegmentPattern})))`,
      video_seconds: sql`(select (m.value->>'duration_seconds')::float8 from jsonb_array_elements(a.media) with ordinality as m(value, n)
                           where m.value->>'type' = 'video' order by m.n limit 1)`
    }
    // The ads with their copy as one text, as a subquery of the table (on Citus a lateral subquery without a table would not run on the shards).
    const withCopy = sql`(select a.*, nullif(concat_ws(E'\\n', a.body, a.headline, a.description), '') as copy from ads a) a`
    const holding = sql`s.advertiser_id = a.advertiser_id and s.ad_id = a.id and s.content_hash = a.content_hash and s.rules = ${rulesDigest}`

    /**
     * `b`: the period's ads of the brand with the columns a tab reads and, when it reads them,
     * the derived signals as `d_<signal>`: the stored row's when it holds, else derived here.
     */
    const periodAds = (scope: TabScope, reads: Reads) => {
      const columns = [...baseColumns, ...reads.columns].map((column) => sql.literal(`a.${column}`))
      const derived = reads.signals.map((column) =>
        sql`case when s.ad_id is null then ${derive[column]} else s.${sql.literal(column)} end as ${sql.literal(`d_${column}`)}`
      )
      const signalled = reads.signals.length > 0
      // `held`: whether the stored signals held for the row (else they were derived here, and are stored after the answer).
      const held = signalled ? [sql`s.ad_id is not null as held`] : []
      return sql`b as materialized (
        select ${sql.csv([...columns, ...derived, ...held])}
          from ${signalled ? sql`${withCopy} left join brand_ad_signals s on ${holding}` : sql`ads a`}
         where ${inScope(scope)})`
    }

    /** Stores the derived signals of the period's ads that have no holding row (CopySignals.ts; migration 0030). */
    const refreshSignals = (scope: TabScope) =>
      sql`insert into brand_ad_signals (advertiser_id, ad_id, content_hash, rules, ${sql.csv(signalColumns.map((column) => sql.literal(column)))})
          select a.advertiser_id, a.id, a.content_hash, ${rulesDigest}, ${sql.csv(signalColumns.map((column) => derive[column]))}
            from ${withCopy}
           where ${inScope(scope)} and not exists (select 1 from brand_ad_signals s where ${holding})
           -- In id order: concurrent refreshes of overlapping ads lock their rows in one order, never a deadlock.
           order by a.id
          on conflict (advertiser_id, ad_id) do update
             set ${sql.csv(["content_hash", "rules", ...signalColumns].map((column) => sql.literal(`${column} = excluded.${column}`)))}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

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
     * A ranked list of the values `k` that `source` (rows of `k`, `status`, `first_seen`,
     * `last_seen`; one row per ad and value) yields: the ads with each, most first, ties by the
     * value's text. Counting rows, not distinct ids, lets PostgreSQL group by hashing.
     */
    const rank = (source: Fragment, key: RankKey, { active = true, limit = topItems, span = false }: RankOptions = {}) =>
      sql`coalesce((select json_agg(json_build_object(${key}::text, t.k, 'ads', t.ads
          ${active ? sql`, 'active', t.active` : sql``}
          ${span ? sql`, 'first_seen', ${iso("t.first_seen")}, 'last_seen', ${iso("t.last_seen")}` : sql``}) order by t.ads desc, t.k::text collate "C")
        from (select s.k, count(*)::int as ads, (count(*) filter (where s.status = 'active'))::int as active,
                     min(s.first_seen) as first_seen, max(s.last_seen) as last_seen
                from (${source}) s where s.k is not null
               group by s.k order by ads desc, s.k::text collate "C" limit ${limit}) t), '[]'::json)`

    /**
     * The rows of `b` once per distinct element of an array column: `e.k`. A record's lists may
     * repeat a value; the derived signals' arrays hold each value once by construction.
     */
    const each = (column: Column | `d_${SignalColumn}`) =>
      column.startsWith("d_")
        ? sql`b cross join unnest(b.${sql.literal(column)}) as e(k)`
        : sql`b cross join lateral (select distinct u.k from unnest(b.${sql.literal(column)}) as u(k)) as e`

    const of = (key: Fragment, from: Fragment = sql`b`) => sql`select ${key} as k, b.status, b.first_seen, b.last_seen from ${from}`

    /** A tagged field, else derived from the copy: the ranked values and how many ads came by each way. */
    const taggedOrDerived = (column: "angle" | "persona") => sql`
      with t as (select b.id, b.status, b.first_seen, b.last_seen, b.${sql.literal(column)} is not null as tagged,
                     coalesce(b.${sql.literal(column)}, b.${sql.literal(`d_${column}`)}) as k from b)
      select json_build_object(
        ${`${column}s`}::text, ${rank(sql`select k, status, first_seen, last_seen from t`, column)},
        'tagged', (select count(*) filter (where tagged) from t)::int,
        'derived', (select count(*) filter (where not tagged and k is not null) from t)::int,
        'unknown', (select count(*) filter (where k is null) from t)::int) as data`

    /** A range column pair as `RangeStats`, over the rows of `b` that `where` keeps. */
    const rangeStats = (range: Range, where: Fragment = sql`true`) => {
      const [lo, up] = [sql.literal(`${range}_lower` satisfies Column), sql.literal(`${range}_upper` satisfies Column)]
      return sql`(select json_build_object(
          'reported', count(${lo})::int,
          'unreported', (count(*) - count(${lo}))::int,
          'lower_total', coalesce(sum(${lo}), 0),
          'upper_total', case when count(${lo}) = 0 or count(${up}) < count(${lo}) then null else sum(${up}) end,
          'ranges', coalesce((select json_agg(json_build_object('lower', r.lower, 'upper', r.upper, 'ads', r.ads) order by r.lower, r.upper nulls last)
                                from (select ${lo} as lower, ${up} as upper, count(*)::int as ads from b where ${where} and ${lo} is not null group by 1, 2) r), '[]'::json))
        from b where ${where})`
    }

    /**
     * Per week of the period (its Mondays, `scope.weeks`), the `counts` over the rows of `b` in
     * it: each row of `source` (rows of `week` and the columns `counts` reads), zeros included.
     */
    const weekly = (scope: TabScope, source: Fragment, counts: ReadonlyArray<readonly [WeekCount, Fragment]>) =>
      sql`coalesce((select json_agg(json_build_object('week', to_char(w.week, 'YYYY-MM-DD'),
                                      ${sql.csv(counts.map(([name]) => sql`${name}::text, coalesce(t.${sql.literal(name)}, 0)`))}) order by w.week)
                      from unnest(${scope.weeks}::date[]) as w(week)
                      left join (select r.week::date as week, ${sql.csv(counts.map(([name, count]) => sql`(${count})::int as ${sql.literal(name)}`))}
                                   from (${source}) r group by 1) t on t.week = w.week), '[]'::json)`
    const mondayOf = (column: `${Alias}.${Seen}`) => sql.literal(`date_trunc('week', ${column} at time zone 'UTC')`)

    const hook = sql`coalesce(b.hook, b.d_hook)`
    const launchedIn = (scope: TabScope) => sql`b.first_seen >= ${scope.start}`
    /** The period's launches: rows of `b` first seen within it. */
    const launches = (scope: TabScope) => sql`select * from b where ${launchedIn(scope)}`

    /** Each tab's query over `b` (its own `with` may follow), and what it reads of the ads; `data` is its answer. */
    const statements: { readonly [T in SqlTab]: Statement } = {
      "overview-cards": reading(["countries"], (scope) => sql`
        with o as (select count(*)::int as total, (count(*) filter (where status = 'active'))::int as active,
                       (count(*) filter (where first_seen >= ${scope.since.d1}))::int as new_1d,
                       (count(*) filter (where first_seen >= ${scope.since.d7}))::int as new_7d,
                       (count(*) filter (where first_seen >= ${scope.since.d30}))::int as new_30d,
                       percentile_cont(0.5) within group (order by days_running) as median_days_running,
                       ${iso("min(first_seen)")} as first_seen, ${iso("max(last_seen)")} as last_seen
                  from b)
        select json_build_object(
          'total', o.total, 'active', o.active, 'new_1d', o.new_1d, 'new_7d', o.new_7d, 'new_30d', o.new_30d,
          'median_days_running', o.median_days_running,
          'top_format', (select format from b group by format order by count(*) desc, format collate "C" limit 1),
          'first_seen', o.first_seen, 'last_seen', o.last_seen,
          'libraries', ${rank(of(sql`b.library`), "library", { active: false })},
          'countries', ${rank(of(sql`e.k`, each("countries")), "country", { active: false, limit: 10 })}) as data
          from o`),

      "ad-copies": reading(["body"], () => {
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
              'ads', (select count(*) from b where cardinality(b.d_emoji) > 0)::int,
              'top', ${rank(of(sql`e.k`, each("d_emoji")), "emoji", { active: false, limit: 10 })})) as data`
      }, ["emoji"]),

      hooks: reading(["hook"], () => sql`
        select json_build_object(
          'hooks', ${rank(of(hook), "hook", { span: true })},
          'tagged', (select count(*) from b where b.hook is not null)::int,
          'derived', (select count(*) from b where b.hook is null and b.d_hook is not null)::int) as data`, ["hook"]),

      angles: reading(["angle"], () => taggedOrDerived("angle"), ["angle"]),
      personas: reading(["persona"], () => taggedOrDerived("persona"), ["persona"]),

      offers: reading([], () => sql`
        select json_build_object(
          'ads_with_offer', (select count(*) from b where cardinality(b.d_offers) > 0)::int,
          'offers', ${rank(of(sql`e.k`, each("d_offers")), "offer")},
          'discounts', ${rank(of(sql`e.k`, each("d_percents")), "percent", { active: false })},
          'codes', ${rank(of(sql`e.k`, each("d_codes")), "code", { active: false })}) as data`, ["offers", "percents", "codes"]),

      ctas: reading(["cta_type", "cta_text"], () => sql`
        select json_build_object(
          'ctas', coalesce((select json_agg(json_build_object('type', t.type, 'text', t.text, 'ads', t.ads, 'active', t.active)
                                            order by t.ads desc, t.type collate "C", t.text collate "C")
                              from (select cta_type as type, cta_text as text, count(*)::int as ads, (count(*) filter (where status = 'active'))::int as active
                                      from b where cta_type is not null or cta_text is not null
                                     group by 1, 2 order by ads desc, cta_type collate "C", cta_text collate "C" limit ${topItems}) t), '[]'::json),
          'without_cta', (select count(*) from b where cta_type is null and cta_text is null)::int) as data`),

      "landing-pages": reading(["landing_domain"], () => sql`
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
          'without_landing', (select count(*) from b where landing_url is null)::int) as data`),

      products: reading([], () => sql`
        select json_build_object(
          'products', ${rank(of(sql`b.d_product`), "product", { span: true })},
          'unknown', (select count(*) from b where b.d_product is null)::int) as data`, ["product"]),

      formats: reading([], (scope) => {
        // A week counts an ad when its span meets the week: the weeks from its first sighting's Monday to its last's.
        const running = sql`select w.week, b.format from b cross join lateral generate_series(
            greatest(${mondayOf("b.first_seen")}, ${scope.weeks[0]!}::timestamp),
            least(${mondayOf("b.last_seen")}, ${scope.weeks.at(-1)!}::timestamp), interval '1 week') as w(week)`
        return sql`
          select json_build_object(
            'formats', ${rank(of(sql`b.format`), "format")},
            'weeks', ${weekly(scope, running, formats.map((f) => [f, sql`count(*) filter (where r.format = ${f})`] as const))}) as data`
      }),

      platforms: reading(["publisher_platforms"], () => sql`
        select json_build_object(
          'libraries', ${rank(of(sql`b.library`), "library")},
          'placements', ${rank(of(sql`e.k`, each("publisher_platforms")), "placement")}) as data`),

      countries: reading(["countries"], () => sql`
        select json_build_object(
          'countries', ${rank(of(sql`e.k`, each("countries")), "country", { limit: 250 })},
          'untargeted', (select count(*) from b where cardinality(countries) = 0)::int) as data`),

      languages: reading(["languages"], () => sql`
        select json_build_object(
          'languages', ${rank(of(sql`e.k`, each("languages")), "language", { limit: 50 })},
          'unknown', (select count(*) from b where cardinality(languages) = 0)::int) as data`),

      "launch-cadence": reading([], (scope) => {
        const weeks = weekly(scope, sql`select ${mondayOf("l.first_seen")} as week from (${launches(scope)}) l`, [["launched", sql`count(*)`]])
        return sql`
          with w as (select x.value->>'week' as week, (x.value->>'launched')::int as launched from json_array_elements(${weeks}) as x(value))
          select json_build_object(
            'weeks', ${weeks},
            'launched', (select count(*) from b where ${launchedIn(scope)})::int,
            'average_per_week', (select count(*) from b where ${launchedIn(scope)})::float8 / ${scope.weeks.length},
            'busiest_week', (select week from w where launched > 0 order by launched desc, week limit 1)) as data`
      }),

      winners: reading([], () => sql`
        select json_build_object('ads', ${adList(sql`b`, sql`days_running desc, first_seen, external_id collate "C"`)}) as data`),

      "new-this-week": reading([], (scope) => sql`
        select json_build_object(
          'since', to_char(${scope.since.d7}::timestamptz at time zone 'UTC', 'YYYY-MM-DD'),
          'total', (select count(*) from b where first_seen >= ${scope.since.d7})::int,
          'ads', ${adList(sql`b where first_seen >= ${scope.since.d7}`, sql`first_seen desc, external_id collate "C"`)}) as data`),

      movers: reading([], (scope) => {
        const bucket = (where: Fragment, order: Fragment) =>
          sql`json_build_object('ads', (select count(*) from b where ${where})::int, 'items', ${adList(sql`b where ${where}`, order)})`
        return sql`
          select json_build_object(
            'scaling', ${bucket(sql`status = 'active' and first_seen < ${scope.since.d14}`, sql`days_running desc, first_seen, external_id collate "C"`)},
            'testing', ${bucket(sql`status = 'active' and first_seen >= ${scope.since.d14}`, sql`first_seen desc, external_id collate "C"`)},
            'stopped', ${bucket(sql`status = 'inactive'`, sql`last_seen desc, external_id collate "C"`)}) as data`
      }),

      variants: reading(["variant_group"], () => sql`
        select json_build_object(
          'groups', coalesce((select json_agg(json_build_object('group', t.grp, 'headlines', t.headlines, 'ads', t.ads, 'active', t.active,
                                                                'first_seen', ${iso("t.first_seen")}, 'last_seen', ${iso("t.last_seen")})
                                              order by t.ads desc, t.grp collate "C")
                                from (select variant_group as grp, count(distinct headline)::int as headlines, count(*)::int as ads,
                                             (count(*) filter (where status = 'active'))::int as active, min(first_seen) as first_seen, max(last_seen) as last_seen
                                        from b where variant_group is not null
                                       group by 1 order by ads desc, variant_group collate "C" limit ${topItems}) t), '[]'::json),
          'grouped_ads', (select count(*) from b where variant_group is not null)::int,
          'single_ads', (select count(*) from b where variant_group is null)::int) as data`),

      "video-lengths": reading([], () => sql`
        with v as (select b.status, b.d_video_seconds as seconds from b where b.format = 'video')
        select json_build_object(
          'video_ads', (select count(*) from v)::int,
          'with_length', (select count(seconds) from v)::int,
          'median_seconds', (select percentile_cont(0.5) within group (order by seconds) from v),
          'buckets', (select json_agg(json_build_object('bucket', k.bucket, 'min_seconds', k.lo, 'max_seconds', k.hi, 'ads', k.ads, 'active', k.active) order by k.n)
                        from (select k.bucket, k.lo, k.hi, k.n, count(v.seconds)::int as ads, (count(v.seconds) filter (where v.status = 'active'))::int as active
                                from unnest(${videoLengthBuckets.map((k) => k.bucket)}::text[], ${videoLengthBuckets.map((k) => k.min)}::int[],
                                            ${videoLengthBuckets.map((k) => k.max)}::int[]) with ordinality as k(bucket, lo, hi, n)
                                left join v on v.seconds >= k.lo and (k.hi is null or v.seconds < k.hi)
                               group by k.bucket, k.lo, k.hi, k.n) k)) as data`, ["video_seconds"]),

      reach: reading(["impressions_lower", "impressions_upper", "reach_lower", "reach_upper", "spend_lower", "spend_upper", "spend_currency"], () => sql`
        select json_build_object(
          'impressions', ${rangeStats("impressions")},
          'reach', ${rangeStats("reach")},
          'spend', json_build_object(
            'reported', (select count(spend_lower) from b)::int,
            'unreported', (select count(*) - count(spend_lower) from b)::int,
            'currencies', coalesce((select json_agg(json_build_object('currency', c.currency) ::jsonb || ${rangeStats("spend", sql`b.spend_currency = c.currency`)}::jsonb order by c.currency collate "C")
                                      from (select distinct spend_currency as currency from b where spend_lower is not null and spend_currency is not null) c), '[]'::json))) as data`),

      engagement: reading(["likes", "comments", "shares", "views", "engagement"], () => {
        const shows = sql`(likes is not null or comments is not null or shares is not null or views is not null)`
        const item = sql`(${tabAd}::jsonb || jsonb_build_object('likes', likes, 'comments', comments, 'shares', shares, 'views', views, 'engagement', engagement))`
        return sql`
          select json_build_object(
            'ads_with_engagement', (select count(*) from b where ${shows})::int,
            'likes', (select sum(likes) from b), 'comments', (select sum(comments) from b),
            'shares', (select sum(shares) from b), 'views', (select sum(views) from b),
            'top', ${adList(sql`b where ${shows}`, sql`engagement desc, first_seen, external_id collate "C"`, adsShown, item)}) as data`
      }),

      seasonality: reading([], (scope) => sql`
        with l as (${launches(scope)})
        select json_build_object(
          'months', (select json_agg(json_build_object('month', to_char(m.month, 'YYYY-MM'), 'launched', coalesce(t.launched, 0)) order by m.month)
                       from unnest(${scope.months}::date[]) as m(month)
                       left join (select date_trunc('month', l.first_seen at time zone 'UTC')::date as month, count(*)::int as launched from l group by 1) t
                         on t.month = m.month),
          'weekdays', (select json_agg(json_build_object('weekday', trim(to_char(date '2024-01-01' + d.n - 1, 'Day')), 'launched', coalesce(t.launched, 0)) order by d.n)
                         from generate_series(1, 7) as d(n)
                         left join (select extract(isodow from l.first_seen at time zone 'UTC')::int as n, count(*)::int as launched from l group by 1) t
                           on t.n = d.n)) as data`),

      niches: reading(["niche"], () => sql`
        select json_build_object(
          'niches', ${rank(of(sql`b.niche`), "niche")},
          'unknown', (select count(*) from b where niche is null)::int) as data`)
    }

    /**
     * A tab's answer in one statement: its query over `b`, and how many of `b`'s rows had no
     * stored signals holding. Those are stored after answering, so the next read only counts.
     */
    const dataOf = <T extends SqlTab>(tab: T, scope: TabScope): Effect.Effect<TabData<T>> => {
      const { answer, reads } = statements[tab]
      return SqlSchema.findOne({
        Request: Schema.Void,
        Result: TabRow,
        execute: () => read`
        with ${periodAds(scope, reads)}, answer as (${answer(scope)})
        select answer.data, ${reads.signals.length > 0 ? sql`(select count(*) from b where not b.held)::int` : sql`0`} as stale from answer`
      })(undefined).pipe(
        Effect.orDie,
        Effect.tap((row) => Option.exists(row, ({ stale }) => stale > 0) ? refreshSignals(scope) : Effect.void),
        Effect.flatMap((row) => Effect.orDie(Schema.decodeUnknown(tabSchemas[tab].data)(Option.getOrUndefined(row)?.data)))
      )
    }

    return {
      brand: (id: BrandId) => Effect.orDie(findBrand(id)),

      advertisers: (brand: BrandRow, libraries: ReadonlyArray<Library>) =>
        Effect.map(Effect.orDie(findAdvertisers({ brand, libraries })), (rows) => rows.map((r) => r.row)),

      data: dataOf,

      /** The period's video ads of the brand, newest first: what the transcripts tab looks up. */
      videoAds: (scope: TabScope) =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: VideoAd,
          execute: () => read`
            select a.external_id as ad_id, a.library, ${iso("a.first_seen")} as first_seen, ${derive.video_seconds} as duration_seconds
              from ads a where ${inScope(scope)} and a.format = 'video' order by a.first_seen desc, a.external_id collate "C"`
        })(undefined).pipe(Effect.orDie)
    }
  })
}) {}
