import { Effect, JSONSchema, Schema, Stream } from "effect"
import { IngestContract } from "./Api.js"
import { AppConfig } from "../platform/AppConfig.js"
import { PayloadTooLarge } from "../kernel/Errors.js"
import { JsonObject } from "../kernel/Json.js"
import { Ingest } from "./Ingest.js"
import { type EntityName, records } from "./Records.js"
import { serveGroup } from "../access/gateway/Http.js"

/** The JSON Schema of an entity's records, generated from its Effect Schema. */
export const jsonSchemaOf = (entity: EntityName): JsonObject => {
  // (`any`: JSONSchema.make takes any schema; the records' types differ per entity.)
  const schema: Schema.Schema<any, any> = records[entity].schema
  // A JSON Schema document is JSON: decoded as such rather than cast (`JSONSchema.make` types it as a closed union of shapes).
  return Schema.decodeUnknownSync(JsonObject)(JSONSchema.make(schema))
}

export const CatalogAdminLive = serveGroup(IngestContract, "catalogAdmin", (handlers) =>
  Effect.gen(function*() {
    const ingest = yield* Ingest
    const { maxImportBytes } = yield* AppConfig
    const tooLarge = new PayloadTooLarge({ error: `Request body too large: at most ${maxImportBytes} bytes` })
    return handlers
      // Raw: the body is streamed and counted here, never read whole by the platform.
      .handleRaw("ingest", ({ path, request }) =>
        Effect.gen(function*() {
          const declared = Number(request.headers["content-length"] ?? 0)
          if (declared > maxImportBytes) return yield* Effect.fail(tooLarge)
          let seen = 0
          const body = request.stream.pipe(
            Stream.mapError(() => tooLarge),
            Stream.mapEffect((chunk) => (seen += chunk.length) > maxImportBytes ? Effect.fail(tooLarge) : Effect.succeed(chunk))
          )
          return yield* ingest.lines(path.entity, body)
        }))
      .handle("schema", ({ path }) => Effect.succeed(jsonSchemaOf(path.entity)))
  }))
