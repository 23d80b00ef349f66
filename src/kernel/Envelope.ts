import { HttpApiSchema } from "@effect/platform"
import { Option, Predicate, Schema, SchemaAST, Struct } from "effect"

/**
 * The error table (issue 43): every expected failure of the contract is a `Schema.TaggedError`
 * class made by `ApiError`, which carries how it answers over HTTP, declared once, beside its
 * fields. Everything else is derived from the class: its wire body (`envelope`), the status
 * the platform answers with, the status the ledger records and whether a metered call answered
 * with it keeps its credit (`statusOf`, `keepsItsCredit`). `test/errorTable.test.ts` walks the
 * whole contract and fails on a declared failure that would answer 500 or carry `_tag`.
 */

/** How an expected failure answers over HTTP. */
export interface WireForm {
  /** Its HTTP status (spec: Errors). */
  readonly status: number
  /** The bare fields, without `success: false` (spec: Errors, the shop's 403 `insufficient_credits`). */
  readonly bare?: boolean
  /**
   * Whether a metered call answered with it keeps its credit (G4). Every deliberate answer
   * below 500 does, which is the default; a refusal before the call ran does not.
   */
  readonly keepsCredit?: boolean
}

const WireFormId: unique symbol = Symbol.for("adintel/kernel/Envelope/WireForm")

/**
 * An expected failure with its wire form: use it as `Schema.TaggedError`, with the wire form
 * last, `class Gone extends ApiError<Gone>()("Gone", { error: Schema.String }, { status: 410 }) {}`.
 * The status is also the platform's own annotation, so `HttpApiSchema` reads it from the class.
 */
export const ApiError = <Self = never>() =>
<const Tag extends string, Fields extends Schema.Struct.Fields>(tag: Tag, fields: Fields, wire: WireForm) =>
  Schema.TaggedError<Self>()(tag, fields, { ...HttpApiSchema.annotations({ status: wire.status }), [WireFormId]: wire })

/** The wire form a schema declares: its own, or that of what it transforms into (a class, an envelope of one). */
const wireFormOfAst = (ast: SchemaAST.AST): Option.Option<WireForm> => {
  const own = ast.annotations[WireFormId] as WireForm | undefined
  if (own !== undefined) return Option.some(own)
  return SchemaAST.isTransformation(ast) ? wireFormOfAst(ast.to) : Option.none()
}

/**
 * Whether a metered call answered with a failure of this schema keeps its credit (G4): every
 * deliberate answer below 500 does, unless its class declares otherwise (`WireForm.keepsCredit`).
 */
export const keepsCreditAst = (ast: SchemaAST.AST): boolean =>
  Option.match(wireFormOfAst(ast), {
    onNone: () => HttpApiSchema.getStatusErrorAST(ast) < 500,
    onSome: (wire) => wire.status < 500 && wire.keepsCredit !== false
  })

/** The class a failure was made by, when it is a schema's (every contract failure is). */
const classOf = (error: unknown): Option.Option<Schema.Schema.Any> => {
  const made: unknown = Predicate.isObject(error) ? error.constructor : undefined
  return Schema.isSchema(made) ? Option.some(made) : Option.none()
}

/**
 * The HTTP status of a failure, as its class declares it (the platform's status annotation,
 * which `ApiError` sets); 500 for anything that is not an expected failure of the contract.
 */
export const statusOf = (error: unknown): number =>
  Option.match(classOf(error), { onNone: () => 500, onSome: (made) => HttpApiSchema.getStatusErrorAST(made.ast) })

/** Whether a metered call answered with `error` keeps its credit (G4): its class's rule, `keepsCreditAst`; never for what is no expected failure. */
export const keepsItsCredit = (error: unknown): boolean =>
  Option.match(classOf(error), { onNone: () => false, onSome: (made) => keepsCreditAst(made.ast) })

const envelopes = new WeakMap<object, Schema.Schema.Any>()

/**
 * The wire form of an expected failure: the class wrapped in a transformation whose encoded
 * side is exactly the envelope the spec prints, `{ success: false, ...fields }` (or the bare
 * fields), without `_tag`; its status the class's. One schema per class (the OpenAPI document
 * shows each failure once, as a component named by its tag). Key order on the wire follows the
 * class's field order. A class made without `ApiError` has no wire form: refused at once.
 */
export const envelope = <
  Self extends { readonly _tag: Tag },
  Tag extends string,
  Fields extends { readonly _tag: Schema.tag<Tag> } & Schema.Struct.Fields
>(
  self: Schema.TaggedErrorClass<Self, Tag, Fields>
): Schema.Schema<Self, Schema.Struct.Encoded<Omit<Fields, "_tag">>, Schema.Struct.Context<Fields>> => {
  const made = envelopes.get(self)
  // (`as`: the schema stored for this class is the one built for it below.)
  if (made !== undefined) return made as Schema.Schema<Self, Schema.Struct.Encoded<Omit<Fields, "_tag">>, Schema.Struct.Context<Fields>>
  const wire = Option.getOrThrowWith(wireFormOfAst(self.ast), () => new Error(`${self._tag} has no wire form: declare it with ApiError`))
  const fields = Struct.omit(self.fields, "_tag") as Schema.Struct.Fields
  const bare = wire.bare === true
  const body = (bare ? Schema.Struct(fields) : Schema.Struct({ success: Schema.Literal(false), ...fields })).annotations({
    identifier: self._tag
  })
  const schema = Schema.transform(body, self, {
    strict: false,
    decode: (body) => ({ ...Struct.omit(body as Record<string, unknown>, "success"), _tag: self._tag }),
    encode: (encoded) => {
      const rest = Struct.omit(encoded as Record<string, unknown>, "_tag")
      return bare ? rest : { success: false, ...rest }
    }
    // (`as any`: the transformation's own type has the class on both sides; the wire side is the struct above.)
  }).annotations(HttpApiSchema.annotations({ status: wire.status })) as any
  envelopes.set(self, schema)
  return schema
}

/** A field whose value is fixed by the spec; the constructor fills it in. */
export const fixed = <const L extends string>(value: L) =>
  Schema.Literal(value).pipe(Schema.propertySignature, Schema.withConstructorDefault(() => value))

/**
 * The status and wire body of a failure answered outside a route of the contract (the RPC
 * exchange's refused body, issue 44): an expected failure as its class declares them, anything
 * else the 500 envelope (spec: Errors).
 */
export const answerTo = (error: unknown): { readonly status: number; readonly body: unknown } =>
  Option.match(Option.filter(classOf(error), (made) => Option.isSome(wireFormOfAst(made.ast))), {
    onNone: () => ({ status: 500, body: { success: false, error: "Internal server error" } }),
    // (`as any`: a class with a wire form is an `ApiError` class, which `envelope` takes; its
    // fields need no service to encode.)
    onSome: (made) => ({ status: statusOf(error), body: Schema.encodeUnknownSync(envelope(made as any) as Schema.Schema<unknown, unknown>)(error) })
  })
