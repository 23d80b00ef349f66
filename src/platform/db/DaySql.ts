import type { SqlClient } from "@effect/sql"
import type { UtcDay } from "../../kernel/UtcDay.js"

/**
 * UTC days (kernel/UtcDay.ts) as SQL instants, for day filters on `timestamptz` columns: a day
 * `from..to` filter is `column >= startOf(from) and column < endOf(to)`, so an instant late on
 * `to` is in and nothing depends on the session's time zone.
 */
export const dayBounds = (sql: SqlClient.SqlClient) => ({
  /** The instant the day starts (its midnight, UTC). */
  startOf: (day: UtcDay) => sql`(${day}::date::timestamp at time zone 'UTC')`,
  /** The instant after the day: the next day's midnight, UTC. */
  endOf: (day: UtcDay) => sql`((${day}::date + 1)::timestamp at time zone 'UTC')`
})
