import { SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"

/**
 * Rows read through their schema. A row that does not decode is a defect: the statement and
 * its schema disagree, which is never the client's error (the metered layer answers 500 and
 * refunds).
 */
export const decodeRows = <A, I, R>(schema: Schema.Schema<A, I, R>) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  return (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<A>, never, R> => Effect.orDie(decode(rows))
}

const CountRow = Schema.Struct({ n: Schema.Int })

/** The `n` of a `select count(*)::int as n ...` statement: every repository's count. */
export const countOf = <E, R>(statement: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
  SqlSchema.single({ Request: Schema.Void, Result: CountRow, execute: () => statement })(undefined).pipe(Effect.map(({ n }) => n))
