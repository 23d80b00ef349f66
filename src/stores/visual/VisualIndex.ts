import { Effect } from "effect"
import { StoreRow } from "../catalog/StoreCatalogRepo.js"
import { colourBins, colourSimilarity, popcount32, type ProductFeatures, similarityOf } from "./Features.js"
import { type IndexedRow, ProductRow, VisualRepo } from "./VisualRepo.js"

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
 * The product images' features in flat typed arrays, scanned in full by each search: 200,000
 * images are four popcounts and a 64-bin intersection each, a few tens of milliseconds, with no
 * approximation to miss a crop. Every replica keeps its own copy and, before each search, loads
 * what was written since it last looked (`seq`), so an import is seen by the next search
 * everywhere. A product hashed again keeps its slot.
 */
export class VisualIndex extends Effect.Service<VisualIndex>()("adintel/VisualIndex", {
  effect: Effect.gen(function*() {
    const repo = yield* VisualRepo
    const lock = yield* Effect.makeSemaphore(1)

    let size = 0
    let loaded = 0
    let products = new Float64Array(1024)
    let stores = new Float64Array(1024)
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
      stores[slot] = Number(row.store)
      hashes.set([high(row.phash), low(row.phash), high(row.dhash), low(row.dhash)], 4 * slot)
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

    /** The best `keep` slots by score (a min-heap on parallel arrays), then sorted best first. */
    const topSlots = (query: ProductFeatures, allowed: ReadonlySet<number> | undefined, keep: number) => {
      const heapScores = new Float64Array(keep)
      const heapSlots = new Int32Array(keep)
      let count = 0
      const [qp1, qp2, qd1, qd2] = [high(query.phash), low(query.phash), high(query.dhash), low(query.dhash)]
      const less = (a: number, b: number) =>
        heapScores[a]! < heapScores[b]! || (heapScores[a] === heapScores[b] && products[heapSlots[a]!]! > products[heapSlots[b]!]!)
      const swap = (a: number, b: number) => {
        const [s, t] = [heapScores[a]!, heapSlots[a]!]
        heapScores[a] = heapScores[b]!
        heapSlots[a] = heapSlots[b]!
        heapScores[b] = s
        heapSlots[b] = t
      }
      const down = (at: number) => {
        for (;;) {
          const [l, r] = [2 * at + 1, 2 * at + 2]
          let smallest = at
          if (l < count && less(l, smallest)) smallest = l
          if (r < count && less(r, smallest)) smallest = r
          if (smallest === at) return
          swap(at, smallest)
          at = smallest
        }
      }
      for (let slot = 0; slot < size; slot++) {
        if (allowed !== undefined && !allowed.has(stores[slot]!)) continue
        const h = 4 * slot
        const bits = popcount32(hashes[h]! ^ qp1) + popcount32(hashes[h + 1]! ^ qp2) + popcount32(hashes[h + 2]! ^ qd1) +
          popcount32(hashes[h + 3]! ^ qd2)
        const score = similarityOf(bits, colourSimilarity(colours, colourBins * slot, query.colour))
        if (count < keep) {
          heapScores[count] = score
          heapSlots[count] = slot
          for (let at = count++; at > 0;) {
            const parent = (at - 1) >> 1
            if (!less(at, parent)) break
            swap(at, parent)
            at = parent
          }
        } else if (score > heapScores[0]! || (score === heapScores[0] && products[slot]! < products[heapSlots[0]!]!)) {
          heapScores[0] = score
          heapSlots[0] = slot
          down(0)
        }
      }
      return Array.from({ length: count }, (_, i) => ({ slot: heapSlots[i]!, score: heapScores[i]! }))
        .sort((a, b) => b.score - a.score || products[a.slot]! - products[b.slot]!)
    }

    return {
      refresh,
      /** Images indexed so far (after the last refresh). */
      size: Effect.sync(() => size),

      /**
       * The `limit` stores whose images look most like the query, among `allowed` stores when
       * given, each with its `perStore` best products; a store ranks by its best product.
       */
      search: (query: ProductFeatures, options: {
        readonly allowed?: ReadonlyArray<StoreRow> | undefined
        readonly limit: number
        readonly perStore: number
      }): Effect.Effect<ReadonlyArray<StoreMatch>> =>
        Effect.zipRight(refresh, Effect.sync(() => {
          const allowed = options.allowed === undefined ? undefined : new Set(options.allowed.map(Number))
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
        }))
    }
  }),
  dependencies: [VisualRepo.Default]
}) {}
