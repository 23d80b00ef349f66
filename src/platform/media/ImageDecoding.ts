import { Config, Effect } from "effect"

/**
 * Decoding an image takes memory by its pixels (4 bytes each, and libvips' own buffers): a
 * decode is bounded twice (issue 28). Each image is refused past `maxInputPixels` from its
 * header, before any pixel is decoded; and at most `IMAGE_DECODE_CONCURRENCY` images decode at
 * once per replica, whatever the number of calls in flight (creative hashing, magic-ai by image,
 * visual search, indexing store photos).
 */

/** 24 megapixels: a 6000 x 4000 photo, about 96 MiB decoded. A decompression bomb declares more. */
export const maxInputPixels = 24_000_000

export const decodeConcurrency = Config.integer("IMAGE_DECODE_CONCURRENCY").pipe(
  Config.withDefault(2),
  Config.validate({ message: "IMAGE_DECODE_CONCURRENCY must be from 1 to 64", validation: (n) => n >= 1 && n <= 64 })
)

export class ImageDecoding extends Effect.Service<ImageDecoding>()("adintel/ImageDecoding", {
  effect: Effect.gen(function*() {
    const slots = yield* Effect.orDie(decodeConcurrency)
    const semaphore = yield* Effect.makeSemaphore(slots)
    return {
      slots,
      /** Runs `decode` when a decoding slot is free. */
      limit: <A, E, R>(decode: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
        semaphore.withPermits(1)(decode).pipe(Effect.withSpan("ImageDecoding.limit"))
    }
  })
}) {}
