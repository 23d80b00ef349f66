/**
 * Counts packed as bytes (issue 29): how trends store their daily counts. A list of counts is a
 * list of entries sorted by a key of one or two small non-negative integers (a term's id; or a
 * cell's id and a day of the month), each with a count of at least one. It is written as
 * unsigned LEB128 varints: each key component as its difference from the entry before while the
 * components before it are the same (else as it is), the last one doubled plus one when a count
 * other than 1 follows it. Terms of a day's cell are a few hundred to a few thousand ids apart
 * and mostly counted once, so an entry takes two to three bytes, against 40 to 70 for a row of
 * its own (tuple header, key columns and index entry): the storage grows with the vocabulary,
 * not with ads times filter cells.
 *
 * Pure functions over `Uint8Array`: the counting fiber merges deltas into stored lists, the
 * rankings' build and the history read them.
 */

/** A decoded list: `length` entries, key component `c` of entry `i` at `keys[c][i]`, its count at `counts[i]`. */
export interface CountList {
  readonly width: 1 | 2
  readonly length: number
  readonly keys: ReadonlyArray<Int32Array>
  readonly counts: Int32Array
}

/** A growable byte buffer written varint by varint. */
class Bytes {
  private buffer: Uint8Array
  length = 0
  constructor(capacity: number) {
    this.buffer = new Uint8Array(Math.max(16, capacity))
  }

  varint(value: number) {
    if (this.length + 10 > this.buffer.length) {
      const grown = new Uint8Array(this.buffer.length * 2)
      grown.set(this.buffer.subarray(0, this.length))
      this.buffer = grown
    }
    let n = value
    // Arithmetic past 2^31 (a doubled key may pass it), bit operations below it.
    while (n >= 0x80000000) {
      this.buffer[this.length++] = (n % 128) | 0x80
      n = Math.floor(n / 128)
    }
    while (n >= 0x80) {
      this.buffer[this.length++] = (n & 0x7f) | 0x80
      n >>>= 7
    }
    this.buffer[this.length++] = n
  }

  done(): Uint8Array {
    return this.buffer.slice(0, this.length)
  }
}

/**
 * Writes a list's entries in key order as `encode` packs them, into one buffer reused by every
 * list it writes (the counting fiber packs some hundred thousand lists a batch: a buffer each,
 * grown and copied, was a good part of its garbage). Synchronous from `start` to `done`.
 */
class Writer {
  private readonly out = new Bytes(1 << 16)
  private width: 1 | 2 = 1
  private previousFirst = 0
  private previousSecond = 0

  start(width: 1 | 2) {
    this.out.length = 0
    this.width = width
    this.previousFirst = 0
    this.previousSecond = 0
  }

  /** The next entry: its key (`b` unused for lists of one component) and its count, at least 1. */
  put(a: number, b: number, count: number) {
    if (count < 1) throw new RangeError(`a packed count must be at least 1, not ${count}`)
    let last: number
    if (this.width === 1) {
      last = a - this.previousFirst
    } else {
      this.out.varint(a - this.previousFirst)
      last = a === this.previousFirst ? b - this.previousSecond : b
      this.previousSecond = b
    }
    this.previousFirst = a
    // The last key component doubled, plus one when a count other than 1 follows.
    this.out.varint(last * 2 + (count === 1 ? 0 : 1))
    if (count !== 1) this.out.varint(count - 2)
  }

  /** What was written, copied out. */
  done(): Uint8Array {
    return this.out.done()
  }
}
const writer = new Writer()

/** The packed form of `list` (its entries sorted by key, counts at least 1). */
export const encode = (list: CountList): Uint8Array => {
  const first = list.keys[0]!
  const second = list.width === 2 ? list.keys[1]! : undefined
  writer.start(list.width)
  for (let i = 0; i < list.length; i++) writer.put(first[i]!, second === undefined ? 0 : second[i]!, list.counts[i]!)
  return writer.done()
}

/** Reads the varints of `bytes` in order. */
class Reader {
  position = 0
  constructor(private readonly bytes: Uint8Array) {}
  get more() {
    return this.position < this.bytes.length
  }
  varint(): number {
    let result = 0
    let scale = 1
    for (;;) {
      const byte = this.bytes[this.position++]
      if (byte === undefined) throw new RangeError("packed counts end inside a number")
      result += (byte & 0x7f) * scale
      if (byte < 0x80) return result
      scale *= 128
    }
  }
}

/** The entries of a packed list, read one at a time (`next`) without a callback or arrays: what `merge` walks. */
class Entries {
  private readonly reader: Reader
  a = 0
  b = 0
  count = 0
  constructor(bytes: Uint8Array, private readonly width: 1 | 2) {
    this.reader = new Reader(bytes)
  }

  /** Moves to the next entry; false at the end. */
  next(): boolean {
    const reader = this.reader
    if (!reader.more) return false
    let last: number
    if (this.width === 1) {
      last = reader.varint()
      this.a += Math.floor(last / 2)
    } else {
      const step = reader.varint()
      last = reader.varint()
      this.b = step === 0 ? this.b + Math.floor(last / 2) : Math.floor(last / 2)
      this.a += step
    }
    this.count = last % 2 === 0 ? 1 : reader.varint() + 2
    return true
  }
}

