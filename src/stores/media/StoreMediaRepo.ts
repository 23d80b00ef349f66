import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"

/** The SQL of store media: whether the catalog names a photo (`store_products.images`, migration 0074). */
export class StoreMediaRepo extends Effect.Service<StoreMediaRepo>()("adintel/StoreMediaRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const known = SqlSchema.single({
      Request: Schema.String,
      Result: Schema.Struct({ known: Schema.Boolean }),
      // `@>` on the GIN index: a containment probe, whatever the catalog's size.
      execute: (path) => sql`select exists (select 1 from store_products where images @> ${JSON.stringify([path])}::jsonb) as known`
    })
    return {
      /** Whether some product of the catalog has this media path (`/media/stores/<name>`) among its images. */
      knows: (path: string): Effect.Effect<boolean> => Effect.map(known(path), (row) => row.known).pipe(Effect.orDie)
    }
  })
}) {}
