import { Effect, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { mediaDir } from "../Config.js"
import { isMediaPath, mediaFileName, mediaPrefix } from "./MediaPath.js"
import { drawArt } from "./ProductArt.js"

export interface MediaFile {
  readonly bytes: Uint8Array
  readonly contentType: string
}

const contentTypes: Record<string, string> = { png: "image/png", jpg: "image/jpeg", webp: "image/webp" }

/**
 * This service's own media (issue 20): product images drawn from their names, kept under
 * `STORE_MEDIA_DIR` (default `DATA_DIR/media`) once drawn, served at `/media/stores/<name>`.
 * A name is checked against one pattern (no `/`, no `..`) and the resolved file must sit
 * directly in the folder, so no request can read anything else.
 */
const make = (dir: string) => {
  const root = path.resolve(dir, "stores")

  /** The file a name stands for, when the name is one of ours and stays in the folder. */
  const fileOf = (name: string): Option.Option<string> => {
    if (!mediaFileName.test(name)) return Option.none()
    const file = path.resolve(root, name)
    return path.dirname(file) === root ? Option.some(file) : Option.none()
  }

  const readFile = (file: string) =>
    Effect.tryPromise(() => fs.readFile(file)).pipe(
      Effect.map((buffer) => Option.some(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength))),
      Effect.catchAll(() => Effect.succeed(Option.none<Uint8Array>()))
    )

  /** Written under a temporary name and renamed: a reader never sees half a file. */
  const keep = (file: string, bytes: Uint8Array) =>
    Effect.tryPromise(async () => {
      await fs.mkdir(root, { recursive: true })
      const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`
      await fs.writeFile(temporary, bytes)
      await fs.rename(temporary, file)
    }).pipe(Effect.catchAll((error) => Effect.logWarning(`Could not keep ${file}: ${String(error)}`)))

  /** A media file by name: kept, or drawn (and kept, when `keepDrawn`) when its name describes a drawing. */
  const file = (name: string, keepDrawn = true): Effect.Effect<Option.Option<MediaFile>> =>
    Option.match(fileOf(name), {
      onNone: () => Effect.succeed(Option.none()),
      onSome: (at) =>
        Effect.gen(function*() {
          const contentType = contentTypes[name.slice(name.lastIndexOf(".") + 1)]!
          const kept = yield* readFile(at)
          if (Option.isSome(kept)) return Option.some({ bytes: kept.value, contentType })
          const drawn = yield* Effect.promise(() => drawArt(name))
          if (drawn === undefined) return Option.none()
          if (keepDrawn) yield* keep(at, drawn)
          return Option.some({ bytes: drawn, contentType })
        })
    })

  return {
    file,
    /** The bytes of a media path (`/media/stores/<name>`), as `file`; indexing draws without keeping. */
    path: (reference: string, keepDrawn = true): Effect.Effect<Option.Option<MediaFile>> =>
      isMediaPath(reference) ? file(reference.slice(mediaPrefix.length), keepDrawn) : Effect.succeed(Option.none())
  }
}

export class StoreMedia extends Effect.Service<StoreMedia>()("adintel/StoreMedia", {
  effect: Effect.map(Effect.orDie(mediaDir), make)
}) {
  /** Media kept in `dir` (tests). */
  static readonly layerAt = (dir: string) => Layer.succeed(StoreMedia, StoreMedia.make(make(dir)))
}
