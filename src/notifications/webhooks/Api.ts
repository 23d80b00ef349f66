import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { EventType, eventTypes } from "../../access/events/OutboxEvent.js"
import { metered } from "../../access/gateway/Api.js"
import { contractPart } from "../../kernel/Contract.js"
import { ApiError, envelope } from "../../kernel/Envelope.js"
import { ConflictBody, NotFoundBody } from "../../kernel/Errors.js"
import { defaultPageSize, maxPageSize, maxPageWindow } from "../../kernel/Paging.js"
import { Choice, IdPath, PathId } from "../../kernel/Params.js"
import { param, strictStruct, Words } from "../../kernel/QueryParams.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, noTool } from "../../kernel/McpTool.js"

/** Why these routes are no MCP tools (kernel/McpTool.ts). */
const notTool = noTool("Managing webhook endpoints and their deliveries is account settings, not research")

/**
 * Webhook endpoints (issue 32; INTERPRETATIONS H2, H3): an account's endpoints, their secrets,
 * the delivery log and replay. Contract only.
 */

export const webhooksPrefix = "/api/v1/webhooks"
export const maxUrlLength = 2048
export const maxDescriptionLength = 500
export const urlTooLong = `must be a URL of at most ${maxUrlLength} characters`

/** H2: an endpoint as every answer shows it; never its secret. */
export const Webhook = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  events: Schema.Array(EventType).annotations({ description: "The event types sent to it" }),
  description: Schema.NullOr(Schema.String),
  enabled: Schema.Boolean.annotations({ description: "false once disabled after failing for 3 days" }),
  created_at: Schema.String.annotations({ description: "UTC instant" })
}).annotations({ identifier: "Webhook" })
export type Webhook = typeof Webhook.Type

export const deliveryStatuses = ["pending", "delivered", "failed"] as const

/** H2: a delivery of one event to one endpoint, with its attempts. */
export const WebhookDelivery = Schema.Struct({
  id: Schema.String,
  event_id: Schema.String.annotations({ description: "The event's id: the `webhook-id` header of every attempt" }),
  type: EventType,
  status: Schema.Literal(...deliveryStatuses).annotations({
    description: "`pending` (to be sent or retried), `delivered` (a 2xx within 10 s), `failed` (retries exhausted)"
  }),
  attempts: Schema.Int,
  last_status_code: Schema.NullOr(Schema.Int).annotations({ description: "The last attempt's HTTP status; null when none answered" }),
  created_at: Schema.String.annotations({ description: "UTC instant" }),
  delivered_at: Schema.NullOr(Schema.String).annotations({ description: "UTC instant of the 2xx" })
}).annotations({ identifier: "WebhookDelivery" })
export type WebhookDelivery = typeof WebhookDelivery.Type

/** The secret: `whsec_` and the base64 of 24 random bytes (Standard Webhooks). */
const Secret = Schema.String.annotations({ description: "`whsec_...`: shown only here; verify deliveries with it" })

export const CreateWebhook = strictStruct({
  url: Schema.String.pipe(
    Schema.maxLength(maxUrlLength, { message: () => urlTooLong }),
    Schema.annotations({ description: "https (http only to a loopback host, when the service allows it); public addresses only" })
  ),
  events: Schema.Array(Choice(...eventTypes)).pipe(
    Schema.minItems(1, { message: () => `must have 1 to ${eventTypes.length} items` }),
    Schema.maxItems(eventTypes.length, { message: () => `must have 1 to ${eventTypes.length} items` }),
    Schema.annotations({ description: "The event types to send (H3)" })
  ),
  description: Schema.optional(Schema.NullOr(Words(maxDescriptionLength)))
}, "body")
export type CreateWebhook = typeof CreateWebhook.Type

const pageFields = {
  page: Schema.optional(param.int(1, maxPageWindow, "Page number, from 1").query),
  page_size: Schema.optional(param.int(1, maxPageSize, `Items per page, 1 to ${maxPageSize} (default ${defaultPageSize})`).query)
}
export const WebhooksQuery = strictStruct(pageFields, "query")
export type WebhooksQuery = typeof WebhooksQuery.Type

const pageOf = <A, I>(item: Schema.Schema<A, I>, order: string) =>
  Schema.Struct({
    success: Schema.Literal(true),
    data: Schema.Array(item).annotations({ description: order }),
    total: Schema.Int,
    page: Schema.Int,
    page_size: Schema.Int
  })

