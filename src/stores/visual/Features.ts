import { Effect, Schema } from "effect"
import sharp from "sharp"
import { ImageDecoding, maxInputPixels } from "../../platform/media/ImageDecoding.js"
import { dHashFrom32, pHashOfPixels, side } from "../../platform/media/ImageFeatures.js"

/**
 * What visual search compares (issue 20): the project's perceptual hashes (pHash and dHash of
 * a 32x32 grey image, platform/media/ImageFeatures.ts) for shape and layout, and a colour
 * histogram for what survives crops. Re-encoding and resizing move the hashes a few bits and
 * the histogram hardly at all; a slight crop moves the hashes more, the histogram little.
 */

/** The formats a visual search takes, recognised by their first bytes (not by a name or a header). */
export type ImageFormat = "jpeg" | "png" | "webp" | "avif"

/** Recognises JPEG, PNG, WebP and AVIF by their signatures. */
export const sniffImage = (bytes: Uint8Array): ImageFormat | undefined => {
  const at = (offset: number, text: string) =>
    bytes.length >= offset + text.length && [...text].every((c, i) => bytes[offset + i] === c.charCodeAt(0))
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg"
  if (bytes.length >= 8 && bytes[0] === 0x89 && at(1, "PNG\r\n\x1a\n")) return "png"
  if (at(0, "RIFF") && at(8, "WEBP")) return "webp"
  // ISO BMFF: a `ftyp` box whose major or a compatible brand is avif or avis.
  if (at(4, "ftyp")) {
    const size = Math.min(bytes.length, ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0, 256)
    for (let offset = 8; offset + 4 <= size; offset += 4) {
      if (offset === 12) continue // the minor version, not a brand
      if (at(offset, "avif") || at(offset, "avis")) return "avif"
    }
  }
  return undefined
}

/** Colour histogram: 4 levels per channel, 64 bins, each pixel spread over its nearest bins. */
export const colourBins = 64
const levels = 4

export interface ProductFeatures {
  readonly phash: bigint
  readonly dhash: bigint
  /** `colourBins` shares that sum to about 255. */
  readonly colour: Uint8Array
}

/** Image data that cannot be read; `reason` is short and safe to show. */
export class FeatureError extends Schema.TaggedError<FeatureError>()("FeatureError", { reason: Schema.String }) {}

/** The soft histogram of RGB pixels (row-major, 3 bytes each): trilinear weights over the 4x4x4 grid. */
export const colourHistogram = (rgb: Uint8Array): Uint8Array => {
  const bins = new Float64Array(colourBins)
  const pixels = rgb.length / 3
  // Each channel value's lower bin and its weight towards the next one, computed once.
  const lower = new Uint8Array(256)
  const towards = new Float64Array(256)
  for (let value = 0; value < 256; value++) {
    const position = (value / 255) * (levels - 1)
    lower[value] = Math.min(levels - 2, Math.floor(position))
    towards[value] = position - lower[value]!
  }
  for (let i = 0; i < pixels; i++) {
    const [vr, vg, vb] = [rgb[3 * i]!, rgb[3 * i + 1]!, rgb[3 * i + 2]!]
    const [r, fr, g, fg, b, fb] = [lower[vr]!, towards[vr]!, lower[vg]!, towards[vg]!, lower[vb]!, towards[vb]!]
    for (let dr = 0; dr < 2; dr++) {
      const wr = dr === 0 ? 1 - fr : fr
      for (let dg = 0; dg < 2; dg++) {
        const wg = dg === 0 ? 1 - fg : fg
        for (let db = 0; db < 2; db++) {
          const wb = db === 0 ? 1 - fb : fb
          bins[((r + dr) * levels + (g + dg)) * levels + (b + db)]! += wr * wg * wb
        }
      }
    }
  }
  return Uint8Array.from(bins, (weight) => Math.round((weight / Math.max(1, pixels)) * 255))
}

/** How alike two histograms are: their intersection, 0 (no colour in common) to 1 (the same). */
export const colourSimilarity = (a: Uint8Array, aOffset: number, b: Uint8Array): number => {
  let shared = 0
  for (let i = 0; i < colourBins; i++) {
    const x = a[aOffset + i]!
    const y = b[i]!
    shared += x < y ? x : y
  }
  return Math.min(1, shared / 255)
}

/** Bits set in a 32-bit word. */
export const popcount32 = (word: number): number => {
  let x = word - ((word >>> 1) & 0x55555555)
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24)
}

/** Shape and colour in one score in [0, 1]: differing hash bits (0 alike, 64 of 128 unrelated) and the histograms' intersection. */
export const hashWeight = 0.7
export const similarityOf = (differingBits: number, colour: number): number =>
  hashWeight * Math.max(0, 1 - differingBits / 64) + (1 - hashWeight) * colour

const formats = new Set(["jpeg", "png", "webp", "avif", "heif"])

/** The features of a decoded image: one grey and one colour 32x32 reduction. */
const reduce = async (image: sharp.Sharp): Promise<ProductFeatures> => {
  const flat = image.flatten({ background: "#ffffff" })
  const [grey, rgb] = await Promise.all([
    flat.clone().toColourspace("b-w").resize(side, side, { fit: "fill" }).raw().toBuffer(),
    flat.clone().toColourspace("srgb").removeAlpha().resize(side, side, { fit: "fill" }).raw().toBuffer()
  ])
  if (grey.length !== side * side || rgb.length !== side * side * 3) throw new Error("unexpected pixel layout")
  const pixels = new Uint8Array(grey.buffer, grey.byteOffset, grey.byteLength)
  return {
    phash: pHashOfPixels(pixels),
    dhash: dHashFrom32(pixels),
    colour: colourHistogram(new Uint8Array(rgb.buffer, rgb.byteOffset, rgb.byteLength))
  }
}

const extract = async (bytes: Uint8Array): Promise<ProductFeatures> => {
  const image = sharp(bytes, { limitInputPixels: maxInputPixels, failOn: "error", autoOrient: true })
  const meta = await image.metadata()
  if (!formats.has(meta.format)) throw new Error("unsupported format")
  return reduce(image)
}

/** The features of an image (any format sharp reads of the four), or why it cannot be read. */
export const featuresOf = (bytes: Uint8Array): Effect.Effect<ProductFeatures, FeatureError, ImageDecoding> =>
  Effect.flatMap(ImageDecoding, (decoding) =>
    decoding.limit(Effect.tryPromise({
      try: () => extract(bytes),
      catch: (error) =>
        new FeatureError({
          reason: /pixel limit/i.test(String(error)) ? `larger than ${maxInputPixels / 1_000_000} megapixels` : "not a readable image"
        })
    })))

/**
 * The features of one of this service's own drawings, from its SVG: the same pixels as its
 * PNG (lossless), without encoding and decoding one, which is most of the cost when a demo
 * world's photos are indexed. Only for SVG this service wrote (user input never takes this path).
 */
export const featuresOfDrawing = (svg: string): Effect.Effect<ProductFeatures> =>
  Effect.promise(async () => {
    // Rendered whole first: reduced straight from the SVG, it would be drawn at another scale.
    const { data, info } = await sharp(Buffer.from(svg)).raw().toBuffer({ resolveWithObject: true })
    return reduce(sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }))
  })
