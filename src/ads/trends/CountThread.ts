import { serveThread } from "../../platform/ServeThread.js"
import { type AdCopy, termKinds, termsOf } from "./Phrases.js"
import { type CountedAd, Counters, type DaySum, dayNumber, daysKept, monthAndDay, type MonthSum, sumDays, sumMonths } from "./Sums.js"
import type { Cell } from "./TrendsRepo.js"
import { cellKey, cellsOfAd } from "./Windows.js"

/**
 * A counting batch's phrases extracted and summed on a thread of its own (issue 29): the
 * counting fiber's main thread reads and writes the packed rows meanwhile, so that both cores
 * work. The thread keeps the dictionaries of terms and cells as far as it has met them (an id
 * never changes once given): only the texts it does not know cross to the main thread, which
 * asks PostgreSQL for their ids, and every other exchange is typed arrays, moved, not copied.
 *
 * A batch takes two requests: `terms` reads the ads' copies into ids, a new text a hole; `sums`
 * is given the new texts' ids, fills the holes and sums the batch (Sums.ts). The thread holds
 * nothing between them: what `terms` answered is handed back.
 */

/** Typed arrays of buffers of their own, which can move between threads. */
type Int32s = Int32Array<ArrayBuffer>

/** The kinds of term, as `termKinds` numbers them (0 and 1). */
const kindCount = 2

/** Ad copies as columns: ad i's countries and languages are the next `country_counts[i]` of `countries` and `language_counts[i]` of `languages`. */
export interface Copies {
  /** 1: the copy is counted; -1: a copy counted before is taken back. */
  readonly signs: ReadonlyArray<number>
  readonly library: ReadonlyArray<string>
  readonly first_seen: ReadonlyArray<string>
  readonly niche: ReadonlyArray<string | null>
  readonly country_counts: ReadonlyArray<number>
  readonly countries: ReadonlyArray<string>
  readonly language_counts: ReadonlyArray<number>
  readonly languages: ReadonlyArray<string>
  readonly headline: ReadonlyArray<string | null>
  readonly body: ReadonlyArray<string | null>
  readonly description: ReadonlyArray<string | null>
  readonly hook: ReadonlyArray<string | null>
}

/** A batch's ads as ids. A term or cell the thread did not know is a hole, `-(n + 1)`: the n-th new text of its kind (or the n-th new cell). */
export interface Read {
  readonly signs: Int8Array<ArrayBuffer>
  /** The day each ad counts on (`dayNumber`). */
  readonly days: Int32s
  /** Ad i's terms of kind k are `terms[termStarts[2i + k]]` up to `terms[termStarts[2i + k + 1]]`. */
  readonly termStarts: Int32s
  readonly terms: Int32s
  /** Ad i's cells are `cells[cellStarts[i]]` up to `cells[cellStarts[i + 1]]`. */
  readonly cellStarts: Int32s
  readonly cells: Int32s
  /** New texts by kind (phrases, then hooks), in order of first use. */
  readonly newTerms: readonly [ReadonlyArray<string>, ReadonlyArray<string>]
  readonly newCells: ReadonlyArray<Cell>
}

/** The ids of a `Read`'s new texts, in their order. */
export interface Learned {
  readonly terms: readonly [Int32s, Int32s]
  readonly cells: Int32s
}

/**
 * Summed rows as columns: row r's keys `a[r]`, `b[r]`, `c[r]` (a day row: kind, day, cell; a
 * month row: term, month), its entries `starts[r]` up to `starts[r + 1]` of `first`, `second`
 * (month rows: the day of the month) and `counts`.
 */
export interface Rows {
  readonly a: Int32s
  readonly b: Int32s
  readonly c: Int32s
  readonly starts: Int32s
  readonly first: Int32s
  readonly second: Int32s
  readonly counts: Int32s
}

/** A batch summed: the days it counted on (`dayNumber`), its day rows and month rows. */
export interface Summed {
  readonly counted: Int32s
  readonly days: Rows
  readonly months: Rows
}

