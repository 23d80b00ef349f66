/**
 * The anchors of a full-text query (issue 32, saved searches): lexemes of which every document
 * the query matches holds all, or at least one. The import's matching pass joins a batch's
 * lexemes to them, so a saved search is only tested against the ads that can match it.
 *
 * Read from the query's compiled text (`websearch_to_tsquery(...)::text`, e.g.
 * `'red' & ( 'shoe' | 'boot' )`): a lexeme is needed; `a & b` and `a <-> b` need what both need
 * (all the lexemes of two conjunctions; else the smaller "one of" set); `a | b` needs one of
 * either side's (a lexeme of a conjunction stands for it); `!a` and a prefix (`'sho':*`) need
 * nothing (`null`: the query is tested against every ad of its library). An empty query (only
 * stop words) matches nothing: no anchors at all.
 */

type Token = { readonly kind: "lexeme"; readonly text: string; readonly prefix: boolean } | { readonly kind: "op"; readonly text: string }

const tokenize = (text: string): Array<Token> => {
  const tokens: Array<Token> = []
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (c === " ") i++
    else if (c === "'") {
      let lexeme = ""
      i++
      while (i < text.length) {
        if (text[i] === "'" && text[i + 1] === "'") (lexeme += "'"), (i += 2)
        else if (text[i] === "\\" && i + 1 < text.length) (lexeme += text[i + 1]), (i += 2)
        else if (text[i] === "'") break
        else lexeme += text[i++]
      }
      i++
      // Weights (`:AB`) only narrow where the lexeme may be; a prefix (`:*`) is not a lexeme.
      const suffix = /^:[*A-Da-d]+/.exec(text.slice(i))?.[0] ?? ""
      i += suffix.length
      tokens.push({ kind: "lexeme", text: lexeme, prefix: suffix.includes("*") })
    } else if (c === "<") {
      const end = text.indexOf(">", i)
      tokens.push({ kind: "op", text: "<->" })
      i = end + 1
    } else {
      tokens.push({ kind: "op", text: c })
      i++
    }
  }
  return tokens
}

/**
 * What every match holds: all of `all`'s lexemes, or at least one of `any`'s; `null`: nothing
 * known (any document may match).
 */
type Need = { readonly all: ReadonlySet<string> } | { readonly any: ReadonlySet<string> } | null

/** One lexeme of an `all` stands for it where one of a set is enough (every match holds each). */
const asAny = (need: { readonly all: ReadonlySet<string> } | { readonly any: ReadonlySet<string> }): ReadonlySet<string> =>
  "any" in need ? need.any : new Set([Array.from(need.all).sort()[0]!])

const both = (a: Need, b: Need): Need => {
  if (a === null) return b
  if (b === null) return a
  if ("all" in a && "all" in b) return { all: new Set([...a.all, ...b.all]) }
  if ("all" in a) return a
  if ("all" in b) return b
  return a.any.size <= b.any.size ? a : b
}
const either = (a: Need, b: Need): Need => (a === null || b === null ? null : { any: new Set([...asAny(a), ...asAny(b)]) })

/** A search's anchors: `needed` of `lexemes` are in every ad it matches. */
export interface Anchors {
  readonly lexemes: ReadonlyArray<string>
  readonly needed: number
}

/** The anchors of a compiled query; no lexemes for an empty one (it matches nothing), `null` when it has none. */
export const anchorsOf = (compiled: string): Anchors | null => {
  const tokens = tokenize(compiled)
  if (tokens.length === 0) return { lexemes: [], needed: 1 }
  let at = 0
  const isOp = (text: string) => tokens[at]?.kind === "op" && tokens[at]!.text === text

  const unary = (): Need => {
    const token = tokens[at++]
    if (token === undefined) return null
    if (token.kind === "lexeme") return token.prefix ? null : { all: new Set([token.text]) }
    if (token.text === "!") {
      unary()
      return null
    }
    if (token.text === "(") {
      const inner = or()
      if (isOp(")")) at++
      return inner
    }
    return null
  }
  const chain = (operand: () => Need, op: string, join: (a: Need, b: Need) => Need) => (): Need => {
    let left = operand()
    while (isOp(op)) {
      at++
      left = join(left, operand())
    }
    return left
  }
  const phrase = chain(unary, "<->", both)
  const and = chain(phrase, "&", both)
  const or: () => Need = chain(and, "|", either)
  const need = or()
  if (need === null) return null
  return "all" in need ? { lexemes: Array.from(need.all).sort(), needed: need.all.size } : { lexemes: Array.from(need.any).sort(), needed: 1 }
}
