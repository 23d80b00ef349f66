import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { NotFoundBody } from "../../kernel/Errors.js"
import { Schema } from "effect"
import { metered } from "../../access/gateway/Api.js"
import { contractPart } from "../../kernel/Contract.js"
import { ApiError, envelope } from "../../kernel/Envelope.js"
import { Domain, ExternalId } from "../../kernel/Fields.js"
import { alias } from "../../kernel/Mirror.js"
import { defaultPageSize, maxPageSize } from "../../kernel/Paging.js"
import { param, strictStruct } from "../../kernel/QueryParams.js"
import { DailyPoint, StoreView } from "../catalog/Views.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, pagePaging, tool } from "../../kernel/McpTool.js"

/**
 * The store tracker (issue 20; INTERPRETATIONS L3, S3): the hosted stores an account follows,
 * within a per-plan limit, with their daily sales and new products since tracking. Contract only.
 */

export const trackerPrefix = "/api/v1/store-tracker"

/** The daily points a tracked store carries at most: the latest days since tracking. */
export const maxTrackedDays = 90
/** The new products a tracked store lists at most (its `count` says how many there are). */
export const maxNewProducts = 10

/** A per-plan limit (configuration `STORE_TRACKER_LIMITS`). */
export class StoreTrackingLimit extends ApiError<StoreTrackingLimit>()("StoreTrackingLimit", {
  error: Schema.String
}, { status: 403 }) {}
export const StoreTrackingLimitBody = envelope(StoreTrackingLimit)

/** spec: INTERPRETATIONS L3. */
export const TrackerStatus = Schema.Struct({
  success: Schema.Literal(true),
  tracked: Schema.Int.annotations({ description: "Stores the account tracks" }),
  limit: Schema.Int.annotations({ description: "The most its plan may track" }),
  remaining: Schema.Int.annotations({ description: "limit minus tracked, at least 0" })
})

export const StoreTarget = strictStruct({
  store_id: Schema.optional(ExternalId.annotations({ description: "The store's id; send this or `domain`" })),
  domain: Schema.optional(Domain.annotations({ description: "The store's domain, lowercase; send this or `store_id`" }))
}, "body")
export type StoreTarget = typeof StoreTarget.Type

export const Tracked = Schema.Struct({
  success: Schema.Literal(true),
  store: StoreView,
  tracked: Schema.Int,
  limit: Schema.Int,
  remaining: Schema.Int
})

export const TrackedQuery = strictStruct({
  page: Schema.optional(param.int(1, 100_000, "Page number, from 1").query),
  page_size: Schema.optional(param.int(1, maxPageSize, `Stores per page, 1 to ${maxPageSize} (default ${defaultPageSize})`).query)
}, "query")
export type TrackedQuery = typeof TrackedQuery.Type

export const NewProduct = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  price: Schema.NullOr(Schema.Number),
  currency: Schema.NullOr(Schema.String),
  image_url: Schema.NullOr(Schema.String),
  published_on: Schema.String
})

export const TrackedStore = Schema.Struct({
  store: StoreView,
  tracked_at: Schema.String.annotations({ description: "When the account began tracking it (UTC instant)" }),
  daily_sales: Schema.Array(DailyPoint).annotations({
    description: `Each day from the day tracking began to yesterday, oldest first; the latest ${maxTrackedDays} at most`
  }),
  new_products: Schema.Struct({
    count: Schema.Int.annotations({ description: "Products published since the day tracking began" }),
    data: Schema.Array(NewProduct).annotations({ description: `The newest ${maxNewProducts} of them` })
  })
})
export type TrackedStore = typeof TrackedStore.Type

export const TrackedPage = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Array(TrackedStore).annotations({ description: "Newest tracked first" }),
  total: Schema.Int,
  page: Schema.Int,
  page_size: Schema.Int
})

const EmptyQuery = strictStruct({}, "query")

export class StoreTrackerApi extends metered(
  HttpApiGroup.make("storeTracker").annotateContext(inProduct("Hosted stores"))
    .add(
      HttpApiEndpoint.get("status", trackerPrefix)
        .annotate(McpTool, tool("store_tracker_status", {
          title: "Tracked stores: count and limit",
          description: "How many hosted online stores the account tracks, its plan's limit and how many it may still track."
        }))
        .setUrlParams(EmptyQuery)
        .addSuccess(TrackerStatus)
        .annotate(OpenApi.Summary, "How many hosted stores the account tracks, its plan's limit and what remains")
    )
    .add(
      HttpApiEndpoint.post("track", `${trackerPrefix}/track`)
        .annotate(McpTool, tool("track_store", {
          title: "Track an online store",
          description: "Starts tracking a hosted online store by store_id or domain (exactly one); an unknown domain is not found."
        }))
        .addError(NotFoundBody)
        .setPayload(StoreTarget)
        .addSuccess(Tracked)
        .addError(StoreTrackingLimitBody)
        .annotate(OpenApi.Summary, "Track a hosted store, by `store_id` or `domain`")
        .annotate(
          OpenApi.Description,
          "Tracking a store again changes nothing. A store the catalog does not know is a 404; past the plan's limit, a 403."
        )
    )
    .add(
      HttpApiEndpoint.post("untrack", `${trackerPrefix}/untrack`)
        .annotate(McpTool, tool("untrack_store", {
          title: "Stop tracking an online store",
          description: "Stops tracking a store (store_id or domain)."
        }))
        .addError(NotFoundBody)
        .setPayload(StoreTarget)
        .addSuccess(TrackerStatus)
        .annotate(OpenApi.Summary, "Stop tracking a hosted store (also fine when it was not tracked)")
    )
    .add(
      HttpApiEndpoint.get("stores", `${trackerPrefix}/stores`)
        .annotate(McpTool, tool("list_tracked_stores", {
          title: "Tracked online stores",
          description: `The stores the account tracks, with their estimated daily sales and the products they added since tracking began. ${pagePaging}`
        }))
        .setUrlParams(TrackedQuery)
        .addSuccess(TrackedPage)
        .annotate(OpenApi.Summary, "The tracked stores with their daily sales and new products since tracking")
        .annotate(OpenApi.Description, "Paged (INTERPRETATIONS P2), newest tracked first.")
    )
) {}

/** The tracker's part of the contract, with S3's un-versioned alias. */
export class StoreTrackerContract extends contractPart()
  .add(StoreTrackerApi)
  .add(alias(StoreTrackerApi, { from: trackerPrefix, to: "/api/store-tracker" }))
{}
