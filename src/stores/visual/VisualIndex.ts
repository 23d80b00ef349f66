import { Effect } from "effect"
import { StoreRow } from "../../kernel/Ids.js"
import { colourBins, colourSimilarity, popcount32, type ProductFeatures, similarityOf } from "./Features.js"
import { type IndexedRow, ProductRow, VisualRepo } from "./VisualRepo.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/** A store a search found, with its products that look most alike, best first. */
export interface StoreMatch {
  readonly store: StoreRow
  readonly similarity: number
  readonly products: ReadonlyArray<{ readonly product: ProductRow; readonly similarity: number }>
}

/** Rows read per round trip when the index catches up. */
const loadBatch = 20_000

/** The two 32-bit halves of a 64-bit hash, as signed words. */
const high = (hash: bigint) => Number(BigInt.asIntN(32, hash >> 32n))
const low = (hash: bigint) => Number(BigInt.asIntN(32, hash))

/**
 * The product images' features in flat typed arrays, scanned in full by each search: four
 * popcounts per image, then the colour comparison for the few thousand nearest, so 200,000
 * images take milliseconds and nothing is approximated away. Every replica keeps its own copy
 * and, before each search, loads what was written since it last looked (`seq`), so an import is
 * seen by the next search everywhere. A product hashed again keeps its slot.
 */
export class VisualIndex extends Effect.Service<VisualIndex>()("adintel/VisualIndex", {
  effect: Effect.gen(function*() {
    const repo = yield* VisualRepo
    const lock = yield* Effect.makeSemaphore(1)

    let size = 0
    let loaded = 0
    let products = new Float64Array(1024)
    let stores = new Float64Array(1024)
    /** Each slot's store as a dense number (0, 1, 2...), so a filter is one byte per store. */
    let storeIndex = new Int32Array(1024)
    const storeNumbers = new Map<number, number>()
    let hashes = new Int32Array(4 * 1024)
    let colours = new Uint8Array(colourBins * 1024)
    const slotOf = new Map<number, number>()

    const grow = () => {
      const capacity = products.length * 2
      const larger = <A extends Float64Array | Int32Array | Uint8Array>(array: A, per: number, make: (n: number) => A): A => {
        const next = make(capacity * per)
        next.set(array)
        return next
      }
      products = larger(products, 1, (n) => new Float64Array(n))
      stores = larger(stores, 1, (n) => new Float64Array(n))
      storeIndex = larger(storeIndex, 1, (n) => new Int32Array(n))
      hashes = larger(hashes, 4, (n) => new Int32Array(n))
      colours = larger(colours, colourBins, (n) => new Uint8Array(n))
    }

    const put = (row: IndexedRow) => {
      const product = Number(row.product)
      let slot = slotOf.get(product)
      if (slot === undefined) {
        if (size === products.length) grow()
        slot = size++
        slotOf.set(product, slot)
      }
      products[slot] = product
      const store = Number(row.store)
      stores[slot] = store
      let dense = storeNumbers.get(store)
      if (dense === undefined) storeNumbers.set(store, (dense = storeNumbers.size))
      storeIndex[slot] = dense
      hashes[4 * slot] = high(row.phash)
      hashes[4 * slot + 1] = low(row.phash)
      hashes[4 * slot + 2] = high(row.dhash)
      hashes[4 * slot + 3] = low(row.dhash)
      colours.set(row.colour.subarray(0, colourBins), colourBins * slot)
      loaded = Math.max(loaded, row.seq)
    }

    /** Loads what was written since the last look; one caller at a time. */
    const refresh = lock.withPermits(1)(Effect.gen(function*() {
      const latest = yield* repo.latest
      while (loaded < latest) {
        const rows = yield* repo.since(loaded, loadBatch)
        if (rows.length === 0) break
        rows.forEach(put)
      }
    }))

    /**
     * The slots most like the query, best first, in two passes: the hashes of every image
     * (four popcounts each) pick the `keep` nearest by differing bits, with all the ties at the
     * cut; only those get the colour comparison and a full score. A photo of the same product
     * (re-encoded, resized, slightly cropped) differs in far fewer bits than an unrelated one
     * (about 64 of 128), so it is always among them.
     */
    const topSlots = (query: ProductFeatures, allowed: Uint8Array | undefined, keep: number) => {
      const [qp1, qp2, qd1, qd2] = [high(query.phash), low(query.phash), high(query.dhash), low(query.dhash)]
      const bits = new Uint8Array(size)
      const histogram = new Int32Array(129)
      for (let slot = 0; slot < size; slot++) {
        if (allowed !== undefined && allowed[storeIndex[slot]!] === 0) {
          bits[slot] = 255
          continue
        }
        const h = 4 * slot
        const d = popcount32(hashes[h]! ^ qp1) + popcount32(hashes[h + 1]! ^ qp2) + popcount32(hashes[h + 2]! ^ qd1) +
          popcount32(hashes[h + 3]! ^ qd2)
        bits[slot] = d
        histogram[d]!++
      }
      let cut = 0
      for (let seen = histogram[0]!; cut < 128 && seen < keep; seen += histogram[++cut]!);
      const kept: Array<{ slot: number; score: number }> = []
      for (let slot = 0; slot < size; slot++) {
        if (bits[slot]! <= cut) kept.push({ slot, score: similarityOf(bits[slot]!, colourSimilarity(colours, colourBins * slot, query.colour)) })
      }
      return kept.sort((a, b) => b.score - a.score || products[a.slot]! - products[b.slot]!)
    }

    return {
      refresh,
      /** Images indexed so far (after the last refresh). */
      size: Effect.sync(() => size),

      /**
       * The `limit` stores whose images look most like the query, among `allowed` stores when
       * given, each with its `perStore` best products; a store ranks by its best product.
       */
      search: Effect.fn("VisualIndex.search", serviceSpan)((query: ProductFeatures, options: {
        readonly allowed?: ReadonlyArray<StoreRow> | undefined
        readonly limit: number
        readonly perStore: number
      }): Effect.Effect<ReadonlyArray<StoreMatch>> =>
        Effect.zipRight(refresh, Effect.sync(() => {
          let allowed: Uint8Array | undefined
          if (options.allowed !== undefined) {
            allowed = new Uint8Array(storeNumbers.size)
            for (const store of options.allowed) {
              const dense = storeNumbers.get(Number(store))
              if (dense !== undefined) allowed[dense] = 1
            }
          }
          const ranked = topSlots(query, allowed, Math.max(2_000, options.limit * 50))
          const byStore = new Map<number, Array<{ product: ProductRow; similarity: number }>>()
          for (const { score, slot } of ranked) {
            const store = stores[slot]!
            const found = byStore.get(store) ?? []
            if (!byStore.has(store)) {
              if (byStore.size >= options.limit) continue
              byStore.set(store, found)
            }
            if (found.length < options.perStore) {
              found.push({ product: ProductRow.make(String(products[slot])), similarity: Math.round(score * 10_000) / 10_000 })
            }
          }
          return Array.from(byStore, ([store, found]) => ({ store: StoreRow.make(String(store)), similarity: found[0]!.similarity, products: found }))
        })))
    }
  }),
  dependencies: [VisualRepo.Default]
}) {}
