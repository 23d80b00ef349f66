import type { HttpApiEndpoint } from "@effect/platform"
import { JSONSchema, Option, type Schema } from "effect"
import { jsonFormOf } from "../kernel/Forms.js"
import { isJsonObject, isTextList } from "../kernel/Guards.js"

/**
 * A tool's input and output schemas, as MCP's `tools/list` carries them (JSON Schema objects
 * whose root is `type: "object"`), from the route's own Effect Schemas.
 */

/** A JSON Schema, as a plain JSON object. */
export type JsonObject = Readonly<Record<string, unknown>>

/** Without `$id`s: the generator names `unknown` `/schemas/unknown` wherever it occurs, which validators refuse as ambiguous. */
const withoutIds = (node: unknown): unknown =>
  Array.isArray(node)
    ? node.map(withoutIds)
    : isJsonObject(node)
    ? Object.fromEntries(Object.entries(node).filter(([key]) => key !== "$id").map(([key, value]) => [key, withoutIds(value)]))
    : node

/** `JSONSchema.make`, as a plain object (its result type is a closed union of JSON Schema shapes, each an object). */
const jsonSchemaOf = (schema: Schema.Schema.Any): JsonObject => {
  const made = withoutIds(JSONSchema.make(schema))
  return isJsonObject(made) ? made : {}
}

/** The definition a local `$ref` names. */
const definition = (defs: JsonObject, ref: string): JsonObject => {
  const found = defs[ref.replace(/^#\/\$defs\//, "")]
  return isJsonObject(found) ? found : {}
}

/**
 * The schema with every local `$ref` replaced by its definition and the generator's `title`s
 * (`between(1, 50)`, `int`) dropped: an input schema a language model reads at a glance. Input
 * schemas are never recursive; `depth` bounds a mistake rather than loop.
 */
const inline = (node: unknown, defs: JsonObject, depth = 0): unknown => {
  if (Array.isArray(node)) return node.map((item) => inline(item, defs, depth))
  if (!isJsonObject(node) || depth > 32) return node
  const { $ref, title: _title, ...rest } = node
  const base = typeof $ref === "string" ? { ...definition(defs, $ref), ...rest } : rest
  const { title: _innerTitle, ...clean } = base
  return Object.fromEntries(Object.entries(clean).map(([key, value]) => [key, inline(value, defs, depth + 1)]))
}

interface Part {
  readonly properties: JsonObject
  readonly required: ReadonlyArray<string>
}

/** The properties of a struct's schema; keys the tool does not take (`api_key`: the credential) left out. */
const partOf = (schema: Schema.Schema.Any, without: ReadonlyArray<string>): Part => {
  const { $defs, ...root } = jsonSchemaOf(schema)
  const made = inline(root, isJsonObject($defs) ? $defs : {})
  const inlined = isJsonObject(made) ? made : {}
  const properties = isJsonObject(inlined["properties"]) ? inlined["properties"] : {}
  const required = isTextList(inlined["required"]) ? inlined["required"] : []
  return {
    properties: Object.fromEntries(Object.entries(properties).filter(([name]) => !without.includes(name))),
    required: required.filter((name) => !without.includes(name))
  }
}

/** Where a tool's arguments go: the path's, then the body's or (without a body) the query string's. */
export interface ArgumentParts {
  readonly path: ReadonlyArray<string>
  readonly query: ReadonlyArray<string>
  readonly body: ReadonlyArray<string>
}

/** Keys a query string may carry that a tool does not take: the API key (a tool's credential is the session's). */
const notArguments = ["api_key"]

/** The input schema of a route as a tool: its path parameters and its body (or query string), one object. */
export const inputOf = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps): { readonly schema: JsonObject; readonly parts: ArgumentParts } => {
  const path = Option.map(endpoint.pathSchema, (schema) => partOf(schema, []))
  // A POST's arguments are its body; its query string (explore's GET form) is left empty.
  // A body declared in two forms (kernel/Forms.ts) is its JSON form here: a tool's arguments are JSON.
  const body = Option.map(endpoint.payloadSchema, (schema) => partOf(jsonFormOf(schema), []))
  const query = Option.isSome(body) ? Option.none() : Option.map(endpoint.urlParamsSchema, (schema) => partOf(schema, notArguments))
  const parts = [path, query, body].flatMap(Option.toArray)
  return {
    schema: {
      type: "object",
      properties: Object.assign({}, ...parts.map((part) => part.properties)),
      required: parts.flatMap((part) => part.required),
      additionalProperties: false
    },
    parts: {
      path: Option.match(path, { onNone: () => [], onSome: (part) => Object.keys(part.properties) }),
      query: Option.match(query, { onNone: () => [], onSome: (part) => Object.keys(part.properties) }),
      body: Option.match(body, { onNone: () => [], onSome: (part) => Object.keys(part.properties) })
    }
  }
}

/**
 * The output schema of a route as a tool: its success body's schema (the wire side), the
 * definitions kept (a category tree is recursive), the root made an object as MCP wants it.
 * None when the schema has no JSON Schema form.
 */
export const outputOf = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps): Option.Option<JsonObject> => {
  try {
    const { $schema: _schema, $defs, ...root } = jsonSchemaOf(endpoint.successSchema)
    const defs = isJsonObject($defs) ? $defs : {}
    // A named schema's root is a `$ref`: the definition itself is the root (siblings of a `$ref` are ignored in draft-07).
    const { $ref, ...siblings } = root
    const resolved = typeof $ref === "string" ? { ...definition(defs, $ref), ...siblings } : root
    return Option.some({
      ...resolved,
      type: "object",
      ...(Object.keys(defs).length > 0 ? { $defs: defs } : {})
    })
  } catch {
    return Option.none()
  }
}
