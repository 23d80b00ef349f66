import { Schema } from "effect"
import { InvalidIdMessage } from "./Errors.js"

/** spec: Endpoints, Notation: `{id}` is alphanumeric, `_` and `-`; anything else is G10's 400. */
export const PathId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9_-]{1,200}$/),
  Schema.annotations({ message: () => InvalidIdMessage, description: "Letters, digits, `_` and `-`" })
)

/** The usual `{ id }` path of a record route. */
export const IdPath = Schema.Struct({ id: PathId })

/** An integer within bounds; one message for every way a value can miss (G11). */
export const IntRange = (min: number, max: number) =>
  Schema.Int.pipe(
    Schema.between(min, max),
    Schema.annotations({ message: () => ({ message: `must be an integer from ${min} to ${max}`, override: true }) })
  )

/** One of a few words; any other value fails with one message listing them (G11). */
export const Choice = <const L extends ReadonlyArray<string>>(...values: L) =>
  Schema.Literal(...values).annotations({
    message: () => ({ message: `must be one of ${values.join(", ")}`, override: true })
  })

/** INTERPRETATIONS P2: a page of a list, before the envelope's `success`. */
export interface Page<A> {
  readonly data: ReadonlyArray<A>
  readonly total: number
  readonly page: number
  readonly page_size: number
}
