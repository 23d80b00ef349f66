import { describe, expect, it } from "vitest"
import { nestsWithin } from "../src/kernel/Json.js"
import { mayHoldUnstorable, unstorableTextAt } from "../src/kernel/Text.js"

/**
 * The import's shortcuts over a line's JSON text (issue 29, item 6): a line is walked for
 * unstorable strings only when its text may hold one, and its nesting is counted by brackets
 * first. Neither may let through what the full checks refuse.
 */
describe("import line checks", () => {
  const values: ReadonlyArray<unknown> = [
    { name: "Glow\u0000Lab" },
    { name: "Glow \ud800" },
    { name: "tail \udc00 lone low" },
    { ["key\u0000"]: 1 },
    ["a", ["b", "\ud83c"]],
    { name: "pair 🎉 is fine" },
    { name: "escaped backslash then u0000: \\u0000" },
    { name: "plain", tags: ["x", "y"], n: 1 }
  ]

  it("a line whose text has no NUL or surrogate, raw or escaped, holds no unstorable string", () => {
    for (const value of values) {
      const text = JSON.stringify(value)
      const unstorable = unstorableTextAt(JSON.parse(text))._tag === "Some"
      if (unstorable) expect(mayHoldUnstorable(text)).toBe(true)
    }
    // Raw characters too (JSON.stringify escapes lone surrogates; a client may not).
    expect(mayHoldUnstorable(`{"name":"a\ud800b"}`)).toBe(true)
    expect(mayHoldUnstorable(`{"name":"a\u0000b"}`)).toBe(true)
    expect(mayHoldUnstorable(`{"name":"a\\u0000b"}`)).toBe(true)
    expect(mayHoldUnstorable(`{"name":"a\\uDBFFb"}`)).toBe(true)
    expect(mayHoldUnstorable(JSON.stringify({ name: "plain ünïcødé", n: 1 }))).toBe(false)
  })

  it("nesting counted by brackets agrees with the walk, strings' brackets included", () => {
    const deep = (n: number) => "[".repeat(n) + "]".repeat(n)
    expect(nestsWithin(deep(32), 32)).toBe(true)
    expect(nestsWithin(deep(33), 32)).toBe(false)
    // Many brackets, shallow: the walk decides.
    expect(nestsWithin(JSON.stringify(Array.from({ length: 40 }, () => [1])), 32)).toBe(true)
    // Brackets inside strings do not nest.
    expect(nestsWithin(JSON.stringify({ text: "[".repeat(100) }), 32)).toBe(true)
    expect(nestsWithin(`{"a":${deep(31)}}`, 32)).toBe(true)
    expect(nestsWithin(`{"a":${deep(32)}}`, 32)).toBe(false)
  })
})
