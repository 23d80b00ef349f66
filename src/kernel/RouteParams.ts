import { Schema } from "effect"
import { paramFields, strictStruct } from "./QueryParams.js"

/**
 * The short-video shop's query strings and bodies, built from records of parameters
 * (`QueryParams.ts`) and typed parameter by parameter: the routes generated from the catalog's
 * declaration keep each parameter's name and type, so the derived client is typed too.
 */

/** A parameter of any type, as a record of parameters holds it. */
export interface AnyParam {
  readonly query: Schema.Schema.AnyNoContext
  readonly body: Schema.Schema.AnyNoContext
}

/** Fields for a record of parameters in one encoding, each typed as its parameter: optional but the `required` ones. */
export const fieldsOf = <
  P extends { readonly [name: string]: AnyParam },
  Encoding extends "query" | "body",
  Required extends keyof P & string = never
>(params: P, encoding: Encoding, ...required: ReadonlyArray<Required>) => {
  const fields = paramFields(params, encoding)
  for (const name of required) fields[name] = params[name]![encoding]
  // `paramFields` builds these fields (the required ones set in their place); it types them as any field.
  return fields as { readonly [K in keyof P]: K extends Required ? P[K][Encoding] : Schema.optional<P[K][Encoding]> }
}

/** The parameters but some (a record typed as what is left; `Struct.omit` wants keys the type is known to hold). */
export const withoutParams = <P extends object, K extends string>(params: P, ...names: ReadonlyArray<K>) =>
  // The entries left are exactly `Omit<P, K>`'s; `Object.fromEntries` types them as any record.
  Object.fromEntries(Object.entries(params).filter(([name]) => !names.some((omitted) => omitted === name))) as Omit<P, K>

/** What a query string decodes from: text. */
export type QueryText = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/**
 * A query string of some parameters, typed as what it decodes to and what it decodes from.
 * HttpApi's `setUrlParams` checks that a schema decodes from text with a conditional type that
 * TypeScript cannot resolve for a schema built from a type parameter (an entity not yet known);
 * every parameter's query form decodes from text, so the schema is typed as doing so.
 */
export const queryOf = <P extends { readonly [name: string]: AnyParam }, Required extends keyof P & string = never>(
  params: P,
  ...required: ReadonlyArray<Required>
) => {
  const schema = strictStruct(fieldsOf(params, "query", ...required), "query")
  // Library type: `Schema` is invariant in its encoded side, which `Param` types as any.
  return schema as unknown as Schema.Schema<typeof schema.Type, QueryText>
}

