import { Schema } from "effect"
import { envelope, fixed } from "./Envelope.js"

/**
 * Failures every route can answer, whatever its capability. Each class is what code fails
 * with; each `*Body` is its exact wire form, registered in the contract.
 */

/** spec: INTERPRETATIONS G10/G11: bad input, naming the field. Metered routes keep the credit. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  error: Schema.String
}) {}
export const InvalidRequestBody = envelope(InvalidRequest, 400)

/** An unknown id or path. */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  error: Schema.String
}) {}
export const NotFoundBody = envelope(NotFound, 404)

/** spec: Errors, 500 row. Never carries the cause: that goes to the log only. */
export class InternalServerError extends Schema.TaggedError<InternalServerError>()("InternalServerError", {
  error: fixed("Internal server error")
}) {}
export const InternalServerErrorBody = envelope(InternalServerError, 500)

/** A state conflict, such as an e-mail that already has an account. */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  error: Schema.String
}) {}
export const ConflictBody = envelope(Conflict, 409)

/** A body larger than its route takes (docs/SPEC-NOTES.md, "Bounded input"). */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  error: Schema.String
}) {}
export const PayloadTooLargeBody = envelope(PayloadTooLarge, 413)

/**
 * Request headers over Node's limit (16 KiB by default): Node refuses them before any route runs,
 * with this envelope, and closes the connection (app/Server.ts `answerClientError`). Any route
 * can be sent them, so every operation lists it.
 */
export class RequestHeaderFieldsTooLarge extends Schema.TaggedError<RequestHeaderFieldsTooLarge>()("RequestHeaderFieldsTooLarge", {
  error: fixed("Request header fields too large")
}) {}
export const RequestHeaderFieldsTooLargeBody = envelope(RequestHeaderFieldsTooLarge, 431)

/** spec: INTERPRETATIONS G10: the exact message for a path id outside `[A-Za-z0-9_-]+`. */
export const InvalidIdMessage = "Invalid id"
