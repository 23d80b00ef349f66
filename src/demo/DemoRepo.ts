import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"

export const DemoMarker = Schema.Struct({ scale: Schema.String, seed: Schema.Number, today: Schema.String })
export type DemoMarker = typeof DemoMarker.Type
/** A `service_state` value: JSON that a marker of another shape leaves unrecognised, not broken. */
const StateValue = Schema.Struct({ value: Schema.Unknown })

/** Which demo dataset this database holds, kept in `service_state`. */
export class DemoRepo extends Effect.Service<DemoRepo>()("adintel/DemoRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const decode = Schema.decodeUnknownOption(DemoMarker)
    return {
      loaded: SqlSchema.findOne({
        Request: Schema.Void,
        Result: StateValue,
        execute: () => sql`select value from service_state where key = 'demo_data'`
      })(undefined).pipe(
        Effect.map(Option.flatMap((row) => decode(row.value))),
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
