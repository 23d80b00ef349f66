import { HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { serveGroup } from "../../access/gateway/Http.js"
import { NotFound } from "../../kernel/Errors.js"
import { StoreMediaContract } from "./Api.js"
import { StoreMedia } from "./StoreMedia.js"

/** `GET /media/stores/{name}`: the bytes, or the plain 404. */
export const StoreMediaLive = serveGroup(StoreMediaContract, "storeMedia", (handlers) =>
  Effect.map(StoreMedia, (media) =>
    handlers.handle("image", ({ path }) =>
      Effect.flatMap(media.file(path.name), Option.match({
        onNone: () => Effect.fail(new NotFound({ error: "Not found" })),
        onSome: ({ bytes, contentType }) =>
          Effect.succeed(HttpServerResponse.uint8Array(bytes, {
            contentType,
            headers: { "cache-control": "public, max-age=86400", "x-content-type-options": "nosniff" }
          }))
      })))))
