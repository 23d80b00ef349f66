import { Effect, Option } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { mediaDir } from "../Config.js"
import { isMediaPath, mediaFileName, mediaPrefix } from "./MediaPath.js"
import { drawArt } from "./ProductArt.js"
import { StoreMediaRepo } from "./StoreMediaRepo.js"

export interface MediaFile {
  readonly bytes: Uint8Array
  readonly contentType: string
}

const contentTypes: Record<string, string> = { png: "image/png", jpg: "image/jpeg", webp: "image/webp" }

/**
 * This service's own media (issue 20): product images drawn from their names, served at
 * `/media/stores/<name>`. Only a photo the catalog names is drawn (issue 28: the route needs no
 * key, and drawing any name asked for let anyone fill the disk), and a drawing is never kept:
 * the disk does not grow with requests. A file an operator put in `STORE_MEDIA_DIR/stores` is
 * served as it is. A name is checked against one pattern (no `/`, no `..`) and the resolved file
 * must sit directly in the folder, so no request can read anything else.
 */
const make = (dir: string, repo: StoreMediaRepo) => {
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

  /** A media file by name, when the catalog names it: the file in the folder, or drawn. */
  const file = (name: string): Effect.Effect<Option.Option<MediaFile>> =>
    Option.match(fileOf(name), {
      onNone: () => Effect.succeed(Option.none()),
      onSome: (at) =>
        Effect.gen(function*() {
          if (!(yield* repo.knows(`${mediaPrefix}${name}`))) return Option.none()
          const contentType = contentTypes[name.slice(name.lastIndexOf(".") + 1)]!
          const kept = yield* readFile(at)
          if (Option.isSome(kept)) return Option.some({ bytes: kept.value, contentType })
          const drawn = yield* Effect.promise(() => drawArt(name))
          return drawn === undefined ? Option.none() : Option.some({ bytes: drawn, contentType })
        }).pipe(Effect.withSpan("StoreMedia.file"))
    })

  return {
    file,
    /** The bytes of a media path (`/media/stores/<name>`), as `file`. */
    path: (reference: string): Effect.Effect<Option.Option<MediaFile>> =>
      isMediaPath(reference) ? file(reference.slice(mediaPrefix.length)) : Effect.succeed(Option.none())
  }
}

export class StoreMedia extends Effect.Service<StoreMedia>()("adintel/StoreMedia", {
  effect: Effect.gen(function*() {
    return make(yield* Effect.orDie(mediaDir), yield* StoreMediaRepo)
  }),
  dependencies: [StoreMediaRepo.Default]
}) {}
