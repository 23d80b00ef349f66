import { SqlClient, SqlSchema } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import { maxBrandDomains } from "./Api.js"
import { type EventType, maxAdIdsPerEvent } from "../../access/events/OutboxEvent.js"
import { AccountId, BrandId } from "../../kernel/Ids.js"

/** The row id of a social-library advertiser (a bigint as text): what a follow refers to. */
export const BrandRowId = Schema.String.pipe(Schema.brand("BrandRowId"))
export type BrandRowId = typeof BrandRowId.Type

/** A brand a request named, found in the library. */
export const BrandRef = Schema.Struct({ row: BrandRowId, id: BrandId, name: Schema.String, domain: Schema.NullOr(Schema.String) })
export type BrandRef = typeof BrandRef.Type

/** A tracked brand with its figures, as the list and `follow` show it (before the service's shaping). */
export const TrackedRow = Schema.Struct({
  id: BrandId,
  name: Schema.String,
  domain: Schema.NullOr(Schema.String),
  total_ads: Schema.Int,
  active_ads: Schema.Int,
  new_ads_7d: Schema.Int,
  new_ads_30d: Schema.Int,
  last_seen: Schema.NullOr(Schema.DateFromSelf),
  domains: Schema.Array(Schema.String),
  followed_at: Schema.DateFromSelf
})
export type TrackedRow = typeof TrackedRow.Type

/** An account that tracks brands, and since when (its first follow still held). */
export const Tracker = Schema.Struct({ account_id: AccountId, first_followed_at: Schema.DateFromSelf })
export type Tracker = typeof Tracker.Type

/** One of a brand's new ads, as a digest quotes it. */
export const NewAd = Schema.Struct({
  id: Schema.String,
  format: Schema.String,
  headline: Schema.NullOr(Schema.String),
  body: Schema.NullOr(Schema.String),
  first_seen: Schema.String
})
export type NewAd = typeof NewAd.Type

/** A tracked brand's ads first seen in a window: how many, and the newest few. */
export const BrandNews = Schema.Struct({
  id: BrandId,
  name: Schema.String,
  domain: Schema.NullOr(Schema.String),
  count: Schema.Int,
  ads: Schema.Array(NewAd)
})
export type BrandNews = typeof BrandNews.Type

const Count = Schema.Struct({ n: Schema.Int })

/** A tracked brand's ads that are new, or stopped, for one account that tracks it (H3). */
export const BrandDiff = Schema.Struct({
  account_id: AccountId,
  brand_id: BrandId,
  count: Schema.Int,
  ad_ids: Schema.Array(Schema.String)
})
export type BrandDiff = typeof BrandDiff.Type

/** What a follow did, and the brand as tracked; `present` (already tracked) and `full` (at the plan's limit) wrote nothing. */
export type Followed =
  | { readonly outcome: "added" | "present"; readonly brand: TrackedRow }
  | { readonly outcome: "full" }

const day = 86_400_000
/** A body as a digest quotes it. */
const quotedBody = 280

