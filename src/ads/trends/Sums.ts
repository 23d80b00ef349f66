import { startOf, type UtcDay } from "../../kernel/Days.js"
import type { CountList } from "./Packed.js"

/**
 * A counting batch's sums (issue 29): pure functions over typed arrays, what the counting fiber
 * runs between reading a batch and merging it into the packed rows.
 *
 * An ad adds its terms (one sign, by id) to one row of `trend_days` per kind and cell it counts
 * in, and each (term, cell, day) of those rows to the term's row of `trend_series` for the
 * month. Both are summed with a dense counter per term id, never a map per row: a row's terms
 * are counted into the counter and read back in id order, and the month rows are the day rows'
 * entries regrouped by term with a counting sort. A batch of 50,000 ads adds some ten million
 * (ad, cell, term) triples, so what each costs is what counting costs.
 */

/** One ad's change to the counts, its terms and cells as ids. */
export interface CountedAd {
  /** 1 when the ad's copy is counted, -1 when a copy counted before is taken back. */
  readonly sign: number
  /** The day it counts on, as a number of days (`Sums` needs only their order and their month). */
  readonly day: number
  readonly cells: ArrayLike<number>
  /** Its terms by kind (their ids, each once): kind k's at `terms[k]`. */
  readonly terms: ReadonlyArray<ArrayLike<number>>
}

// Days, months and cells as numbers, for the keys of a batch's sums: days from 1800-01-01
// (2^17 of them, to 2158), months from year 0, cells below 2^32.
export const daysKept = 2 ** 17
const firstDay = Date.UTC(1800, 0, 1)
export const monthsKept = 12 * 10_000
const cellsKept = 2 ** 32
export const dayNumber = (day: UtcDay) => Math.round((startOf(day) - firstDay) / 86_400_000)
export const dayOfNumber = (n: number): UtcDay => new Date(firstDay + n * 86_400_000).toISOString().slice(0, 10)
export const monthNumber = (day: UtcDay) => Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1
export const monthOfNumber = (n: number): UtcDay => `${String(Math.floor(n / 12)).padStart(4, "0")}-${String((n % 12) + 1).padStart(2, "0")}-01`
/** A day's month (as `monthNumber`) and its index in it (0 for the first). */
export const monthAndDay = (n: number) => {
  const day = dayOfNumber(n)
  return { month: monthNumber(day), dayInMonth: Number(day.slice(8, 10)) - 1 }
}
/** A row of trend_days as one number. */
export const dayRowKey = (kind: number, day: number, cell: number) => (kind * daysKept + day) * cellsKept + cell

/** A row of daily counts: its kind, day and cell, and what the batch adds to each term (term ids ascending, none zero). */
export interface DaySum {
  readonly kind: number
  readonly day: number
  readonly cell: number
  readonly deltas: CountList
}

/** A row of a term's monthly series: what the batch adds to each (cell, day of the month), in that order, none zero. */
export interface MonthSum {
  readonly term: number
  /** The month, as `monthOf` numbered it. */
  readonly month: number
  readonly deltas: CountList
}

/**
 * The dense counters the sums use, one slot per term id, grown to the largest id met: kept
 * between batches (a batch of a large corpus would allocate tens of megabytes), all zero
 * between calls. One per counting service; the sums are synchronous, so two lanes never use
 * it at once.
 */
export class Counters {
  counts = new Int32Array(1 << 16)
  /** The row a term was last met in (`sumDays`): a count back at zero is still met. */
  seen = new Int32Array(1 << 16)
  private stamp = 0

  /** Room for ids up to `maxId`. */
  fit(maxId: number) {
    if (maxId < this.counts.length) return
    let size = this.counts.length
    while (size <= maxId) size *= 2
    const seen = new Int32Array(size)
    seen.set(this.seen)
    this.counts = new Int32Array(size)
    this.seen = seen
  }

  /** A stamp no slot of `seen` holds yet. */
  nextStamp(): number {
    if (this.stamp === 0x7fffffff) {
      this.seen.fill(0)
      this.stamp = 0
    }
    return ++this.stamp
  }
}

/** A month slot's row, times this, plus its delta biased to be non-negative (`sumMonths`). */
const rowUnit = 2 ** 32
const deltaBias = 2 ** 31

/** Ids sorted ascending, in place (a typed array's own numeric sort, no comparator). */
const ascending = (ids: Int32Array) => ids.sort()

/**
 * The day rows of `ads`, summed: per (kind, day, cell) the terms' deltas in id order; rows whose
 * deltas all cancel out are left out. In (kind, day, cell) order.
 */
