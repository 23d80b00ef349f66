import { Effect } from "effect"
import type { CallerInfo } from "../../access/gateway/Api.js"
import { searchesLeft } from "../../access/gateway/Meters.js"
import { today } from "../../kernel/UtcDay.js"
import { DailyQuota, type ShopCreditsResponse } from "./Api.js"
import { SearchQuotaRepo } from "./SearchQuotaRepo.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/**
 * The daily short-video search quota (spec: Limits "Daily search quota"; INTERPRETATIONS G7):
 * a separate pool from the monthly credits, consumed by explore and count calls.
 */
export class SearchQuota extends Effect.Service<SearchQuota>()("adintel/SearchQuota", {
  effect: Effect.gen(function*() {
    const repo = yield* SearchQuotaRepo
    return {
      /** The `GET /api/v1/clipapp-shop/credits` answer, from the meters the gateway read. */
      balance: (caller: CallerInfo): ShopCreditsResponse => {
        const { used, limit, resetsAt } = caller.dailySearch
        return {
          success: true,
          credits_remaining: searchesLeft(used, limit),
          daily_limit: limit,
          resets_at: resetsAt.toISOString(),
          unlimited: limit === null
        }
      },

      /** One explore/count search; `DailyQuota` when today's are used up (the credit is kept, G4). */
      consume: Effect.fn("SearchQuota.consume", serviceSpan)(function*(caller: CallerInfo) {
        const taken = yield* repo.take(caller.accountId, yield* today, caller.dailySearch.limit)
        if (!taken) return yield* Effect.fail(new DailyQuota())
      })
    }
  }),
  dependencies: [SearchQuotaRepo.Default]
}) {}