/** The SQL of the brand tracker: `brand_follows` (migration 0020) over the ad library's advertisers and ads. */
export class BrandsRepo extends Effect.Service<BrandsRepo>()("adintel/BrandsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** A diff's newest ads (at most 100), `key` latest first: what orders them, their row ids and their ids, in one order. */
    const newestAds = (key: string) => {
      const order = sql.literal(`order by ${key} desc, a.id desc`)
      return sql`(array_agg(${sql.literal(key)} ${order}))[1:${maxAdIdsPerEvent}] as sort_keys,
                 (array_agg(a.id ${order}))[1:${maxAdIdsPerEvent}] as ad_rows,
                 (array_agg(a.external_id ${order}))[1:${maxAdIdsPerEvent}] as ad_ids`
    }
    /** The pending rows of the `diffs` of a batch (`ImportEvents.pendingFrom`'s columns): one per account and brand. */
    const pendingOf = (type: EventType) => sql`
      select d.account_id, ${type}::text as type, d.brand_row::text as subject, jsonb_build_object('brand_id', d.brand_id) as data,
             d.count, d.sort_keys, d.ad_rows, d.ad_ids
        from diffs d`

    /** Tracked brands of `where` (over `brand_follows f`) with their figures at `now`, newest follow first. */
    const tracked = (where: Fragment, now: Date, window: { readonly limit: number; readonly offset: number }) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: TrackedRow,
        execute: () => sql`
          select adv.external_id as id, adv.name, adv.domain, s.total_ads, s.active_ads, s.new_ads_7d, s.new_ads_30d,
                 s.last_seen, s.domains, f.followed_at
            from brand_follows f
            join advertisers adv on adv.id = f.advertiser_id
           cross join lateral (
             -- One pass over the brand's ads, from its index alone (migration 0080): per landing
             -- domain, then summed.
             select coalesce(sum(g.n), 0)::int as total_ads, coalesce(sum(g.active), 0)::int as active_ads,
                    coalesce(sum(g.new_7d), 0)::int as new_ads_7d, coalesce(sum(g.new_30d), 0)::int as new_ads_30d,
                    max(g.last_seen) as last_seen,
                    coalesce((array_agg(g.domain order by g.n desc, g.domain) filter (where g.domain is not null))[1:${maxBrandDomains}], '{}') as domains
               from (select a.landing_domain as domain, count(*) as n,
                            count(*) filter (where a.status = 'active') as active,
                            count(*) filter (where a.first_seen > ${new Date(now.getTime() - 7 * day)} and a.first_seen <= ${now}) as new_7d,
                            count(*) filter (where a.first_seen > ${new Date(now.getTime() - 30 * day)} and a.first_seen <= ${now}) as new_30d,
                            max(a.last_seen) as last_seen
                       from ads a where a.advertiser_id = f.advertiser_id
                      group by a.landing_domain) g) s
           where ${where}
           order by f.followed_at desc, f.seq desc
           limit ${window.limit} offset ${window.offset}`
      })(undefined)

    /** How many brands the account tracks. */
    const trackedCount = (account: AccountId) =>
      SqlSchema.single({
        Request: Schema.Void,
        Result: Count,
        execute: () => sql`select count(*)::int as n from brand_follows where account_id = ${account}::uuid`
      })(undefined).pipe(Effect.map(({ n }) => n))

    /**
     * Writes that may grow an account's tracked brands run one at a time per account, so the
     * count the limit is checked against stays true until the insert (a transaction-scoped
     * advisory lock): the limit holds exactly under concurrent follows, from any replica.
     */
    const serialized = <A, E, R>(account: AccountId, effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(
        Effect.zipRight(sql`select pg_advisory_xact_lock(hashtext('adintel.brand_follows'), hashtext(${account}))`, effect)
      )

    return {
      /** A social-library advertiser by its id. */
      find: (id: BrandId): Effect.Effect<Option.Option<BrandRef>> =>
        SqlSchema.findOne({
          Request: Schema.Void,
          Result: BrandRef,
          execute: () => sql`
            select id::text as row, external_id as id, name, domain from advertisers
             where platform = 'social' and external_id = ${id}`
        })(undefined).pipe(Effect.orDie),

      /** One page of the account's tracked brands, and how many it tracks. */
      page: (account: AccountId, now: Date, window: { readonly limit: number; readonly offset: number }) =>
        Effect.all({
          rows: tracked(sql`f.account_id = ${account}::uuid`, now, window),
          total: trackedCount(account)
        }).pipe(Effect.orDie),

      /**
       * Follows under the account's lock and answers the brand as tracked, both in one
       * transaction; `present` and `full` write nothing.
       */
      follow: (account: AccountId, row: BrandRowId, now: Date, cap: number): Effect.Effect<Followed> =>
        serialized(
          account,
          Effect.gen(function*() {
            const present = yield* sql`select 1 from brand_follows where account_id = ${account}::uuid and advertiser_id = ${row}::bigint`
            if (present.length === 0) {
              if ((yield* trackedCount(account)) >= cap) return { outcome: "full" } as const
              yield* sql`insert into brand_follows (account_id, advertiser_id, followed_at) values (${account}::uuid, ${row}::bigint, ${now})`
            }
            const [brand] = yield* tracked(sql`f.account_id = ${account}::uuid and f.advertiser_id = ${row}::bigint`, now, { limit: 1, offset: 0 })
            return { outcome: present.length === 0 ? "added" : "present", brand: brand! } as const
          })
        ).pipe(Effect.orDie),

      unfollow: (account: AccountId, id: BrandId): Effect.Effect<void> =>
        sql`delete from brand_follows f using advertisers adv
             where f.account_id = ${account}::uuid and adv.id = f.advertiser_id
               and adv.platform = 'social' and adv.external_id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

      /** Accounts that track brands, by account id after `after`, at most `limit`. */
      trackers: (after: AccountId | null, limit: number): Effect.Effect<ReadonlyArray<Tracker>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: Tracker,
          execute: () => sql`
            select account_id::text, min(followed_at) as first_followed_at from brand_follows
             where ${after === null ? sql`true` : sql`account_id > ${after}::uuid`}
             group by account_id order by account_id limit ${limit}`
        })(undefined).pipe(Effect.orDie),

      /**
       * The account's tracked brands with ads first seen after `since` up to `until` (`from`
       * "follow": and after the brand was followed): how many, and the newest `first`; brands
       * without any are left out.
       */
      news: (
        account: AccountId,
        since: Date | null,
        until: Date,
        first: number,
        from: "follow" | "window"
      ): Effect.Effect<ReadonlyArray<BrandNews>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: BrandNews,
          execute: () => {
            const after = from === "follow" ? sql`greatest(f.followed_at, ${since}::timestamptz)` : sql`${since}::timestamptz`
            const inWindow = sql`b.advertiser_id = f.advertiser_id and b.first_seen > ${after} and b.first_seen <= ${until}`
            return sql`
            select adv.external_id as id, adv.name, adv.domain, c.count, l.ads
              from brand_follows f
              join advertisers adv on adv.id = f.advertiser_id
             cross join lateral (select count(*)::int as count from ads b where ${inWindow}) c
             cross join lateral (
               select coalesce(json_agg(json_build_object(
                        'id', n.external_id, 'format', n.format, 'headline', n.headline, 'body', left(n.body, ${quotedBody}),
                        'first_seen', to_char(n.first_seen at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                      ) order by n.first_seen desc, n.id desc), '[]') as ads
                 from (select b.id, b.external_id, b.format, b.headline, b.body, b.first_seen from ads b
                        where ${inWindow} order by b.first_seen desc, b.id desc limit ${first}) n) l
             where f.account_id = ${account}::uuid and c.count > 0
             order by c.count desc, adv.external_id`
          }
        })(undefined).pipe(Effect.orDie),

      /**
       * Tracked brands' ads among `adIds` (a batch's new ads), per account and brand: H3's
       * `brand.ads_new`, newest first seen first. In the same statement `pending` records them
       * as pending rows of the batch's import (`ImportEvents.pendingFrom`).
       */
      newAds: (adIds: ReadonlyArray<string>, pending: (source: Fragment) => Fragment): Effect.Effect<ReadonlyArray<BrandDiff>> =>
        adIds.length === 0 ? Effect.succeed([]) : SqlSchema.findAll({
          Request: Schema.Void,
          Result: BrandDiff,
          execute: () => sql`
            with diffs as (
              select f.account_id, adv.id as brand_row, adv.external_id as brand_id, count(*)::int as count,
                     ${newestAds("a.first_seen")}
                from ads a
                join brand_follows f on f.advertiser_id = a.advertiser_id
                join advertisers adv on adv.id = a.advertiser_id
               where a.id = any(${adIds}::bigint[])
               group by f.account_id, adv.id, adv.external_id
            ), pending as (${pending(pendingOf("brand.ads_new"))})
            select account_id::text, brand_id, count, ad_ids from diffs order by account_id, brand_id`
        })(undefined).pipe(Effect.orDie),

      /**
       * Tracked brands' ads that stopped (H3's `brand.ads_stopped`, rule in SPEC-NOTES): those of
       * `inactivated` (turned inactive by the batch), and the active ads of a tracked brand the
       * batch wrote ads of whose `last_seen` falls more than `behind` before the newest
       * `last_seen` of the brand's ads in the batch (the crawl saw the brand, not them). Each
       * stop is recorded once (`brand_ad_stops`): per account and brand, those recorded now,
       * last seen latest first, also recorded by `pending` as pending rows of the batch's import.
       */
      stoppedAds: (
        written: ReadonlyArray<string>,
        inactivated: ReadonlyArray<string>,
        behind: number,
        pending: (source: Fragment) => Fragment
      ): Effect.Effect<ReadonlyArray<BrandDiff>> =>
        written.length === 0 ? Effect.succeed([]) : SqlSchema.findAll({
          Request: Schema.Void,
          Result: BrandDiff,
          execute: () => sql`
            with crawl as (
              select a.advertiser_id, max(a.last_seen) as seen from ads a
               where a.id = any(${written}::bigint[])
                 and a.advertiser_id in (select f.advertiser_id from brand_follows f)
               group by a.advertiser_id
            ), stopped as (
              select a.advertiser_id, a.id, a.last_seen from ads a
               where a.id = any(${inactivated}::bigint[])
                 and a.advertiser_id in (select f.advertiser_id from brand_follows f)
              union
              select a.advertiser_id, a.id, a.last_seen from crawl c
                join ads a on a.advertiser_id = c.advertiser_id
               where a.status = 'active' and a.last_seen < c.seen - make_interval(secs => ${behind / 1000})
            ), recorded as (
              insert into brand_ad_stops (advertiser_id, ad_id, last_seen) select advertiser_id, id, last_seen from stopped
              on conflict do nothing
              returning advertiser_id, ad_id
            ), diffs as (
              select f.account_id, adv.id as brand_row, adv.external_id as brand_id, count(*)::int as count,
                     ${newestAds("a.last_seen")}
                from recorded r
                join ads a on a.advertiser_id = r.advertiser_id and a.id = r.ad_id
                join brand_follows f on f.advertiser_id = a.advertiser_id
                join advertisers adv on adv.id = a.advertiser_id
               group by f.account_id, adv.id, adv.external_id
            ), pending as (${pending(pendingOf("brand.ads_stopped"))})
            select account_id::text, brand_id, count, ad_ids from diffs order by account_id, brand_id`
        })(undefined).pipe(Effect.orDie),

      /** The social-library advertisers with the most ads, most first (the demo's tracked brands). */
      busiest: (limit: number): Effect.Effect<ReadonlyArray<BrandId>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: Schema.Struct({ id: BrandId }),
          execute: () => sql`
            select adv.external_id as id from advertisers adv
             where adv.platform = 'social' and exists (select 1 from ads a where a.advertiser_id = adv.id)
             order by (select count(*) from ads a where a.advertiser_id = adv.id) desc, adv.external_id
             limit ${limit}`
        })(undefined).pipe(Effect.map((rows) => rows.map((r) => r.id)), Effect.orDie)
    }
  })
}) {}
