import { Clock, Effect, Option } from "effect"
import { ShopCountryRepo } from "./ShopCountryRepo.js"
import type { AccountId } from "../../kernel/Ids.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/** Where an account's short-video shop calls look when they name no country. */
export const defaultShopCountry = "US"

/**
 * The account's short-video shop country (issue 5, `request-country`): set once, used by every
 * explore and detail call without an explicit `country`; `US` until one is set.
 */
export class ShopCountry extends Effect.Service<ShopCountry>()("adintel/ShopCountry", {
  effect: Effect.gen(function*() {
    const repo = yield* ShopCountryRepo
    const of = (accountId: AccountId) => Effect.map(repo.find(accountId), Option.getOrElse(() => defaultShopCountry))
    return {
      of: Effect.fn("ShopCountry.of", serviceSpan)(of),
      /** The country a call uses: the one it names, else the account's. */
      resolve: Effect.fn("ShopCountry.resolve", serviceSpan)((accountId: AccountId, given: string | undefined) => (given === undefined ? of(accountId) : Effect.succeed(given))),
      /** Sets the account's country when one is given; answers the country now in force. */
      request: Effect.fn("ShopCountry.request", serviceSpan)((accountId: AccountId, country: string | undefined) =>
        country === undefined
          ? of(accountId)
          : Effect.flatMap(Clock.currentTimeMillis, (now) => repo.save(accountId, country, new Date(now))).pipe(Effect.as(country)))
    }
  }),
  dependencies: [ShopCountryRepo.Default]
}) {}
