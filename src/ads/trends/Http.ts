import { Effect } from "effect"
import { Caller } from "../../access/gateway/Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import { TrendsContract } from "./Api.js"
import { Trends } from "./Trends.js"

const fields = <A extends object>(fields: A) => ({ success: true as const, ...fields })

/** `/api/v1/trends/*`. */
export const TrendsLive = serveGroup(TrendsContract, "trends", (handlers) =>
  Effect.map(Trends, (trends) =>
    handlers
      .handle("topics", ({ payload }) => Effect.map(trends.topics(payload), fields))
      .handle("hooks", ({ payload }) => Effect.map(trends.hooks(payload), fields))
      .handle("history", ({ payload }) => Effect.map(trends.history(payload), fields))
      .handle("products", ({ payload }) => Effect.map(Effect.flatMap(Caller, (c) => trends.products(c.accountId, payload)), fields))))
