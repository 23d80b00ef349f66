/**
 * A small seeded pseudo-random generator (sfc32): same seed, same sequence, on every machine.
 * `Prng.for(seed, "ad", 123)` gives the stream of one record, so any record can be generated
 * alone and the world never has to be held in memory.
 */
export class Prng {
  private a: number
  private b: number
  private c: number
  private d: number

  private constructor(a: number, b: number, c: number, d: number) {
    this.a = a
    this.b = b
    this.c = c
    this.d = d
    for (let i = 0; i < 12; i++) this.next()
  }

  /** A generator for one record: seeds mixed from the world seed and the record's identity. */
  static for(...parts: ReadonlyArray<string | number>): Prng {
    const text = parts.join("\u0000")
    let h1 = 0x9e3779b9
    let h2 = 0x85ebca6b
    let h3 = 0xc2b2ae35
    let h4 = 0x27d4eb2f
    for (let i = 0; i < text.length; i++) {
      const k = text.charCodeAt(i)
      h1 = Math.imul(h1 ^ k, 0x01000193)
      h2 = Math.imul(h2 ^ k, 0x5bd1e995)
      h3 = Math.imul(h3 ^ k, 0x1b873593)
      h4 = Math.imul(h4 ^ k, 0xcc9e2d51)
    }
    return new Prng(h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0)
  }

  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0
    this.d = (this.d + 1) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) | 0
    return (t >>> 0) / 4294967296
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  chance(probability: number): boolean {
    return this.next() < probability
  }

  pick<A>(items: ReadonlyArray<A>): A {
    return items[Math.floor(this.next() * items.length)]!
  }

  /** Several distinct items, in a random order. */
  sample<A>(items: ReadonlyArray<A>, count: number): Array<A> {
    const pool = [...items]
    const out: Array<A> = []
    while (out.length < count && pool.length > 0) out.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0]!)
    return out
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.next()
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next())
  }

  /** Heavy-tailed positive values, as followers, views and sales are. */
  logNormal(median: number, spread: number): number {
    return median * Math.exp(spread * this.normal())
  }

  /** Picks by weight. */
  weighted<A>(items: ReadonlyArray<readonly [A, number]>): A {
    const total = items.reduce((sum, [, w]) => sum + w, 0)
    let roll = this.next() * total
    for (const [item, weight] of items) {
      roll -= weight
      if (roll < 0) return item
    }
    return items[items.length - 1]![0]
  }
}
