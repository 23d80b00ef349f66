import { SqlClient } from "@effect/sql"
import { Duration, Effect, Either, Option } from "effect"
import { AccountEvents } from "../../access/events/AccountEvents.js"
import { type PlanName, planTitle } from "../../access/gateway/Api.js"
import { KeySealer } from "../../access/gateway/KeySealer.js"
import { Conflict, InvalidRequest, NotFound } from "../../kernel/Errors.js"
import { type AccountId, idOf, WebhookDeliveryId, WebhookId } from "../../kernel/Ids.js"
import { type Page, pageOf, windowOf } from "../../kernel/Paging.js"
import { PublicAddresses } from "../../platform/PublicAddresses.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"
import { type CreateWebhook, maxUrlLength, urlTooLong, type Webhook, type WebhookDelivery, WebhookLimitReached, type WebhooksQuery } from "./Api.js"
import { newSecret } from "./Signing.js"
import { type Refused, targets } from "./Targets.js"
import { endpointLimits, webhookSettings } from "./WebhooksConfig.js"
import { type Refusal, refusalOf, WebhooksRepo } from "./WebhooksRepo.js"
import { now } from "../../kernel/UtcDay.js"

/** How long a rotated-out secret keeps signing, beside the new one. */
export const rotationOverlap = Duration.hours(24)

/** Who manages endpoints: the account, and the plan its cap comes from. */
export interface Owner {
  readonly accountId: AccountId
  readonly plan: PlanName
}

const webhookNotFound = new NotFound({ error: "Webhook not found" })
const deliveryNotFound = new NotFound({ error: "Delivery not found" })
const webhookId = idOf(WebhookId, webhookNotFound)
/** Issue 44: one enabled endpoint per URL and account (a 409, as INTERPRETATIONS answers a duplicate folder name). */
export const urlTaken = "url: a webhook endpoint with this URL already exists"

/**
 * Webhook endpoints (H2): registration behind the SSRF check, the plan's cap and one endpoint
 * per URL (issue 44), secrets sealed at rest and shown once, rotation with an overlap, the test
 * event, the delivery log and replay.
 * Another account's endpoint is a 404, the same as none.
 */
export class Webhooks extends Effect.Service<Webhooks>()("adintel/Webhooks", {
  effect: Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    const events = yield* AccountEvents
    const sealer = yield* KeySealer
    const sql = yield* SqlClient.SqlClient
    const { allowLoopback } = yield* webhookSettings
    const { parse, reach } = targets(allowLoopback, yield* PublicAddresses)

    const owned = (account: AccountId, id: string) =>
      Effect.flatMap(webhookId(id), (found) =>
        Effect.flatMap(repo.endpoint(account, found), Option.match({ onNone: () => Effect.fail(webhookNotFound), onSome: Effect.succeed })))

    return {
      create: Effect.fn("Webhooks.create", serviceSpan)(function*(owner: Owner, input: CreateWebhook): Effect.fn.Return<{ webhook: Webhook; secret: string }, InvalidRequest | WebhookLimitReached | Conflict> {
        const refused = ({ reason }: Refused) => new InvalidRequest({ error: `url: ${reason}` })
        const target = yield* Effect.mapError(parse(input.url), refused)
        const url = target.href
        // The schema's bound holds for the stored form too (percent-encoding lengthens it).
        if (url.length > maxUrlLength) return yield* refused({ reason: urlTooLong })
        const limit = endpointLimits[owner.plan]
        const refusedBy = (refusal: Refusal) =>
          refusal === "Taken"
            ? new Conflict({ error: urlTaken })
            : new WebhookLimitReached({ error: `Webhook endpoint limit reached: ${limit} endpoints on the ${planTitle(owner.plan)} plan` })
        // The URL and the cap before any look-up: a refused registration costs no DNS query (issue 44).
        const before = refusalOf(yield* repo.standing(owner.accountId, url), limit)
        if (before !== undefined) return yield* refusedBy(before)
        yield* Effect.mapError(reach(target), refused)
        const secret = newSecret()
        const created = yield* repo.create(owner.accountId, {
          url,
          events: [...new Set(input.events)],
          description: input.description ?? null,
          secret: sealer.seal(secret)
        }, yield* now, limit)
        if (Either.isLeft(created)) return yield* refusedBy(created.left)
        return { webhook: created.right, secret }
      }),

      list: Effect.fn("Webhooks.list", serviceSpan)((account: AccountId, query: WebhooksQuery): Effect.Effect<Page<Webhook>> => {
        const window = windowOf(query)
        return Effect.map(repo.page(account, window), ({ items, total }) => pageOf(window, items, total))
      }),

      remove: Effect.fn("Webhooks.remove", serviceSpan)((account: AccountId, id: string): Effect.Effect<void, NotFound> =>
        Effect.flatMap(webhookId(id), (found) =>
          Effect.flatMap(repo.remove(account, found), (removed) => removed ? Effect.void : Effect.fail(webhookNotFound)))),

      /** A new secret; the current one signs beside it for `rotationOverlap`. */
      rotateSecret: Effect.fn("Webhooks.rotateSecret", serviceSpan)(function*(account: AccountId, id: string): Effect.fn.Return<string, NotFound> {
        const found = yield* webhookId(id)
        const secret = newSecret()
        const until = new Date((yield* now).getTime() + Duration.toMillis(rotationOverlap))
        if (!(yield* repo.rotate(account, found, sealer.seal(secret), until))) return yield* webhookNotFound
        return secret
      }),

      /** Records a `webhook.test` event and its one delivery, to this endpoint only; the delivery's id. */
      test: Effect.fn("Webhooks.test", serviceSpan)(function*(account: AccountId, id: string): Effect.fn.Return<WebhookDeliveryId, NotFound> {
        const endpoint = yield* owned(account, id)
        const at = yield* now
        return yield* sql.withTransaction(Effect.gen(function*() {
          const [event] = yield* events.emit([{ accountId: account, type: "webhook.test", data: { webhook_id: endpoint.id } }], at)
          return yield* repo.deliver(endpoint.id, event!.seq, at)
        })).pipe(Effect.orDie)
      }),

      deliveries: Effect.fn("Webhooks.deliveries", serviceSpan)(function*(account: AccountId, id: string, query: WebhooksQuery): Effect.fn.Return<Page<WebhookDelivery>, NotFound> {
        const endpoint = yield* owned(account, id)
        const window = windowOf(query)
        const { items, total } = yield* repo.deliveries(endpoint.id, window)
        return pageOf(window, items, total)
      }),

      /** Queues the delivery again now (a new round of attempts, the same event id). */
      replay: Effect.fn("Webhooks.replay", serviceSpan)(function*(account: AccountId, id: string, deliveryId: string): Effect.fn.Return<WebhookDeliveryId, NotFound> {
        const endpoint = yield* owned(account, id)
        const delivery = yield* idOf(WebhookDeliveryId, deliveryNotFound)(deliveryId)
        if (!(yield* repo.replay(endpoint.id, delivery, yield* now))) return yield* deliveryNotFound
        return delivery
      })
    }
  }),
  dependencies: [WebhooksRepo.Default, AccountEvents.Default, KeySealer.Default, PublicAddresses.Default]
}) {}