export type CountRequest =
  | { readonly _tag: "terms"; readonly copies: Copies }
  | { readonly _tag: "sums"; readonly read: Read; readonly learned: Learned }
export type CountReply = { readonly _tag: "read"; readonly read: Read } | { readonly _tag: "summed"; readonly summed: Summed }

/** What a `Read` moves rather than copies. */
export const buffersOfRead = (read: Read): Array<ArrayBuffer> =>
  [read.signs, read.days, read.termStarts, read.terms, read.cellStarts, read.cells].map((array) => array.buffer)

const buffersOfRows = (rows: Rows): Array<ArrayBuffer> =>
  [rows.a, rows.b, rows.c, rows.starts, rows.first, rows.second, rows.counts].map((array) => array.buffer)

/** A growable list of int32s. */
class Ints {
  array: Int32s = new Int32Array(1 << 12)
  length = 0
  push(value: number) {
    if (this.length === this.array.length) {
      const grown = new Int32Array(this.array.length * 2)
      grown.set(this.array)
      this.array = grown
    }
    this.array[this.length++] = value
  }
  /** What was pushed, in an array of its own (its buffer moved with it). */
  done(): Int32s {
    return this.array.slice(0, this.length)
  }
}

/** Past this many remembered terms or cells, a dictionary starts again. */
const maxRemembered = 2_000_000
let termIds: [Map<string, number>, Map<string, number>] = [new Map(), new Map()]
let cellIds = new Map<string, number>()

/** A batch's ads read into ids, as the thread knows them. */
export const readCopies = (copies: Copies): Read => {
  if (termIds[0].size + termIds[1].size >= maxRemembered) termIds = [new Map(), new Map()]
  if (cellIds.size >= maxRemembered) cellIds = new Map()
  const n = copies.signs.length
  const signs = new Int8Array(n)
  const days = new Int32Array(n)
  const termStarts = new Int32Array(n * kindCount + 1)
  const cellStarts = new Int32Array(n + 1)
  const terms = new Ints()
  const cells = new Ints()
  // New texts: their place in the new list, by kind.
  const newTerms = [new Map<string, number>(), new Map<string, number>()] as const
  const newCells = new Map<string, Cell>()
  const newCellAt = new Map<string, number>()
  const termId = (kind: number, text: string) => {
    const id = termIds[kind]!.get(text)
    if (id !== undefined) return id
    const fresh = newTerms[kind]!
    let at = fresh.get(text)
    if (at === undefined) fresh.set(text, at = fresh.size)
    return -(at + 1)
  }
  let country = 0
  let language = 0
  for (let i = 0; i < n; i++) {
    const countryCount = copies.country_counts[i]!
    const languageCount = copies.language_counts[i]!
    const copy: AdCopy = {
      library: copies.library[i]!,
      first_seen: copies.first_seen[i]!,
      niche: copies.niche[i]!,
      countries: copies.countries.slice(country, country += countryCount),
      languages: copies.languages.slice(language, language += languageCount),
      headline: copies.headline[i]!,
      body: copies.body[i]!,
      description: copies.description[i]!,
      hook: copies.hook[i]!
    }
    const ad = termsOf(copy)
    signs[i] = copies.signs[i]!
    days[i] = dayNumber(ad.day)
    termStarts[i * kindCount + termKinds.phrase] = terms.length
    for (const phrase of ad.phrases) terms.push(termId(termKinds.phrase, phrase))
    termStarts[i * kindCount + termKinds.hook] = terms.length
    if (ad.hook !== undefined) terms.push(termId(termKinds.hook, ad.hook))
    cellStarts[i] = cells.length
    for (const cell of cellsOfAd(ad.library, ad.niche, ad.countries)) {
      const key = cellKey(cell)
      const id = cellIds.get(key)
      if (id !== undefined) {
        cells.push(id)
        continue
      }
      let at = newCellAt.get(key)
      if (at === undefined) {
        newCellAt.set(key, at = newCellAt.size)
        newCells.set(key, cell)
      }
      cells.push(-(at + 1))
    }
  }
  termStarts[n * kindCount] = terms.length
  cellStarts[n] = cells.length
  return {
    signs,
    days,
    termStarts,
    terms: terms.done(),
    cellStarts,
    cells: cells.done(),
    newTerms: [[...newTerms[0].keys()], [...newTerms[1].keys()]],
    newCells: [...newCells.values()]
  }
}

