import { Clock, Effect } from "effect"
import { BrandTracker } from "../ads/brands/BrandTracker.js"
import { digestItems } from "../notifications/digest/DigestText.js"
import { Inbox } from "../notifications/inbox/Inbox.js"
import { quotedAds } from "../notifications/digest/Digests.js"
import type { AccountId } from "../kernel/Ids.js"

/** The brands the demo account (plan pro) tracks: the social brands with the most ads. */
export const demoBrandCount = 5

/**
 * The demo account's brand tracker and inbox on the first start (issue 19): it follows the
 * demo world's busiest brands, and its inbox holds what they launched in the last 7 days, as a
 * weekly digest would have said it. Idempotent: a resumed first start writes nothing twice.
 */
export const demoTrackedBrands = (accountId: AccountId) =>
  Effect.gen(function*() {
    const brands = yield* BrandTracker
    const inbox = yield* Inbox
    for (const id of yield* brands.busiest(demoBrandCount)) yield* Effect.orDie(brands.follow({ accountId, plan: "pro" }, id))
    const now = yield* Clock.currentTimeMillis
    const until = new Date(Math.floor(now / 3_600_000) * 3_600_000)
    const since = new Date(until.getTime() - 7 * 86_400_000)
    const news = yield* brands.lately(accountId, since, until, quotedAds)
    yield* inbox.deliver(digestItems({ accountId, frequency: "weekly", since, until, news }, until))
  })
