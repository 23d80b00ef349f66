import { Either, Schema } from "effect"

/**
 * The deepest nesting of arrays and objects a JSON body or import line may have. Our own
 * records nest a few levels; a limit keeps hostile input (100,000 levels) away from every
 * recursive step after parsing (validation, error formatting, the database's jsonb).
 */
export const maxJsonDepth = 32

/** spec: INTERPRETATIONS G11, the message for a body that is not JSON (docs/SPEC-NOTES.md). */
export const malformedJson = "Malformed request body: expected JSON"

/** Whether `text`'s arrays and objects nest at most `max` deep; strings are skipped. One pass, no allocation. */
export const nestsWithin = (text: string, max: number): boolean => {
  // At most `max` brackets in all (strings' included) cannot nest deeper: counted by the
  // native search, the usual record (an import line) needs no walk of its characters.
  let brackets = 0
  for (let i = text.indexOf("{"); i !== -1 && brackets <= max; i = text.indexOf("{", i + 1)) brackets++
  for (let i = text.indexOf("["); i !== -1 && brackets <= max; i = text.indexOf("[", i + 1)) brackets++
  if (brackets <= max) return true
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92 /* \ */) i++
      else if (c === 34 /* " */) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return false
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--
  }
  return true
}

/**
 * JSON text to a value, refusing what nests deeper than `maxJsonDepth`; the message says what
 * is wrong in one line, without echoing the text.
 */
export const parseJson = (text: string): Either.Either<unknown, string> => {
  if (!nestsWithin(text, maxJsonDepth)) return Either.left(`nested deeper than ${maxJsonDepth} levels`)
  try {
    return Either.right(JSON.parse(text))
  } catch (error) {
    // V8's messages quote a bounded excerpt at most ("Unexpected token 'x', "..." is not valid JSON").
    return Either.left(`invalid JSON: ${oneLine(error instanceof Error ? error.message : String(error), 120)}`)
  }
}

/** `text` on one line, at most `max` characters (a cut is marked with `…`, never inside a surrogate pair). */
export const oneLine = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, " ")
  if (flat.length <= max) return flat
  let end = max - 1
  const last = flat.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${flat.slice(0, end)}…`
}

/** A JSON scalar. */
export type JsonScalar = null | boolean | number | string
const JsonScalar = Schema.Union(Schema.Null, Schema.Boolean, Schema.Number, Schema.String)

/**
 * A JSON value whose arrays hold scalars and objects, not arrays directly (JSON Schema documents
 * are such values). Typed clients generated from the OpenAPI document (openapi-typescript) cannot
 * type an array that holds itself; an object that holds any of these can be typed.
 */
export type JsonValue = JsonScalar | ReadonlyArray<JsonScalar | JsonObject> | JsonObject
/** A JSON object of such values. */
export interface JsonObject {
  readonly [key: string]: JsonValue
}
export const JsonObject: Schema.Schema<JsonObject> = Schema.Record({
  key: Schema.String,
  value: Schema.suspend((): Schema.Schema<JsonValue> => JsonValue)
}).annotations({ identifier: "JsonObject", description: "A JSON object" })
export const JsonValue: Schema.Schema<JsonValue> = Schema.Union(
  JsonScalar,
  Schema.Array(Schema.Union(JsonScalar, Schema.suspend(() => JsonObject))),
  Schema.suspend(() => JsonObject)
).annotations({ identifier: "JsonValue", description: "A JSON value; arrays hold scalars and objects" })
