import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { metered } from "../../access/gateway/Api.js"
import { contractPart } from "../../kernel/Contract.js"
import { defaultPageSize, maxPageSize, maxPageWindow } from "../../kernel/Paging.js"
import { Choice } from "../../kernel/Params.js"
import { param, strictStruct } from "../../kernel/QueryParams.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, pagePaging, tool } from "../../kernel/McpTool.js"

/**
 * The product inbox (issue 19; INTERPRETATIONS W5): what the account should hear of, from the
 * brand digests, its credit usage and its API key. Contract only.
 */

export const notificationsPrefix = "/api/v1/notifications"

/** How many ids one `mark-read` takes. */
export const maxMarkIds = 100

export const notificationTypes = ["brand_new_ads", "credits_used", "api_key_regenerated", "webhook_disabled", "saved_search_matches"] as const
export const NotificationType = Choice(...notificationTypes)
export type NotificationType = typeof NotificationType.Type

export const NotificationId = Schema.UUID.annotations({
  message: () => ({ message: "must be a notification id (a UUID)", override: true }),
  description: "A notification's `id`"
})

/** An ad as a brand's digest item quotes it. */
const QuotedAd = Schema.Struct({
  id: Schema.String,
  format: Schema.String,
  headline: Schema.NullOr(Schema.String),
  body: Schema.NullOr(Schema.String).annotations({ description: "At most 280 characters" }),
  first_seen: Schema.String.annotations({ description: "UTC instant" })
})

/** What each type of item carries in `data` (W5). */
export const notificationData = {
  brand_new_ads: Schema.Struct({
    brand: Schema.Struct({ id: Schema.String, name: Schema.String, domain: Schema.NullOr(Schema.String) }),
    count: Schema.Int.annotations({ description: "The brand's new ads in the digest's window" }),
    ads: Schema.Array(QuotedAd).annotations({ description: "The newest of them" }),
    since: Schema.NullOr(Schema.String).annotations({ description: "Start of the window (UTC instant); null for an account's first digest" }),
    until: Schema.String.annotations({ description: "End of the window (UTC instant)" })
  }),
  credits_used: Schema.Struct({
    percent: Schema.Literal(80, 100),
    used: Schema.Int,
    limit: Schema.Int.annotations({ description: "The monthly credits of the period" }),
    period_start: Schema.String.annotations({ description: "UTC instant" })
  }),
  api_key_regenerated: Schema.Struct({
    at: Schema.String.annotations({ description: "UTC instant" }),
    address: Schema.NullOr(Schema.String).annotations({ description: "The client address of the session that did it" }),
    via: Schema.Literal("session", "operator").annotations({ description: "The key page, or an operator (admin API or command line)" })
  }),
  webhook_disabled: Schema.Struct({
    webhook_id: Schema.String,
    url: Schema.String,
    failing_since: Schema.String.annotations({ description: "The first failed attempt since the last success (UTC instant)" })
  }),
  saved_search_matches: Schema.Struct({
    saved_search: Schema.Struct({ id: Schema.String, name: Schema.String }),
    library: Schema.String,
    count: Schema.Int.annotations({ description: "The ads the imports of the digest's day or week found for it" }),
    ad_ids: Schema.Array(Schema.String).annotations({ description: "Their ids, newest first (at most 100, fewer when its events named many searches); the ones still kept in `/api/v1/saved-searches/{id}/matches`" }),
    event_ids: Schema.Array(Schema.String).annotations({ description: "The `saved_search.matches_new` events it sums, oldest first" })
  })
} satisfies { readonly [T in NotificationType]: Schema.Schema.Any }
export type NotificationData<T extends NotificationType> = (typeof notificationData)[T]["Type"]

const described = {
  brand_new_ads: "A tracked brand's new ads, from the digest",
  credits_used: "80 % or 100 % of the monthly credits used",
  api_key_regenerated: "The API key was regenerated",
  webhook_disabled: "A webhook endpoint failing for 3 days was disabled",
  saved_search_matches: "New matches of a saved search, found by an import"
} satisfies Record<NotificationType, string>

