import { Effect, Schema } from "effect"
import sharp from "sharp"
import { ImageDecoding, maxInputPixels } from "./ImageDecoding.js"
import { serviceSpan } from "../telemetry/Tracing.js"
import { dHashFrom32, pHashOfPixels, side } from "./PerceptualHashes.js"

/**
 * The perceptual hashes of an image's bytes: decoded by sharp into the 32x32 grayscale pixels
 * that `PerceptualHashes.ts` hashes (whose functions are exported from here too).
 */
export {
  dHashFrom32,
  dHashOfPixels,
  fromSigned64,
  hammingDistance,
  mulberry32,
  pHashOfPixels,
  side,
  syntheticCreative,
  toSigned64
} from "./PerceptualHashes.js"

/** Image data that cannot be decoded; `reason` is short and safe to show. */
export class ImageDecodeError extends Schema.TaggedError<ImageDecodeError>()("ImageDecodeError", {
  reason: Schema.String
}) {}

export interface ImageHashes {
  readonly phash: bigint
  readonly dhash: bigint
  /** Of the original image, as displayed (EXIF orientation applied). */
  readonly width: number
  readonly height: number
}

/** Formats sharp decodes that creatives come in; anything else (SVG, PDF...) is refused. */
const imageFormats = new Set(["jpeg", "png", "webp", "gif", "avif", "heif", "tiff"])

const decode = async (bytes: Uint8Array): Promise<ImageHashes> => {
  // failOn "error": a slightly damaged JPEG still has a usable picture.
  const image = sharp(bytes, { limitInputPixels: maxInputPixels, failOn: "error", autoOrient: true })
  const meta = await image.metadata()
  if (!imageFormats.has(meta.format)) throw new Error("unsupported format")
  const { data, info } = await image
    .flatten({ background: "#ffffff" })
    .toColourspace("b-w")
    .resize(side, side, { fit: "fill" })
    .raw()
    .toBuffer({ resolveWithObject: true })
  if (info.channels !== 1 || data.length !== side * side) throw new Error(`unexpected ${info.channels}-channel output`)
  const pixels = new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
  return {
    phash: pHashOfPixels(pixels),
    dhash: dHashFrom32(pixels),
    width: meta.autoOrient.width,
    // A GIF's first frame: its page height, not the whole strip.
    height: meta.pageHeight ?? meta.autoOrient.height
  }
}

export class ImageFeatures extends Effect.Service<ImageFeatures>()("adintel/ImageFeatures", {
  effect: Effect.map(ImageDecoding, (decoding) => ({
    /** Hashes of any common image (JPEG, PNG, WebP, GIF's first frame), alpha flattened onto white. */
    hash: Effect.fn("ImageFeatures.hash", serviceSpan)((bytes: Uint8Array): Effect.Effect<ImageHashes, ImageDecodeError> =>
      decoding.limit(Effect.tryPromise({
        try: () => decode(bytes),
        catch: (error) =>
          new ImageDecodeError({
            reason: /pixel limit/i.test(String(error))
              ? `larger than ${maxInputPixels / 1_000_000} megapixels`
              : "not a readable JPEG, PNG, WebP or GIF image"
          })
      })))
  })),
  dependencies: [ImageDecoding.Default]
}) {}

/** A synthetic creative as a `size`x`size` PNG: real image bytes for tests and demo data. */
export const encodeSynthetic = (pixels: Uint8Array, size: number): Effect.Effect<Uint8Array> =>
  Effect.promise(() =>
    sharp(pixels, { raw: { width: side, height: side, channels: 1 } }).resize(size, size, { fit: "fill" }).png().toBuffer()
  ).pipe(Effect.map((png) => new Uint8Array(png.buffer, png.byteOffset, png.byteLength)))
