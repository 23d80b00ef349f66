import { Chunk, Effect, Option, Stream } from "effect"
import { ImageDecoding } from "../../platform/media/ImageDecoding.js"
import { RemoteMedia } from "../../platform/media/RemoteMedia.js"
import { isMediaPath, mediaPrefix } from "../media/MediaPath.js"
import { artSvg, parseArtName } from "../media/ProductArt.js"
import { StoreMedia } from "../media/StoreMedia.js"
import { featuresOf, featuresOfDrawing, type ProductFeatures } from "./Features.js"
import { type ImageFeaturesRecord, VisualRepo } from "./VisualRepo.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/** A product's main image to index. */
export interface ProductImage {
  readonly store_external_id: string
  readonly external_id: string
  readonly image: string
}

export interface HashReport {
  readonly hashed: number
  /** Images that could not be fetched or read, with why (they are tried again on the next run). */
  readonly failed: ReadonlyArray<{ readonly store_id: string; readonly id: string; readonly reason: string }>
}

/** The largest product image fetched for indexing. */
export const maxIndexedImageBytes = 10 * 1024 * 1024

/**
 * Puts product images into the visual search (issue 20): this service's own media are drawn
 * (the demo worlds), any other URL is fetched under the SSRF rules of user-supplied URLs
 * (`RemoteMedia`), then hashed and stored in batches.
 */
export class ProductImages extends Effect.Service<ProductImages>()("adintel/ProductImages", {
  effect: Effect.gen(function*() {
    const repo = yield* VisualRepo
    const media = yield* StoreMedia
    const decoding = yield* ImageDecoding
    const remote = yield* RemoteMedia

    const bytesOf = (image: string): Effect.Effect<Uint8Array, string> =>
      isMediaPath(image)
        ? Effect.flatMap(media.path(image), Option.match({ onNone: () => Effect.fail("not a media file of this service"), onSome: (f) => Effect.succeed(f.bytes) }))
        : Effect.mapError(
          Effect.map(remote.fetch(image, { maxBytes: maxIndexedImageBytes, accept: ["image/"] }), (f) => f.bytes),
          (e) => e.reason
        )

    /** A drawing of ours is reduced from its SVG (the same pixels as its PNG); anything else from its bytes. */
    const featuresOfImage = (image: string): Effect.Effect<ProductFeatures, string> => {
      const art = isMediaPath(image) ? parseArtName(image.slice(mediaPrefix.length)) : undefined
      return art !== undefined
        ? featuresOfDrawing(artSvg(art.seed, art.label))
        : Effect.flatMap(bytesOf(image), (bytes) => Effect.mapError(Effect.provideService(featuresOf(bytes), ImageDecoding, decoding), (e) => e.reason))
    }

    const index = (images: Stream.Stream<ProductImage>, concurrency: number) =>
      Effect.gen(function*() {
        let hashed = 0
        const failed: Array<{ store_id: string; id: string; reason: string }> = []
        yield* images.pipe(
          Stream.mapEffect((image) =>
            featuresOfImage(image.image).pipe(
              Effect.map((features): Option.Option<ImageFeaturesRecord> =>
                Option.some({ store_external_id: image.store_external_id, external_id: image.external_id, image_url: image.image, ...features })),
              Effect.catchAll((reason) =>
                Effect.sync(() => {
                  if (failed.length < 1_000) failed.push({ store_id: image.store_external_id, id: image.external_id, reason })
                  return Option.none<ImageFeaturesRecord>()
                })
              )
            ), { concurrency }),
          Stream.filterMap((found) => found),
          Stream.grouped(500),
          Stream.runForEach((batch) => Effect.tap(repo.record(Chunk.toReadonlyArray(batch)), () => (hashed += Chunk.size(batch))))
        )
        return { hashed, failed } satisfies HashReport
      })

    return {
      /** Indexes these images (the demo loader's, already known by path). */
      index: Effect.fn("ProductImages.index", serviceSpan)((images: Iterable<ProductImage>, concurrency: number = 2) => index(Stream.fromIterable(images), concurrency)),

      /** Indexes up to `limit` imported products whose main image has no features (or changed). */
      hashPending: Effect.fn("ProductImages.hashPending", serviceSpan)((options: { readonly limit: number; readonly concurrency: number }) =>
        Effect.flatMap(repo.pending(options.limit), (pending) =>
          index(Stream.fromIterable(pending.map((p) => ({ store_external_id: p.store_external_id, external_id: p.external_id, image: p.image_url }))), options.concurrency))),

      record: Effect.fn("ProductImages.record", serviceSpan)(repo.record)
    }
  }),
  dependencies: [VisualRepo.Default, StoreMedia.Default, RemoteMedia.Default, ImageDecoding.Default]
}) {}