export const Created = Schema.Struct({ success: Schema.Literal(true), webhook: Webhook, secret: Secret })
export const SecretRotated = Schema.Struct({ success: Schema.Literal(true), secret: Secret })
export const Queued = Schema.Struct({ success: Schema.Literal(true), delivery_id: Schema.String })
export const Removed = Schema.Struct({ success: Schema.Literal(true) })

/** H2: the per-plan cap on endpoints. */
export class WebhookLimitReached extends ApiError<WebhookLimitReached>()("WebhookLimitReached", {
  error: Schema.String
}, { status: 403 }) {}
export const WebhookLimitReachedBody = envelope(WebhookLimitReached)

const DeliveryPath = Schema.Struct({ id: PathId, delivery_id: PathId })

export class WebhooksApi extends metered(
  HttpApiGroup.make("webhooks").annotateContext(inProduct("Account and keys"))
    .add(
      HttpApiEndpoint.post("create", webhooksPrefix)
        .annotate(McpTool, notTool)
        .setPayload(CreateWebhook)
        .addSuccess(Created)
        .addError(WebhookLimitReachedBody)
        .addError(ConflictBody)
        .annotate(OpenApi.Summary, "Register a webhook endpoint; the answer shows its secret, once")
        .annotate(
          OpenApi.Description,
          "Deliveries are signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`). " +
            "A URL that is not https, or resolves to a private, link-local or metadata address, is a 400 naming `url`; " +
            "past the plan's cap a 403; a URL the account already has an enabled endpoint at (as stored: lower-case " +
            "scheme and host, no default port, no fragment) a 409."
        )
    )
    .add(
      HttpApiEndpoint.get("list", webhooksPrefix)
        .annotate(McpTool, notTool)
        .setUrlParams(WebhooksQuery)
        .addSuccess(pageOf(Webhook, "Newest first"))
        .annotate(OpenApi.Summary, "The account's webhook endpoints (never their secrets)")
        .annotate(OpenApi.Description, "Paged (INTERPRETATIONS P2).")
    )
    .add(
      HttpApiEndpoint.del("remove", `${webhooksPrefix}/:id`)
        .annotate(McpTool, notTool)
        .setPath(IdPath)
        .addSuccess(Removed)
        .addError(NotFoundBody)
        .annotate(OpenApi.Summary, "Delete an endpoint and its delivery log")
    )
    .add(
      HttpApiEndpoint.post("rotateSecret", `${webhooksPrefix}/:id/rotate-secret`)
        .annotate(McpTool, notTool)
        .setPath(IdPath)
        .addSuccess(SecretRotated)
        .addError(NotFoundBody)
        .annotate(OpenApi.Summary, "A new secret; the previous one keeps signing for 24 hours")
        .annotate(OpenApi.Description, "During the overlap each delivery carries both signatures, space-separated.")
    )
    .add(
      HttpApiEndpoint.post("test", `${webhooksPrefix}/:id/test`)
        .annotate(McpTool, notTool)
        .setPath(IdPath)
        .addSuccess(Queued)
        .addError(NotFoundBody)
        .annotate(OpenApi.Summary, "Send one `webhook.test` event to the endpoint")
    )
    .add(
      HttpApiEndpoint.get("deliveries", `${webhooksPrefix}/:id/deliveries`)
        .annotate(McpTool, notTool)
        .setPath(IdPath)
        .setUrlParams(WebhooksQuery)
        .addSuccess(pageOf(WebhookDelivery, "Newest first"))
        .addError(NotFoundBody)
        .annotate(OpenApi.Summary, "The endpoint's delivery log")
        .annotate(OpenApi.Description, "Paged (INTERPRETATIONS P2). Finished deliveries are kept 30 days.")
    )
    .add(
      HttpApiEndpoint.post("replay", `${webhooksPrefix}/:id/deliveries/:delivery_id/replay`)
        .annotate(McpTool, notTool)
        .setPath(DeliveryPath)
        .addSuccess(Queued)
        .addError(NotFoundBody)
        .annotate(OpenApi.Summary, "Send a delivery again: it is queued now, with the same event id")
    )
) {}

/** The webhooks' part of the contract (kernel/Contract.ts). */
export class WebhooksContract extends contractPart().add(WebhooksApi) {}