/** The dense counters of the sums, kept between batches (requests are answered one at a time). */
const counters = new Counters()

/** Rows as columns, their entries end to end. */
const rowsOf = <R>(rows: ReadonlyArray<R>, keys: (row: R) => readonly [number, number, number], list: (row: R) => DaySum["deltas"]): Rows => {
  const a = new Int32Array(rows.length)
  const b = new Int32Array(rows.length)
  const c = new Int32Array(rows.length)
  const starts = new Int32Array(rows.length + 1)
  let total = 0
  for (const row of rows) total += list(row).length
  const first = new Int32Array(total)
  const second = new Int32Array(rows.length > 0 && list(rows[0]!).width === 2 ? total : 0)
  const counts = new Int32Array(total)
  let at = 0
  rows.forEach((row, r) => {
    ;[a[r], b[r], c[r]] = keys(row)
    const deltas = list(row)
    starts[r] = at
    first.set(deltas.keys[0]!, at)
    if (deltas.width === 2) second.set(deltas.keys[1]!, at)
    counts.set(deltas.counts, at)
    at += deltas.length
  })
  starts[rows.length] = at
  return { a, b, c, starts, first, second, counts }
}

/** A batch read (`readCopies`), its new texts' ids learned and its holes filled, summed. */
export const sumRead = (read: Read, learned: Learned): Summed => {
  read.newTerms.forEach((texts, kind) => texts.forEach((text, at) => termIds[kind]!.set(text, learned.terms[kind]![at]!)))
  read.newCells.forEach((cell, at) => cellIds.set(cellKey(cell), learned.cells[at]!))
  const { cells, cellStarts, days, signs, termStarts, terms } = read
  for (let i = 0; i < cells.length; i++) if (cells[i]! < 0) cells[i] = learned.cells[-cells[i]! - 1]!
  const counted = new Set<number>()
  const ads: Array<CountedAd> = []
  for (let i = 0; i < signs.length; i++) {
    const byKind: Array<Int32s> = []
    for (let kind = 0; kind < kindCount; kind++) {
      const start = termStarts[i * kindCount + kind]!
      const end = termStarts[i * kindCount + kind + 1]!
      const ids = learned.terms[kind]!
      for (let t = start; t < end; t++) if (terms[t]! < 0) terms[t] = ids[-terms[t]! - 1]!
      byKind.push(terms.subarray(start, end))
    }
    const day = days[i]!
    // A day no window or history will reach (before 1800, after 2158) is not counted.
    if (day < 0 || day >= daysKept) continue
    counted.add(day)
    ads.push({ sign: signs[i]!, day, cells: cells.subarray(cellStarts[i]!, cellStarts[i + 1]!), terms: byKind })
  }
  const daySums = sumDays(ads, counters)
  const monthSums = sumMonths(daySums, counters, monthAndDay)
  return {
    counted: Int32Array.from(counted),
    days: rowsOf(daySums, (r: DaySum) => [r.kind, r.day, r.cell], (r) => r.deltas),
    months: rowsOf(monthSums, (r: MonthSum) => [r.term, r.month, 0], (r) => r.deltas)
  }
}

serveThread<CountRequest, CountReply>(
  (request) => request._tag === "terms" ? { _tag: "read", read: readCopies(request.copies) } : { _tag: "summed", summed: sumRead(request.read, request.learned) },
  (reply) => reply._tag === "read" ? buffersOfRead(reply.read) : [reply.summed.counted.buffer, ...buffersOfRows(reply.summed.days), ...buffersOfRows(reply.summed.months)]
)