/** W5: `{ id, type, title, body, created_at, read, data }`, `data` typed by `type`. */
const notificationOf = <T extends NotificationType>(type: T) =>
  Schema.Struct({
    id: Schema.String,
    type: Schema.Literal(type).annotations({ description: described[type] }),
    title: Schema.String,
    body: Schema.String.annotations({ description: "One or two sentences, plain text" }),
    created_at: Schema.String.annotations({ description: "UTC instant" }),
    read: Schema.Boolean,
    data: notificationData[type]
  })

export const Notification = Schema.Union(
  notificationOf("brand_new_ads"),
  notificationOf("credits_used"),
  notificationOf("api_key_regenerated"),
  notificationOf("webhook_disabled"),
  notificationOf("saved_search_matches")
).annotations({ identifier: "Notification" })
export type Notification = typeof Notification.Type

export const NotificationsQuery = strictStruct({
  unread: Schema.optional(param.bool("`true`: only the unread ones").query),
  page: Schema.optional(param.int(1, maxPageWindow, "Page number, from 1").query),
  page_size: Schema.optional(param.int(1, maxPageSize, `Notifications per page, 1 to ${maxPageSize} (default ${defaultPageSize})`).query)
}, "query")
export type NotificationsQuery = typeof NotificationsQuery.Type

const idsMessage = `must have 1 to ${maxMarkIds} items`

export const MarkRead = strictStruct({
  ids: Schema.Array(NotificationId).pipe(
    Schema.minItems(1, { message: () => idsMessage }),
    Schema.maxItems(maxMarkIds, { message: () => idsMessage }),
    Schema.annotations({ description: `1 to ${maxMarkIds} notification ids; ids that are not the account's are ignored` })
  )
}, "body")
export type MarkRead = typeof MarkRead.Type

/** P2's answer. */
export const NotificationPage = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Array(Notification).annotations({ description: "Newest first" }),
  total: Schema.Int.annotations({ description: "Notifications matching, on every page" }),
  page: Schema.Int,
  page_size: Schema.Int
})

export const UnreadCount = Schema.Struct({ success: Schema.Literal(true), count: Schema.Int })
export const Updated = Schema.Struct({
  success: Schema.Literal(true),
  updated: Schema.Int.annotations({ description: "Notifications that were unread and are read now" })
})

export class NotificationsApi extends metered(
  HttpApiGroup.make("notifications").annotateContext(inProduct("Account and keys"))
    .add(
      HttpApiEndpoint.get("list", notificationsPrefix)
        .annotate(McpTool, tool("list_notifications", {
          title: "Notifications",
          description: `The account's inbox, newest first: new ads of tracked brands, credit alerts, key changes; unread=true for unread only. ${pagePaging}`
        }))
        .setUrlParams(NotificationsQuery)
        .addSuccess(NotificationPage)
        .annotate(OpenApi.Summary, "The account's notifications, newest first")
        .annotate(OpenApi.Description, `Paged (INTERPRETATIONS P2): \`page\` from 1, \`page_size\` 1-${maxPageSize}; \`unread=true\` for the unread ones.`)
    )
    .add(
      HttpApiEndpoint.get("unreadCount", `${notificationsPrefix}/unread-count`)
        .annotate(McpTool, tool("unread_notifications", {
          title: "Unread notifications",
          description: "How many notifications are unread."
        }))
        .addSuccess(UnreadCount)
        .annotate(OpenApi.Summary, "How many notifications are unread")
    )
    .add(
      HttpApiEndpoint.post("markRead", `${notificationsPrefix}/mark-read`)
        .annotate(McpTool, tool("mark_notifications_read", {
          title: "Mark notifications read",
          description: "Marks the given notification ids read; answers how many changed."
        }))
        .setPayload(MarkRead)
        .addSuccess(Updated)
        .annotate(OpenApi.Summary, "Mark notifications read")
        .annotate(OpenApi.Description, "Ids of other accounts, or of none, are ignored: `updated` counts the account's own that were unread.")
    )
    .add(
      HttpApiEndpoint.post("markAllRead", `${notificationsPrefix}/mark-all-read`)
        .annotate(McpTool, tool("mark_all_notifications_read", {
          title: "Mark all notifications read",
          description: "Marks every notification of the account read; answers how many changed."
        }))
        .addSuccess(Updated)
        .annotate(OpenApi.Summary, "Mark every notification read")
    )
) {}

/** The inbox's part of the contract (kernel/Contract.ts). */
export class NotificationsContract extends contractPart().add(NotificationsApi) {}
