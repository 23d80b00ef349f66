import { Effect } from "effect"
import { Caller } from "../../access/gateway/Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import { WebhooksContract } from "./Api.js"
import { Webhooks } from "./Webhooks.js"

const fields = <A extends object>(fields: A) => ({ success: true as const, ...fields })

/** `/api/v1/webhooks*`: the caller's own endpoints and their deliveries. */
export const WebhooksLive = serveGroup(WebhooksContract, "webhooks", (handlers) =>
  Effect.map(Webhooks, (webhooks) =>
    handlers
      .handle("create", ({ payload }) => Effect.map(Effect.flatMap(Caller, (c) => webhooks.create(c, payload)), fields))
      .handle("list", ({ urlParams }) => Effect.map(Effect.flatMap(Caller, (c) => webhooks.list(c.accountId, urlParams)), fields))
      .handle("remove", ({ path }) => Effect.as(Effect.flatMap(Caller, (c) => webhooks.remove(c.accountId, path.id)), fields({})))
      .handle("rotateSecret", ({ path }) =>
        Effect.map(Effect.flatMap(Caller, (c) => webhooks.rotateSecret(c.accountId, path.id)), (secret) => fields({ secret })))
      .handle("test", ({ path }) =>
        Effect.map(Effect.flatMap(Caller, (c) => webhooks.test(c.accountId, path.id)), (delivery_id) => fields({ delivery_id })))
      .handle("deliveries", ({ path, urlParams }) =>
        Effect.map(Effect.flatMap(Caller, (c) => webhooks.deliveries(c.accountId, path.id, urlParams)), fields))
      .handle("replay", ({ path }) =>
        Effect.map(Effect.flatMap(Caller, (c) => webhooks.replay(c.accountId, path.id, path.delivery_id)), (delivery_id) =>
          fields({ delivery_id })))))
