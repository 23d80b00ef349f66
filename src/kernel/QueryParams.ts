import { JSONSchema, Schema } from "effect"
import { Day } from "./Fields.js"
import { IntRange } from "./Params.js"
import { JsonObject } from "./Json.js"

/**
 * Parameters that a route takes in a query string, a JSON body or both (INTERPRETATIONS P3),
 * declared once: each has its decoded type and the two encodings that carry it, and the
 * OpenAPI document shows the decoded type and range. Searches of every family (ads, the
 * short-video shop) declare their filters with these. (`any` below: the encoded side differs per
 * parameter and `Schema` is invariant in it; only the decoded type is a parameter's contract.)
 */
export interface Param<A> {
  /** In a query string: everything is text; lists as `a,b` or the parameter repeated. */
  readonly query: Schema.Schema<A, any>
  /** In a JSON body: numbers are numbers, lists arrays (or `a,b`). */
  readonly body: Schema.Schema<A, any>
}

/** The most values one list parameter takes. */
export const maxListValues = 50

const message = (text: string) => ({ message: () => ({ message: text, override: true }) })

/** What the OpenAPI document shows of a parameter, rather than the transformation that carries it. */
export const documented = <A, I>(schema: Schema.Schema<A, I>, jsonSchema: Record<string, unknown>) =>
  schema.annotations({ jsonSchema })

const jsonSchemaOf = (schema: Schema.Schema.Any): Record<string, unknown> => {
  // A JSON Schema document is JSON: decoded as such rather than cast (`JSONSchema.make` types it as a closed union of shapes).
  const { $defs: _defs, $schema: _schema, ...rest } = Schema.decodeUnknownSync(JsonObject)(JSONSchema.make(schema))
  return rest
}

/** A list: `a,b` or the parameter repeated in a query; an array or `a,b` in a body. */
export const List = <A, I extends string>(item: Schema.Schema<A, I>) =>
  Schema.transform(
    // A body's numbers (`[1, 2]`) are taken as their text, like a query string's.
    Schema.Union(Schema.String, Schema.Number, Schema.Array(Schema.Union(Schema.String, Schema.Number))),
    Schema.Array(Schema.String),
    {
      strict: true,
      decode: (value) =>
        (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(",")).map((v) => v.trim()).filter((v) => v !== ""),
      encode: (values) => values
    }
  ).pipe(
    Schema.compose(
      Schema.Array(item).pipe(
        // Not overriding: a bad item keeps its own message.
        Schema.minItems(1, { message: () => "must list at least one value" }),
        Schema.maxItems(maxListValues, { message: () => `must list at most ${maxListValues} values` })
      ),
      { strict: false }
    )
  )

/** A trimmed, non-empty text; the message never echoes it back (it may be long). */
export const Words = (max: number) =>
  Schema.Trim.pipe(
    Schema.compose(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(max))),
    Schema.annotations(message(`must be a non-empty text of at most ${max} characters`))
  )

/**
 * A number as a query string writes it: decimal digits with an optional sign (and fraction),
 * nothing else: `0x10`, `1e3`, ` 5 ` and `Infinity` are refused, not read as numbers.
 */
const decimalTexts = {
  integer: Schema.String.pipe(Schema.pattern(/^-?\d{1,16}$/), Schema.compose(Schema.NumberFromString)),
  decimal: Schema.String.pipe(Schema.pattern(/^-?\d{1,16}(\.\d{1,16})?$/), Schema.compose(Schema.NumberFromString))
}
const DecimalText = (integer: boolean) => integer ? decimalTexts.integer : decimalTexts.decimal

/**
 * A number within bounds, from a query string's text or a body's number: both schemas made once
 * per bounds (the contract declares hundreds of such parameters over a few bounds, and making
 * a schema is what loading the service's modules spent most on), each parameter adding only
 * its description.
 */
const numbersIn = new Map<string, { readonly bounded: Schema.Schema<number>; readonly query: Schema.Schema<number, string> }>()
const NumberIn = (min: number, max: number, integer: boolean) => {
  const key = `${integer}:${min}:${max}`
  const known = numbersIn.get(key)
  if (known !== undefined) return known
  const text = integer ? `must be an integer from ${min} to ${max}` : `must be a number from ${min} to ${max}`
  const bounded = (integer ? Schema.Int : Schema.Number).pipe(Schema.between(min, max), Schema.annotations(message(text)))
  const made = { bounded, query: Schema.compose(DecimalText(integer), integer ? IntRange(min, max) : bounded).annotations(message(text)) }
  numbersIn.set(key, made)
  return made
}

export const param = {
  /** The same schema in both places (strings, enums). */
  same: <A>(schema: Schema.Schema<A, any>): Param<A> => ({ query: schema, body: schema }),

  int: (min: number, max: number, description: string): Param<number> => param.number(min, max, description, true),

  number: (min: number, max: number, description: string, integer = false): Param<number> => {
    const { bounded, query } = NumberIn(min, max, integer)
    const json = { type: integer ? "integer" : "number", minimum: min, maximum: max, description }
    return { query: documented(query, json), body: bounded.annotations({ description }) }
  },

  list: <A, I extends string>(item: Schema.Schema<A, I>, description: string): Param<ReadonlyArray<A>> =>
    param.same(documented(List(item), {
      type: "array",
      items: jsonSchemaOf(item),
      minItems: 1,
      maxItems: maxListValues,
      description: `${description}; comma-separated (\`a,b\`) or repeated`
    })),

  text: (max: number, description: string): Param<string> =>
    param.same(documented(Words(max), { type: "string", minLength: 1, maxLength: max, description })),

  day: (description: string): Param<string> => param.same(documented(Day, { type: "string", format: "date", description })),

  bool: (description: string): Param<boolean> => ({
    query: documented(
      Schema.transform(Schema.Literal("true", "false"), Schema.Boolean, { strict: true, decode: (s) => s === "true", encode: (b) => (b ? "true" : "false") })
        .annotations(message("must be true or false")),
      { type: "boolean", description }
    ),
    body: Schema.Boolean.annotations({ ...message("must be true or false"), description })
  })
}

type Fields = Record<string, Schema.PropertySignature.Any | Schema.Schema.Any>

/** Optional fields for some parameters in one encoding. */
export const paramFields = (params: Record<string, Param<any>>, encoding: "query" | "body"): Fields =>
  Object.fromEntries(Object.entries(params).map(([name, p]) => [name, Schema.optional(p[encoding])]))

/**
 * A Struct that refuses what it does not declare (`<name>: unknown parameter`): a misspelt
 * filter would otherwise silently widen a search. A query string may carry the API key.
 */
export function strictStruct<F extends Schema.Struct.Fields>(fields: F, encoding: "body"): Schema.Struct<F>
export function strictStruct<F extends Schema.Struct.Fields>(
  fields: F,
  encoding: "query"
): Schema.Struct<F & { readonly api_key: Schema.optional<typeof Schema.String> }>
export function strictStruct(fields: Schema.Struct.Fields, encoding: "query" | "body"): Schema.Struct<Schema.Struct.Fields> {
  return Schema.Struct({
    ...fields,
    // Keys may come in the query string (spec: Authentication); the gateway reads them.
    ...(encoding === "query"
      ? { api_key: Schema.optional(Schema.String).annotations({ description: "The API key, when no header carries it (fallback)" }) }
      : {})
  }).annotations({ parseOptions: { onExcessProperty: "error" } })
}
