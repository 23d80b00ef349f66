/**
 * Type guards for values whose type is not known yet (a parsed JSON body, a Node error, a list
 * of names): checked once, then narrowed, instead of asserted with `as`.
 */

/** A JSON object: an object that is neither null nor an array. */
export const isJsonObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A list of texts. */
export const isTextList = (value: unknown): value is ReadonlyArray<string> =>
  Array.isArray(value) && value.every((item) => typeof item === "string")

/** Whether `value` is one of `values` (a list declared `as const`), narrowed to it. */
export const isOneOf = <const L extends ReadonlyArray<string>>(values: L, value: string): value is L[number] => values.includes(value)

/** A Node error's `code` (`ECONNREFUSED`, `ENOENT`, ...), if the value has one. */
export const errorCodeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : undefined

/**
 * A reader of a value a Schema has already decoded but whose type a table of names cannot carry
 * (`params[\`min_${name}\`]`): the value when `guard` accepts it, a defect naming it otherwise
 * (the schema and the table disagree: a bug, not bad input). `undefined` stays `undefined`.
 */
const decodedAs = <A>(guard: (value: unknown) => value is A, what: string) => (name: string, value: unknown): A | undefined => {
  if (value === undefined || guard(value)) return value
  throw new Error(`${name}: expected ${what}, got ${typeof value}`)
}

export const decodedNumber = decodedAs((value): value is number => typeof value === "number", "a number")
export const decodedText = decodedAs((value): value is string => typeof value === "string", "a text")
export const decodedTexts = decodedAs(isTextList, "a list of texts")
export const decodedBoolean = decodedAs((value): value is boolean => typeof value === "boolean", "true or false")

/**
 * Every key of a `const` table, typed as its keys (`Object.keys` types them as any text). (`as`:
 * a table's own keys are exactly `keyof T`; a union of tables gives the keys they all have.)
 */
export const keysOf = <T extends object>(table: T): Array<keyof T & string> => Object.keys(table) as Array<keyof T & string>
