import { Schema } from "effect"
import { Choice } from "./Params.js"

export { Choice }

/**
 * Field types shared by the records. Every string and list has a bound, so one record can
 * never grow a row without limit; messages name what is expected (G11 style).
 */

const message = (text: string) => ({ message: () => ({ message: text, override: true }) })

/** A bounded string; empty strings are refused. */
export const Text = (max: number) =>
  Schema.String.pipe(Schema.minLength(1), Schema.maxLength(max), Schema.annotations(message(`must be a non-empty string of at most ${max} characters`)))

/** The id a record has at its source: what an import upserts by. */
export const ExternalId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9._:@\/-]{1,200}$/),
  Schema.annotations({
    ...message("must be 1 to 200 letters, digits or . _ : @ / -"),
    description: "The record's id at its source; imports upsert by it"
  })
)

export const Url = Schema.String.pipe(
  Schema.maxLength(2048),
  Schema.pattern(/^https?:\/\/[^\s]+$/),
  Schema.annotations({ ...message("must be an http(s) URL of at most 2048 characters"), format: "uri" })
)

export const Domain = Schema.String.pipe(
  Schema.pattern(/^(?=.{1,253}$)([a-z0-9-]{1,63}\.)+[a-z]{2,63}$/),
  Schema.annotations(message("must be a lowercase domain name such as shop.example.com"))
)

/** ISO 3166-1 alpha-2. */
export const CountryCode = Schema.String.pipe(
  Schema.pattern(/^[A-Z]{2}$/),
  Schema.annotations({ ...message("must be an ISO 3166-1 alpha-2 country code such as US"), description: "ISO 3166-1 alpha-2" })
)

/** ISO 639-1. */
export const LanguageCode = Schema.String.pipe(
  Schema.pattern(/^[a-z]{2}$/),
  Schema.annotations(message("must be an ISO 639-1 language code such as en"))
)

/** ISO 4217. */
export const Currency = Schema.String.pipe(
  Schema.pattern(/^[A-Z]{3}$/),
  Schema.annotations(message("must be an ISO 4217 currency code such as USD"))
)

/**
 * The days and instants the service takes: PostgreSQL refuses some dates JavaScript accepts
 * (year 0000), and periods are computed backwards from them, so both ends are well inside
 * what either can hold (docs/SPEC-NOTES.md, "Bounded input").
 */
export const earliestDay = "1900-01-01"
export const latestDay = "2999-12-31"
const withinDays = (day: string) => day >= earliestDay && day <= latestDay
/** The first and the last millisecond of those days, UTC. */
const earliestInstant = Date.parse(`${earliestDay}T00:00:00Z`)
const latestInstant = Date.parse(`${latestDay}T23:59:59.999Z`)

/** An instant with its offset, e.g. 2026-03-01T12:00:00Z; kept as the ISO string. */
export const Instant = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/),
  // Its UTC day within the bounds, compared as milliseconds: parsed once, no Date built (a
  // million-ad import checks three instants an ad).
  Schema.filter((s) => {
    const at = Date.parse(s)
    return at >= earliestInstant && at <= latestInstant
  }),
  Schema.annotations({
    ...message(`must be an ISO 8601 date-time with offset, such as 2026-03-01T12:00:00Z, from ${earliestDay} to ${latestDay}`),
    format: "date-time"
  })
)

/** A calendar day, YYYY-MM-DD. */
export const Day = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}$/),
  Schema.filter((s) => {
    if (!withinDays(s)) return false
    const at = Date.parse(`${s}T00:00:00Z`)
    return !Number.isNaN(at) && new Date(at).toISOString().startsWith(s)
  }),
  Schema.annotations({ ...message(`must be a date YYYY-MM-DD from ${earliestDay} to ${latestDay}`), format: "date" })
)

export const Count = Schema.Int.pipe(
  Schema.between(0, Number.MAX_SAFE_INTEGER),
  Schema.annotations(message("must be a non-negative integer"))
)

export const Amount = Schema.Number.pipe(
  Schema.between(0, 1e12),
  Schema.annotations(message("must be a number from 0 to 1000000000000"))
)

/** A bounded list. */
export const List = <A, I, R>(item: Schema.Schema<A, I, R>, max: number) =>
  Schema.Array(item).pipe(Schema.maxItems(max, { message: () => `must have at most ${max} items` }))

/**
 * A reported range, e.g. impressions 1,000-5,000 (spec: a missing range is null, never 0).
 * `upper` null: open-ended ("over 1M").
 */
export const Range = Schema.Struct({
  lower: Count,
  upper: Schema.NullOr(Count),
  currency: Schema.optional(Currency)
}).pipe(
  Schema.filter((r) => r.upper === null || r.upper >= r.lower, { message: () => "upper must not be below lower" })
)
export type Range = typeof Range.Type

/** Where a record comes from. */
export const Provenance = {
  fetched_at: Instant,
  source: Text(100).annotations({ description: "Who supplied the record, e.g. crawler-eu-1 or demo" }),
  method: Choice("api", "crawler", "manual", "generated").annotations({ description: "How it was obtained" })
}

/**
 * An optional field; absent and null mean the same ("not known"). Kept as a plain optional
 * (no default transformation): decoding stays cheap on million-row imports.
 */
export const maybe = <A, I, R>(schema: Schema.Schema<A, I, R>) => Schema.optional(Schema.NullOr(schema))

/** An optional list; absent means empty. */
export const listOf = <A, I, R>(item: Schema.Schema<A, I, R>, max: number) => Schema.optional(List(item, max))
