import { SqlClient } from "@effect/sql"
import { Duration, Effect } from "effect"

export class SystemRepo extends Effect.Service<SystemRepo>()("adintel/SystemRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      /** True when the database answers within two seconds. */
      ping: sql`select 1`.pipe(
        Effect.timeout(Duration.seconds(2)),
        Effect.as(true),
        Effect.orElseSucceed(() => false)
      )
    }
  })
}) {}
