import { Schema } from "effect"

/**
 * The events an account can be told about (issue 32; INTERPRETATIONS H3), as webhooks send them
 * and the RPC `Events` stream yields them. Schemas only: contracts import this file.
 */
export const EventType = Schema.Literal(
  "brand.ads_new",
  "brand.ads_stopped",
  "saved_search.matches_new",
  "credits.threshold",
  "api_key.regenerated",
  "webhook.test"
)
export type EventType = typeof EventType.Type

/** Every event type, in the order the spec lists them. */
export const eventTypes: ReadonlyArray<EventType> = EventType.literals

/** H3: an event's `data` carries ids and counts, with at most this many ad ids. */
export const maxAdIdsPerEvent = 100

/** An event's body on the wire (H3): `{ id, type, created_at, data }`. */
export const OutboxEvent = Schema.Struct({
  id: Schema.String.annotations({ description: "The event's id, the `webhook-id` header: stable across retries" }),
  type: EventType,
  created_at: Schema.String.annotations({ description: "ISO 8601, UTC" }),
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown })
}).annotations({ identifier: "Event" })
export type OutboxEvent = typeof OutboxEvent.Type
