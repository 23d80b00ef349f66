/**
 * 64-bit perceptual hashes of creatives: pHash (low DCT frequencies) and dHash (neighbour
 * gradients), both from one 32x32 grayscale image. Near-duplicates (re-encoded, resized) land
 * a few bits apart; unrelated images about 32. Arithmetic on pixels only (`ImageFeatures.ts`
 * decodes images into them): it imports nothing, since the demo's creatives are drawn and hashed
 * on a thread, which loads each module again (platform/ServeThread.ts).
 */

/** The side of the grayscale square both hashes start from. */
export const side = 32

const checkLength = (pixels: Uint8Array, length: number, what: string) => {
  if (pixels.length !== length) throw new RangeError(`${what} needs ${length} pixels, got ${pixels.length}`)
}

/** 64 tests, the first one the most significant bit. */
const bits = (test: (i: number) => boolean) => {
  let hash = 0n
  for (let i = 0; i < 64; i++) hash = (hash << 1n) | (test(i) ? 1n : 0n)
  return hash
}

// The orthonormal DCT-II basis for the 8 lowest frequencies: cosines[k][x] = a(k) cos((2x+1)k pi / 64).
const cosines: ReadonlyArray<Float64Array> = Array.from({ length: 8 }, (_, k) =>
  Float64Array.from({ length: side }, (_, x) => Math.sqrt((k === 0 ? 1 : 2) / side) * Math.cos(((2 * x + 1) * k * Math.PI) / (2 * side))))

/**
 * pHash of a 32x32 grayscale image (row-major): the top-left 8x8 DCT-II coefficients, a bit
 * set for each above the median of the 63 besides the DC term.
 */
export const pHashOfPixels = (pixels: Uint8Array): bigint => {
  checkLength(pixels, side * side, "pHash")
  // Rows, then columns, only for the 8 frequencies kept: 8192 + 2048 multiply-adds.
  const rows = new Float64Array(side * 8)
  for (let y = 0; y < side; y++) {
    for (let u = 0; u < 8; u++) {
      let sum = 0
      for (let x = 0; x < side; x++) sum += pixels[y * side + x]! * cosines[u]![x]!
      rows[y * 8 + u] = sum
    }
  }
  const coefficients = new Float64Array(64)
  for (let v = 0; v < 8; v++) {
    for (let u = 0; u < 8; u++) {
      let sum = 0
      for (let y = 0; y < side; y++) sum += rows[y * 8 + u]! * cosines[v]![y]!
      coefficients[v * 8 + u] = sum
    }
  }
  const median = coefficients.slice(1).sort()[31]!
  // The margin absorbs rounding: a flat image has all-zero AC terms, which must not flip bits.
  return bits((i) => coefficients[i]! > median + 1e-6)
}

/** Bit set where a cell of a 9-wide, 8-high grid is brighter than its right neighbour. */
const differenceBits = (cells: ArrayLike<number>) =>
  bits((i) => {
    const at = Math.floor(i / 8) * 9 + (i % 8)
    return cells[at]! > cells[at + 1]!
  })

/** dHash of a 9x8 grayscale image (9 wide, 8 high, row-major). */
export const dHashOfPixels = (pixels9x8: Uint8Array): bigint => {
  checkLength(pixels9x8, 72, "dHash")
  return differenceBits(pixels9x8)
}

// Column x of 32 covers [9x, 9x+9) and cell c of 9 covers [32c, 32c+32) on a 288-wide scale:
// their overlap is an integer weight, so the box sums are exact (no rounding can flip a bit).
const columnWeights: ReadonlyArray<Uint8Array> = Array.from({ length: 9 }, (_, c) =>
  Uint8Array.from({ length: side }, (_, x) => Math.max(0, Math.min(9 * x + 9, 32 * c + 32) - Math.max(9 * x, 32 * c))))

