import { HttpApiSchema } from "@effect/platform"
import { Schema, Struct } from "effect"

/**
 * The wire form of an expected failure.
 *
 * Errors are `Schema.TaggedError` classes so handlers can `catchTag` them, but the spec prints
 * bodies without a `_tag` (spec: Errors). This wraps a class in a transformation whose encoded
 * side is exactly the envelope: `{ success: false, ...fields }`, or the bare fields for the few
 * short-video shop answers that carry no `success` (spec: Errors, 403 `insufficient_credits`).
 * Key order on the wire follows the class's field order.
 */
export const envelope = <
  Self extends { readonly _tag: Tag },
  Tag extends string,
  Fields extends { readonly _tag: Schema.tag<Tag> } & Schema.Struct.Fields
>(
  self: Schema.TaggedErrorClass<Self, Tag, Fields>,
  status: number,
  options?: { readonly bare?: boolean }
): Schema.Schema<Self, Schema.Struct.Encoded<Omit<Fields, "_tag">>, Schema.Struct.Context<Fields>> => {
  const fields = Struct.omit(self.fields, "_tag") as Schema.Struct.Fields
  const bare = options?.bare === true
  // Named by its tag: the OpenAPI document shows each failure once, as a component of that name.
  const wire = (bare ? Schema.Struct(fields) : Schema.Struct({ success: Schema.Literal(false), ...fields })).annotations({
    identifier: self._tag
  })
  return Schema.transform(wire, self, {
    strict: false,
    decode: (body) => ({ ...Struct.omit(body as Record<string, unknown>, "success"), _tag: self._tag }),
    encode: (encoded) => {
      const rest = Struct.omit(encoded as Record<string, unknown>, "_tag")
      return bare ? rest : { success: false, ...rest }
    }
    // (`as any`: the transformation's own type has the class on both sides; the wire side is the struct above.)
  }).annotations(HttpApiSchema.annotations({ status })) as any
}

/** A field whose value is fixed by the spec; the constructor fills it in. */
export const fixed = <const L extends string>(value: L) =>
  Schema.Literal(value).pipe(Schema.propertySignature, Schema.withConstructorDefault(() => value))
