import { Schema } from "effect"
import { ApiError, envelope, fixed } from "./Envelope.js"

/**
 * Failures every route can answer, whatever its capability. Each class is what code fails
 * with; each `*Body` is its exact wire form, registered in the contract.
 */

/** spec: INTERPRETATIONS G10/G11: bad input, naming the field. Metered routes keep the credit. */
export class InvalidRequest extends ApiError<InvalidRequest>()("InvalidRequest", {
  error: Schema.String
}, { status: 400 }) {}
export const InvalidRequestBody = envelope(InvalidRequest)

/** An unknown id or path. */
export class NotFound extends ApiError<NotFound>()("NotFound", {
  error: Schema.String
}, { status: 404 }) {}
export const NotFoundBody = envelope(NotFound)

/** spec: Errors, 500 row. Never carries the cause: that goes to the log only. */
export class InternalServerError extends ApiError<InternalServerError>()("InternalServerError", {
  error: fixed("Internal server error")
}, { status: 500 }) {}
export const InternalServerErrorBody = envelope(InternalServerError)

/**
 * A database server holding part of the corpus did not answer (a Citus worker, issue 45;
 * docs/SPEC-NOTES.md "Citus mode"): the call needs its shards and is not answered in part. Its
 * credit is given back, as for any 5xx (G4).
 */
export class CorpusUnavailable extends ApiError<CorpusUnavailable>()("CorpusUnavailable", {
  error: fixed("Part of the ad corpus is unavailable: one of its database servers did not answer. Try again shortly")
}, { status: 503 }) {}
export const CorpusUnavailableBody = envelope(CorpusUnavailable)

/** A state conflict, such as an e-mail that already has an account. */
export class Conflict extends ApiError<Conflict>()("Conflict", {
  error: Schema.String
}, { status: 409 }) {}
export const ConflictBody = envelope(Conflict)

/** A body larger than its route takes (docs/SPEC-NOTES.md, "Bounded input"). */
export class PayloadTooLarge extends ApiError<PayloadTooLarge>()("PayloadTooLarge", {
  error: Schema.String
}, { status: 413 }) {}
export const PayloadTooLargeBody = envelope(PayloadTooLarge)

/**
 * Request headers over Node's limit (16 KiB by default): Node refuses them before any route runs,
 * with this envelope, and closes the connection (app/Server.ts `answerClientError`). Any route
 * can be sent them, so every operation lists it.
 */
export class RequestHeaderFieldsTooLarge extends ApiError<RequestHeaderFieldsTooLarge>()("RequestHeaderFieldsTooLarge", {
  error: fixed("Request header fields too large")
}, { status: 431 }) {}
export const RequestHeaderFieldsTooLargeBody = envelope(RequestHeaderFieldsTooLarge)

/** spec: INTERPRETATIONS G10: the exact message for a path id outside `[A-Za-z0-9_-]+`. */
export const InvalidIdMessage = "Invalid id"
