import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { metered } from "../../access/gateway/Api.js"
import { contractPart } from "../../kernel/Contract.js"
import { defaultPageSize, maxPageSize, maxPageWindow } from "../../kernel/Paging.js"
import { Choice } from "../../kernel/Params.js"
import { param, strictStruct } from "../../kernel/QueryParams.js"

/**
 * The product inbox (issue 19; INTERPRETATIONS W5): what the account should hear of, from the
 * brand digests, its credit usage and its API key. Contract only.
 */

export const notificationsPrefix = "/api/v1/notifications"

/** How many ids one `mark-read` takes. */
export const maxMarkIds = 100

export const notificationTypes = ["brand_new_ads", "credits_used", "api_key_regenerated"] as const
export const NotificationType = Choice(...notificationTypes)
export type NotificationType = typeof NotificationType.Type

export const NotificationId = Schema.UUID.annotations({
  message: () => ({ message: "must be a notification id (a UUID)", override: true }),
  description: "A notification's `id`"
})

/** W5: `{ id, type, title, body, created_at, read, data }`. */
export const Notification = Schema.Struct({
  id: Schema.String,
  type: NotificationType.annotations({
    description: "`brand_new_ads` (a tracked brand's new ads, from the digest), `credits_used` (80 % or 100 % of the monthly credits), `api_key_regenerated`"
  }),
  title: Schema.String,
  body: Schema.String.annotations({ description: "One or two sentences, plain text" }),
  created_at: Schema.String.annotations({ description: "UTC instant" }),
  read: Schema.Boolean,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    description: "Per type: `brand`, `count`, `ads`, `since`, `until` (brand_new_ads); `percent`, `used`, `limit`, `period_start` (credits_used); `at`, `address`, `via` (api_key_regenerated)"
  })
}).annotations({ identifier: "Notification" })
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
  HttpApiGroup.make("notifications")
    .add(
      HttpApiEndpoint.get("list", notificationsPrefix)
        .setUrlParams(NotificationsQuery)
        .addSuccess(NotificationPage)
        .annotate(OpenApi.Summary, "The account's notifications, newest first")
        .annotate(OpenApi.Description, `Paged (INTERPRETATIONS P2): \`page\` from 1, \`page_size\` 1-${maxPageSize}; \`unread=true\` for the unread ones.`)
    )
    .add(
      HttpApiEndpoint.get("unreadCount", `${notificationsPrefix}/unread-count`)
        .addSuccess(UnreadCount)
        .annotate(OpenApi.Summary, "How many notifications are unread")
    )
    .add(
      HttpApiEndpoint.post("markRead", `${notificationsPrefix}/mark-read`)
        .setPayload(MarkRead)
        .addSuccess(Updated)
        .annotate(OpenApi.Summary, "Mark notifications read")
        .annotate(OpenApi.Description, "Ids of other accounts, or of none, are ignored: `updated` counts the account's own that were unread.")
    )
    .add(
      HttpApiEndpoint.post("markAllRead", `${notificationsPrefix}/mark-all-read`)
        .addSuccess(Updated)
        .annotate(OpenApi.Summary, "Mark every notification read")
    )
) {}

/** The inbox's part of the contract (kernel/Contract.ts). */
export class NotificationsContract extends contractPart().add(NotificationsApi) {}