/** dHash of a 32x32 grayscale image, box-downsampled to 9x8 (every cell has the same total weight). */
export const dHashFrom32 = (pixels32: Uint8Array): bigint => {
  checkLength(pixels32, side * side, "dHash")
  const cells = new Float64Array(72)
  for (let row = 0; row < 8; row++) {
    for (let c = 0; c < 9; c++) {
      let sum = 0
      for (let y = row * 4; y < row * 4 + 4; y++) {
        for (let x = 0; x < side; x++) sum += pixels32[y * side + x]! * columnWeights[c]![x]!
      }
      cells[row * 9 + c] = sum
    }
  }
  return differenceBits(cells)
}

export const hammingDistance = (a: bigint, b: bigint): number => {
  let x = BigInt.asUintN(64, a ^ b)
  let count = 0
  for (; x !== 0n; count++) x &= x - 1n
  return count
}

// PostgreSQL has no unsigned 64-bit integer: the same 64 bits are stored as a two's-complement bigint.
export const toSigned64 = (hash: bigint): bigint => BigInt.asIntN(64, hash)
export const fromSigned64 = (stored: bigint): bigint => BigInt.asUintN(64, stored)

// ---------------------------------------------------------------------------------------------
// Synthetic creatives (demo data and tests)

/** mulberry32: a tiny seeded generator, so a seed draws the same creative on every run. */
export const mulberry32 = (seed: number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = Math.imul(state ^ (state >>> 15), state | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * A deterministic 32x32 grayscale "creative": a gradient background and a few shaded
 * rectangles and circles. The same seed with a little `noise` (grey levels, +-) or a `shift`
 * (pixels, right and down) is a near-duplicate; another seed is an unrelated creative.
 */
export const syntheticCreative = (seed: number, variant: { readonly noise?: number; readonly shift?: number } = {}): Uint8Array => {
  const random = mulberry32(seed)
  const shift = variant.shift ?? 0
  const canvas = new Float64Array(side * side)
  // The demo world draws a creative per ad (a million at the bench scale): plain loops, and a
  // shape visits only its box (clipped to the canvas).
  const first = (from: number) => Math.max(0, Math.ceil(from))
  const last = (to: number) => Math.min(side - 1, Math.floor(to))
  // Slopes stay clear of zero so no large area is flat (flat areas make dHash bits coin flips).
  const slope = () => (random() < 0.5 ? -1 : 1) * (0.3 + random() * 0.4)
  const from = random() * 255
  const [gx, gy] = [slope() * 6, slope() * 6]
  for (let y = 0; y < side; y++) for (let x = 0; x < side; x++) canvas[y * side + x] = from + gx * (x - 15.5) + gy * (y - 15.5)
  const shapes = 3 + Math.floor(random() * 3)
  for (let i = 0; i < shapes; i++) {
    const [cx, cy] = [4 + random() * 24 + shift, 4 + random() * 24 + shift]
    const [w, h] = [3 + random() * 10, 3 + random() * 10]
    const [level, sx, sy] = [random() * 255, slope() * 2, slope() * 2]
    const rectangle = random() < 0.5
    const half = rectangle ? h : w
    for (let y = first(cy - half); y <= last(cy + half); y++) {
      for (let x = first(cx - w); x <= last(cx + w); x++) {
        const inside = rectangle ? Math.abs(x - cx) <= w && Math.abs(y - cy) <= h : (x - cx) ** 2 + (y - cy) ** 2 <= w * w
        if (inside) canvas[y * side + x] = level + sx * (x - cx) + sy * (y - cy)
      }
    }
  }
  // Noise from its own generator, so it never changes the layout.
  const jitter = mulberry32(seed ^ 0x5bd1e995)
  const noise = variant.noise ?? 0
  const pixels = new Uint8Array(side * side)
  for (let i = 0; i < pixels.length; i++) pixels[i] = Math.min(255, Math.max(0, Math.round(canvas[i]! + (jitter() * 2 - 1) * noise)))
  return pixels
}
