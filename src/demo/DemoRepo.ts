import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"

export const DemoMarker = Schema.Struct({ scale: Schema.String, seed: Schema.Number, today: Schema.String })
export type DemoMarker = typeof DemoMarker.Type

/** Which demo dataset this database holds, kept in `service_state`. */
export class DemoRepo extends Effect.Service<DemoRepo>()("adintel/DemoRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const decode = Schema.decodeUnknownOption(DemoMarker)
    return {
      loaded: sql<{ value: unknown }>`select value from service_state where key = 'demo_data'`.pipe(
        Effect.map((rows) => Option.flatMap(Option.fromNullable(rows[0]), (row) => decode(row.value))),
        Effect.orDie
      ),
      markLoaded: (marker: DemoMarker, now: Date) =>
        sql`insert into service_state (key, value, updated_at) values ('demo_data', ${JSON.stringify(marker)}::jsonb, ${now})
            on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
    }
  })
}) {}
