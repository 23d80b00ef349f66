import { ParseResult } from "effect"
import { InvalidIdMessage } from "./Errors.js"

/** One decoding problem, as `ParseResult.ArrayFormatter` and `HttpApiDecodeError` report it. */
export interface Issue {
  readonly _tag: string
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/**
 * spec: INTERPRETATIONS G11: what is wrong, naming the field. `<field> is missing`, or
 * `<field>: <message>` (nested fields joined with dots); the spec's exact `Invalid id` as is.
 */
export const describeIssue = (issue: Issue | undefined): string => {
  if (issue === undefined) return "Invalid request"
  if (issue.message === InvalidIdMessage) return InvalidIdMessage
  const field = issue.path.map(String).join(".")
  if (field === "") return `Invalid request: ${issue.message}`
  if (issue._tag === "Missing") return `${field} is missing`
  // Searches refuse what they do not know rather than ignore a misspelt filter.
  if (issue._tag === "Unexpected") return `${field}: unknown parameter`
  return `${field}: ${issue.message}`
}

/** The first problem of a schema's refusal, described. */
export const describeParseError = (error: ParseResult.ParseError): string =>
  describeIssue(ParseResult.ArrayFormatter.formatErrorSync(error)[0])
