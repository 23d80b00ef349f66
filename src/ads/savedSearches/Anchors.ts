/**
 * The anchors of a full-text query (issue 32, saved searches): lexemes at least one of which
 * every document the query matches contains. The import's matching pass joins a batch's lexemes
 * to them, so a saved search is only tested against the ads that can match it.
 *
 * Read from the query's compiled text (`websearch_to_tsquery(...)::text`, e.g.
 * `'red' & ( 'shoe' | 'boot' )`): a lexeme anchors itself; `a & b` and `a <-> b` need both, so
 * the smaller anchor set of the two will do; `a | b` needs either, so both sets; `!a` and a
 * prefix (`'sho':*`) anchor nothing (`null`: the query must be tested against every ad). An
 * empty query (only stop words) matches nothing: no anchors at all.
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

/** `null`: no anchor (any document may match). */
type Anchors = ReadonlySet<string> | null

const both = (a: Anchors, b: Anchors): Anchors => (a === null ? b : b === null ? a : a.size <= b.size ? a : b)
const either = (a: Anchors, b: Anchors): Anchors => (a === null || b === null ? null : new Set([...a, ...b]))

/** The anchors of a compiled query; `[]` for an empty one, `null` when it has none. */
export const anchorsOf = (compiled: string): ReadonlyArray<string> | null => {
  const tokens = tokenize(compiled)
  if (tokens.length === 0) return []
  let at = 0
  const peek = () => tokens[at]
  const isOp = (text: string) => peek()?.kind === "op" && peek()!.text === text

  const unary = (): Anchors => {
    const token = tokens[at++]
    if (token === undefined) return null
    if (token.kind === "lexeme") return token.prefix ? null : new Set([token.text])
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
  const phrase = (): Anchors => {
    let left = unary()
    while (isOp("<->")) (at++, (left = both(left, unary())))
    return left
  }
  const and = (): Anchors => {
    let left = phrase()
    while (isOp("&")) (at++, (left = both(left, phrase())))
    return left
  }
  const or = (): Anchors => {
    let left = and()
    while (isOp("|")) (at++, (left = either(left, and())))
    return left
  }
  const anchors = or()
  return anchors === null ? null : Array.from(anchors).sort()
}