export const sumDays = (ads: ReadonlyArray<CountedAd>, counters: Counters): Array<DaySum> => {
  if (ads.length === 0) return []
  // The ads of each row, by a key in (kind, day, cell) order.
  const rows = new Map<number, Array<CountedAd>>()
  let maxId = 0
  let maxCell = 0
  let minDay = Infinity
  let maxDay = -Infinity
  for (const ad of ads) {
    for (let c = 0; c < ad.cells.length; c++) maxCell = Math.max(maxCell, ad.cells[c]!)
    minDay = Math.min(minDay, ad.day)
    maxDay = Math.max(maxDay, ad.day)
  }
  const cellStride = maxCell + 1
  const dayStride = maxDay - minDay + 1
  for (const ad of ads) {
    ad.terms.forEach((terms, kind) => {
      if (terms.length === 0) return
      for (let t = 0; t < terms.length; t++) if (terms[t]! > maxId) maxId = terms[t]!
      for (let c = 0; c < ad.cells.length; c++) {
        const cell = ad.cells[c]!
        const key = (kind * dayStride + (ad.day - minDay)) * cellStride + cell
        const row = rows.get(key)
        if (row === undefined) rows.set(key, [ad])
        else row.push(ad)
      }
    })
  }
  counters.fit(maxId)
  const { counts, seen } = counters
  const sums: Array<DaySum> = []
  // The ids a row met, in the order met.
  let room = new Int32Array(Math.min(maxId + 1, 1 << 20))
  // The rows' entries, each row a view of a block (a pair of arrays a row was a fifth of the garbage).
  const block = 1 << 18
  let keys = new Int32Array(block)
  let deltas = new Int32Array(block)
  let used = 0
  for (const key of Array.from(rows.keys()).sort((a, b) => a - b)) {
    const cell = key % cellStride
    const kindDay = Math.floor(key / cellStride)
    const kind = Math.floor(kindDay / dayStride)
    const day = (kindDay % dayStride) + minDay
    const stamp = counters.nextStamp()
    let n = 0
    for (const ad of rows.get(key)!) {
      const sign = ad.sign
      const terms = ad.terms[kind]!
      for (let t = 0; t < terms.length; t++) {
        const id = terms[t]!
        if (seen[id] !== stamp) {
          seen[id] = stamp
          if (n === room.length) {
            const grown = new Int32Array(room.length * 2)
            grown.set(room)
            room = grown
          }
          room[n++] = id
        }
        counts[id]! += sign
      }
    }
    const ids = ascending(room.subarray(0, n))
    if (used + n > keys.length) {
      keys = new Int32Array(Math.max(block, n))
      deltas = new Int32Array(keys.length)
      used = 0
    }
    const start = used
    for (let i = 0; i < n; i++) {
      const id = ids[i]!
      const count = counts[id]!
      counts[id] = 0
      if (count === 0) continue
      keys[used] = id
      deltas[used++] = count
    }
    if (used > start) sums.push({ kind, day, cell, deltas: { width: 1, length: used - start, keys: [keys.subarray(start, used)], counts: deltas.subarray(start, used) } })
  }
  return sums
}

/**
 * The month rows of summed day rows: each day row's entries regrouped by term (a counting
 * sort), per term and month the (cell, day of the month) deltas in order. In (term, month) order.
 */
export const sumMonths = (
  days: ReadonlyArray<DaySum>,
  counters: Counters,
  monthOf: (day: number) => { readonly month: number; readonly dayInMonth: number }
): Array<MonthSum> => {
  // The rows in (month, cell, day) order: each term's entries are then met in its list's order.
  const placed = days.map((row) => ({ row, ...monthOf(row.day) }))
    .sort((x, y) => x.month - y.month || x.row.cell - y.row.cell || x.dayInMonth - y.dayInMonth)
  const rowCount = placed.length
  const rowCells = new Int32Array(rowCount)
  const rowDays = new Int32Array(rowCount)
  const rowMonths = new Int32Array(rowCount)
  const { counts } = counters
  // Entries per term, then each term's first slot (in id order), then its slots filled.
  const terms: Array<number> = []
  let total = 0
  for (let r = 0; r < rowCount; r++) {
    const { dayInMonth, month, row } = placed[r]!
    rowCells[r] = row.cell
    rowDays[r] = dayInMonth
    rowMonths[r] = month
    const ids = row.deltas.keys[0]!
    for (let i = 0; i < row.deltas.length; i++) {
      const id = ids[i]!
      if (counts[id] === 0) terms.push(id)
      counts[id]!++
    }
    total += row.deltas.length
  }
  const order = ascending(Int32Array.from(terms))
  let at = 0
  for (const id of order) {
    const n = counts[id]!
    counts[id] = at
    at += n
  }
  // A slot holds its row and delta as one number (row * 2^32 + delta + 2^31, exact in a double):
  // the slots are written in no order, one write each rather than one per field.
  const slots = new Float64Array(total)
  for (let r = 0; r < rowCount; r++) {
    const { deltas } = placed[r]!.row
    const ids = deltas.keys[0]!
    for (let i = 0; i < deltas.length; i++) slots[counts[ids[i]!]!++] = r * rowUnit + deltas.counts[i]! + deltaBias
  }
  const cells = new Int32Array(total)
  const dayOf = new Int32Array(total)
  const deltas = new Int32Array(total)
  // Each term's slots end where its counter now points; split by month, equal keys (a term of
  // two kinds' rows, which ids never are) summed.
  const sums: Array<MonthSum> = []
  let start = 0
  for (const term of order) {
    const end = counts[term]!
    counts[term] = 0
    let read = start
    while (read < end) {
      const month = rowMonths[Math.floor(slots[read]! / rowUnit)]!
      const first = read
      let write = first
      for (; read < end; read++) {
        const slot = slots[read]!
        const r = Math.floor(slot / rowUnit)
        if (rowMonths[r] !== month) break
        const cell = rowCells[r]!
        const day = rowDays[r]!
        const delta = slot - r * rowUnit - deltaBias
        if (write > first && cells[write - 1] === cell && dayOf[write - 1] === day) deltas[write - 1]! += delta
        else {
          cells[write] = cell
          dayOf[write] = day
          deltas[write++] = delta
        }
      }
      // Sums that cancelled out leave the list.
      let kept = first
      for (let i = first; i < write; i++) {
        if (deltas[i] === 0) continue
        cells[kept] = cells[i]!
        dayOf[kept] = dayOf[i]!
        deltas[kept++] = deltas[i]!
      }
      if (kept > first) {
        sums.push({
          term,
          month,
          deltas: { width: 2, length: kept - first, keys: [cells.subarray(first, kept), dayOf.subarray(first, kept)], counts: deltas.subarray(first, kept) }
        })
      }
    }
    start = end
  }
  return sums
}
