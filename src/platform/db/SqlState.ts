import { SqlError } from "@effect/sql/SqlError"

/** PostgreSQL's SQLSTATE of a failed statement (`55P03`, `23505`, ...), when the failure carries one. */
export const sqlStateOf = (error: unknown): string | undefined => {
  const cause: unknown = error instanceof SqlError ? error.cause : undefined
  return typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : undefined
}
