import { SqlError } from "@effect/sql/SqlError"

/** PostgreSQL's SQLSTATE of a failed statement (`55P03`, `23505`, ...), when the failure carries one. */
export const sqlStateOf = (error: unknown): string | undefined => {
  const cause: unknown = error instanceof SqlError ? error.cause : undefined
  return typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : undefined
}

/**
 * A statement that failed because the server could not reach another node of its cluster: a
 * Citus coordinator answering SQLSTATE class 08 (connection exception) for a worker that did not
 * answer (issue 45). Our own connection's failures carry no SQLSTATE (the driver's `ECONNREFUSED`).
 */
export const nodeUnreachable = (error: unknown): boolean => sqlStateOf(error)?.startsWith("08") === true
