import { Effect, Option, ParseResult } from "effect"
import { InvalidIdMessage, InvalidRequest } from "./Errors.js"
import { oneLine } from "./Json.js"
import { textRule, unstorableTextAt } from "./Text.js"

/** One decoding problem, as `ParseResult.ArrayFormatter` and `HttpApiDecodeError` report it. */
export interface Issue {
  readonly _tag: string
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/** The longest field name a message repeats (a hostile body may name a field with a megabyte). */
const maxFieldName = 64
/** How much of a refused value a message may echo. */
const maxEcho = 32
/** Longer "expected" parts are a schema printed whole, not a rule a reader can use. */
const maxRule = 160

/**
 * A schema's own message (`Expected <what>, actual <value>`) in one short line: the value
 * echoed as a prefix of at most `maxEcho` characters, and an expectation that would print a
 * whole schema said as the kind of value it wants.
 */
const bounded = (message: string): string => {
  const at = message.lastIndexOf(", actual ")
  const [rule, actual] = at === -1 ? [message, undefined] : [message.slice(0, at), message.slice(at + ", actual ".length)]
  const expected = rule.startsWith("Expected ") ? rule.slice("Expected ".length) : undefined
  const kind = expected === undefined || expected.length <= maxRule
    ? rule
    : expected.startsWith("{")
    ? "Expected an object"
    : expected.startsWith("ReadonlyArray<") || expected.startsWith("readonly [")
    ? "Expected an array"
    : rule
  const text = actual === undefined ? kind : `${kind}, actual ${oneLine(actual, maxEcho)}`
  return oneLine(text, maxRule + maxEcho + 16)
}

/** A field as messages name it: nested names joined with dots, each at most `maxFieldName` characters. */
export const fieldName = (path: ReadonlyArray<PropertyKey>): string => path.map((key) => oneLine(String(key), maxFieldName)).join(".")

/**
 * spec: INTERPRETATIONS G11: what is wrong, naming the field. `<field> is missing`, or
 * `<field>: <message>` (nested fields joined with dots); the spec's exact `Invalid id` as is.
 * Always one line, never echoing more than a short prefix of the value.
 */
export const describeIssue = (issue: Issue | undefined): string => {
  if (issue === undefined) return "Invalid request"
  if (issue.message === InvalidIdMessage) return InvalidIdMessage
  const field = fieldName(issue.path)
  // A body that is JSON but not an object (`null`, `[]`, `"x"`) fails at the root.
  if (field === "") return issue._tag === "Type" ? "Malformed request body: expected a JSON object" : `Invalid request: ${bounded(issue.message)}`
  // "is missing", or what a field's own `missingMessage` says to do instead.
  if (issue._tag === "Missing") return `${field} ${oneLine(issue.message, maxRule)}`
  // Searches refuse what they do not know rather than ignore a misspelt filter.
  if (issue._tag === "Unexpected") return `${field}: unknown parameter`
  return `${field}: ${bounded(issue.message)}`
}

/** The first problem of a schema's refusal, described. */
export const describeParseError = (error: ParseResult.ParseError): string =>
  describeIssue(ParseResult.ArrayFormatter.formatErrorSync(error)[0])

/** What a route decoded from the request: its path parameters, query and body. */
export interface DecodedInput {
  readonly path?: unknown
  readonly urlParams?: unknown
  readonly payload?: unknown
}

/**
 * The text rule (kernel/Text.ts) over everything a route decoded, before its handler runs:
 * 400 naming the first field that breaks it. Applied by the route builder to every route
 * (access/gateway/Http.ts `group`), so no route carries a copy.
 */
export const storableInput = (input: DecodedInput): Effect.Effect<void, InvalidRequest> => {
  for (const part of [input.path, input.urlParams, input.payload]) {
    const at = unstorableTextAt(part)
    if (Option.isSome(at)) {
      const field = at.value.length === 0 ? "Request body" : fieldName(at.value)
      return Effect.fail(new InvalidRequest({ error: `${field}: ${textRule}` }))
    }
  }
  return Effect.void
}
