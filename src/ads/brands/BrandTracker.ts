import { Effect, Option, Schema } from "effect"
import { type PlanName, planTitle } from "../../access/gateway/Api.js"
import { InvalidRequest, NotFound } from "../../kernel/Errors.js"
import { windowOf } from "../../kernel/Paging.js"
import { AdSearch, type Page } from "../library/AdSearch.js"
import type { AdView } from "../library/Api.js"
import type { AdvertiserAdsParams } from "../library/Filters.js"
import { BrandLimitReached, type BrandsQuery, type TrackedBrand } from "./Api.js"
import { trackingLimits } from "./BrandsConfig.js"
import { type BrandNews, BrandsRepo, type Tracker, type TrackedRow } from "./BrandsRepo.js"
import { type AccountId, BrandId, idOf } from "../../kernel/Ids.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"
import { now } from "../../kernel/UtcDay.js"

export type { BrandNews, NewAd, Tracker } from "./BrandsRepo.js"

export const brandNotFound = new NotFound({ error: "Brand not found" })

/** A token of `brands/ads` continues only a brand search (AdSearch's scope). */
const brandAdsScope = "brand-ads"


/** The row as the routes show it: the brand's own domain first, then its landing domains. */
const viewOf = (row: TrackedRow): TrackedBrand => {
  const domains = [...new Set([...(row.domain === null ? [] : [row.domain]), ...row.domains])]
  return {
    id: row.id,
    name: row.name,
    domain: domains[0] ?? "",
    active_ads: row.active_ads,
    total_ads: row.total_ads,
    new_ads_7d: row.new_ads_7d,
    new_ads_30d: row.new_ads_30d,
    last_seen: row.last_seen === null ? null : row.last_seen.toISOString(),
    domains,
    followed_at: row.followed_at.toISOString()
  }
}

/** Who follows: the account, and the plan its limit comes from. */
export interface Follower {
  readonly accountId: AccountId
  readonly plan: PlanName
}

/**
 * The brand tracker (issue 19; W1): a brand is a social-library advertiser; tracking is per
 * account. Its ads come from the ad search engine, not a second search.
 */
export class BrandTracker extends Effect.Service<BrandTracker>()("adintel/BrandTracker", {
  effect: Effect.gen(function*() {
    const repo = yield* BrandsRepo
    const search = yield* AdSearch
    const limits = yield* trackingLimits

    /** The brand a request names (its id branded on the way in: one no brand can have is not found). */
    const brandOf = (id: string) =>
      Effect.flatMap(
        Effect.flatMap(idOf(BrandId, brandNotFound)(id), repo.find),
        Option.match({ onNone: () => Effect.fail(brandNotFound), onSome: Effect.succeed })
      )

    return {
      /** One page of the account's tracked brands, newest follow first, and how many it tracks. */
      list: Effect.fn("BrandTracker.list", serviceSpan)(function*(account: AccountId, query: BrandsQuery) {
        const window = windowOf(query)
        const { rows, total } = yield* repo.page(account, yield* now, window)
        return { data: rows.map(viewOf), total }
      }),

      /** Idempotent: a brand already tracked is answered as it is, whatever the limit. */
      follow: Effect.fn("BrandTracker.follow", serviceSpan)(function*(follower: Follower, id: string): Effect.fn.Return<TrackedBrand, NotFound | BrandLimitReached> {
        const brand = yield* brandOf(id)
        const at = yield* now
        const limit = limits[follower.plan]
        const followed = yield* repo.follow(follower.accountId, brand.row, at, limit)
        if (followed.outcome === "full") {
          return yield* Effect.fail(
            new BrandLimitReached({ error: `Brand tracking limit reached: ${limit} brands on the ${planTitle(follower.plan)} plan` })
          )
        }
        return viewOf(followed.brand)
      }),

      /** W1: also when the brand is not tracked, or unknown. */
      unfollow: Effect.fn("BrandTracker.unfollow", serviceSpan)((account: AccountId, id: string): Effect.Effect<void> =>
        Option.match(Schema.decodeUnknownOption(BrandId)(id), { onNone: () => Effect.void, onSome: (brand) => repo.unfollow(account, brand) })),

      /** A brand's ads through the ad search engine (P1): its filters, sorts and scroll tokens. */
      ads: Effect.fn("BrandTracker.ads", serviceSpan)(function*(params: AdvertiserAdsParams): Effect.fn.Return<Page<AdView>, InvalidRequest | NotFound> {
        const { id, ...rest } = params
        if (params.scroll_token === undefined) {
          if (id === undefined) return yield* Effect.fail(new InvalidRequest({ error: "id is missing" }))
          yield* brandOf(id)
        }
        return yield* search.search("social", id === undefined ? rest : { ...rest, advertiser_id: id }, brandAdsScope)
      }),

      /** Accounts that track brands, by account id after `after` (the digest walks them in pages). */
      trackers: Effect.fn("BrandTracker.trackers", serviceSpan)((after: AccountId | null, limit: number): Effect.Effect<ReadonlyArray<Tracker>> => repo.trackers(after, limit)),

      /**
       * The account's tracked brands with ads first seen in (`since`, `until`] and after the
       * brand was followed (`since` null: since the follow): how many, and the newest `first`.
       */
      news: Effect.fn("BrandTracker.news", serviceSpan)((account: AccountId, since: Date | null, until: Date, first: number): Effect.Effect<ReadonlyArray<BrandNews>> =>
        repo.news(account, since, until, first, "follow")),

      /** The same over the window alone, whenever the brands were followed (what they launched lately). */
      lately: Effect.fn("BrandTracker.lately", serviceSpan)((account: AccountId, since: Date, until: Date, first: number): Effect.Effect<ReadonlyArray<BrandNews>> =>
        repo.news(account, since, until, first, "window")),

      /** The ids of the social-library brands with the most ads (demo data). */
      busiest: Effect.fn("BrandTracker.busiest", serviceSpan)((limit: number) => repo.busiest(limit))
    }
  }),
  dependencies: [BrandsRepo.Default, AdSearch.Default]
}) {}