/** Calls `each` with every entry of a packed list in key order (`b` is 0 for lists of one component). */
export const forEach = (bytes: Uint8Array, width: 1 | 2, each: (a: number, b: number, count: number) => void): void => {
  const entries = new Entries(bytes, width)
  while (entries.next()) each(entries.a, entries.b, entries.count)
}

/** A packed list decoded. */
export const decode = (bytes: Uint8Array, width: 1 | 2): CountList => {
  // An entry takes a byte at least per key component.
  const first = new Int32Array(Math.ceil(bytes.length / width))
  const second = new Int32Array(width === 2 ? first.length : 0)
  const counts = new Int32Array(first.length)
  let n = 0
  forEach(bytes, width, (a, b, count) => {
    first[n] = a
    if (width === 2) second[n] = b
    counts[n++] = count
  })
  return { width, length: n, keys: width === 1 ? [first.subarray(0, n)] : [first.subarray(0, n), second.subarray(0, n)], counts: counts.subarray(0, n) }
}

/** The second key component of a two-component list is below this (a day of the month): a key is one small integer. */
export const pairStride = 32

/** The one-number key of an entry whose key has two components. */
export const pairKey = (a: number, b: number) => a * pairStride + b

/**
 * Changes to a list, by key (a term id, or `pairKey(cell, day of the month)`): positive adds,
 * negative takes away. Sorted into a list's order once all are in.
 */
export const sortedDeltas = (deltas: ReadonlyMap<number, number>, width: 1 | 2): CountList => {
  const keys = Array.from(deltas.keys()).sort((a, b) => a - b)
  const first = new Int32Array(keys.length)
  const second = new Int32Array(width === 2 ? keys.length : 0)
  const counts = new Int32Array(keys.length)
  let n = 0
  for (const key of keys) {
    const by = deltas.get(key)!
    if (by === 0) continue
    if (width === 1) first[n] = key
    else {
      first[n] = Math.floor(key / pairStride)
      second[n] = key % pairStride
    }
    counts[n++] = by
  }
  return { width, length: n, keys: width === 1 ? [first.subarray(0, n)] : [first.subarray(0, n), second.subarray(0, n)], counts: counts.subarray(0, n) }
}

/** A count taken below zero: what was stored and what was taken do not match. */
export class NegativeCount extends Error {}

/**
 * `stored` (packed, or none) plus `deltas` (sorted), packed; none when no count is left. A count
 * that would fall below zero is a defect (`NegativeCount`): the counts took back more than
 * they held.
 */
export const merge = (stored: Uint8Array | undefined, deltas: CountList): Uint8Array | undefined => {
  const width = deltas.width
  if (stored === undefined) {
    // Nothing stored: the deltas are the list (a new row, as most are in a bulk load).
    for (let i = 0; i < deltas.length; i++) {
      if (deltas.counts[i]! < 0) throw new NegativeCount(`a count fell to ${deltas.counts[i]}`)
    }
    return deltas.length === 0 ? undefined : encode(deltas)
  }
  // Both lists walked in key order, the merged entries packed as they come.
  const base = new Entries(stored, width)
  const [deltaFirst, deltaSecond] = deltas.keys
  writer.start(width)
  let more = base.next()
  let j = 0
  let written = 0
  while (more || j < deltas.length) {
    let order: number
    if (!more) order = 1
    else if (j === deltas.length) order = -1
    else {
      order = base.a - deltaFirst![j]!
      if (order === 0 && width === 2) order = base.b - deltaSecond![j]!
    }
    let a: number
    let b = 0
    let count: number
    if (order <= 0) {
      a = base.a
      b = base.b
      count = base.count + (order === 0 ? deltas.counts[j++]! : 0)
      more = base.next()
    } else {
      a = deltaFirst![j]!
      if (width === 2) b = deltaSecond![j]!
      count = deltas.counts[j++]!
    }
    if (count < 0) throw new NegativeCount(`a count fell to ${count}`)
    if (count > 0) {
      writer.put(a, b, count)
      written++
    }
  }
  return written === 0 ? undefined : writer.done()
}

/** A kept ranking's terms, in their order: id, count and previous count each. */
export const packTallies = (tallies: ReadonlyArray<{ readonly id: number; readonly count: number; readonly previous: number }>): Uint8Array => {
  const out = new Bytes(tallies.length * 4)
  for (const { count, id, previous } of tallies) {
    out.varint(id)
    out.varint(count)
    out.varint(previous)
  }
  return out.done()
}

export const unpackTallies = (bytes: Uint8Array): Array<{ readonly id: number; readonly count: number; readonly previous: number }> => {
  const reader = new Reader(bytes)
  const tallies: Array<{ id: number; count: number; previous: number }> = []
  while (reader.more) tallies.push({ id: reader.varint(), count: reader.varint(), previous: reader.varint() })
  return tallies
}
