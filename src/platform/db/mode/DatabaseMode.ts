import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"

/**
 * What runs behind `DATABASE_URL` (issue 45): one PostgreSQL, or a Citus coordinator (the
 * `citus` extension created in the database and its workers added by the operator), with the
 * number of active workers that hold shards.
 */
export type DatabaseMode =
  | { readonly _tag: "PostgreSQL" }
  | { readonly _tag: "Citus"; readonly workers: number }

const ModeRow = Schema.Struct({ citus: Schema.Boolean })
const WorkersRow = Schema.Struct({ workers: Schema.Int })

/** The mode of the database `sql` reaches. */
export const databaseMode = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [mode] = yield* sql`select exists (select 1 from pg_extension where extname = 'citus') as citus`.pipe(
    Effect.flatMap(Schema.decodeUnknown(Schema.Array(ModeRow)))
  )
  if (!mode!.citus) return { _tag: "PostgreSQL" } as DatabaseMode
  const [count] = yield* sql`select count(*)::int as workers from citus_get_active_worker_nodes()`.pipe(
    Effect.flatMap(Schema.decodeUnknown(Schema.Array(WorkersRow)))
  )
  return { _tag: "Citus", workers: count!.workers } as DatabaseMode
}).pipe(Effect.orDie, Effect.withSpan("Database.mode"))

/** One line for the start-up log: which mode runs. */
export const describeMode = (mode: DatabaseMode) =>
  mode._tag === "PostgreSQL"
    ? "Database: one PostgreSQL server"
    : `Database: Citus coordinator, ${mode.workers} worker${mode.workers === 1 ? "" : "s"} holding shards`
