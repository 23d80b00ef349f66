import { Schema } from "effect"
import { InvalidIdMessage } from "./Errors.js"

/** spec: Endpoints, Notation: `{id}` is alphanumeric, `_` and `-`; anything else is G10's 400. */
export const PathId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9_-]{1,200}$/),
  Schema.annotations({ message: () => InvalidIdMessage, description: "Letters, digits, `_` and `-`" })
)

/** The usual `{ id }` path of a record route. */
export const IdPath = Schema.Struct({ id: PathId })
