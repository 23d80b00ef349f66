import { dHashFrom32, pHashOfPixels, syntheticCreative, toSigned64 } from "../platform/media/PerceptualHashes.js"
import { serveThread } from "../platform/ServeThread.js"

/**
 * The demo's creatives drawn and hashed (issue 29): as the hasher would hash fetched images,
 * from their pixels. `DemoData` runs it on a thread of its own, beside the trend count.
 */

/** Creatives to draw: the seed and the noise of each. */
export interface Drawing {
  readonly seeds: ReadonlyArray<number>
  readonly noises: ReadonlyArray<number>
}

/** The pHash and dHash of each creative in turn, signed as stored. */
export const drawHashes = ({ noises, seeds }: Drawing): BigInt64Array => {
  const hashes = new BigInt64Array(seeds.length * 2)
  seeds.forEach((seed, i) => {
    const pixels = syntheticCreative(seed, { noise: noises[i] ?? 0 })
    hashes[2 * i] = toSigned64(pHashOfPixels(pixels))
    hashes[2 * i + 1] = toSigned64(dHashFrom32(pixels))
  })
  return hashes
}

serveThread(drawHashes)
