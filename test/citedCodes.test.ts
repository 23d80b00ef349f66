import { readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

/**
 * Comments cite the decisions the spec left open by short codes (a letter and a number) and
 * house rules by their section (`STYLE: Errors`). Both were written down outside this
 * repository, so docs/SPEC-NOTES.md, "Codes cited in comments", defines every one a comment
 * cites, and this test keeps it so: a comment that cites something undefined fails here, naming
 * it and where it is cited.
 */

const root = fileURLToPath(new URL("..", import.meta.url))

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(full) : entry.name.endsWith(".ts") ? [full] : []
  })

const files = ["src", "test"].flatMap((dir) => filesUnder(path.join(root, dir))).map((file) => ({
  name: path.relative(root, file).split(path.sep).join("/"),
  lines: readFileSync(file, "utf8").split("\n")
}))

/**
 * The comment a line holds, if any: the whole line when it opens with `//`, `*` or `/*`, else a
 * trailing `// ...`. A ` // ` inside a string counts too; what it cites must then be defined, or
 * allowed below.
 */
const commentOf = (line: string): string | undefined => {
  const trimmed = line.trim()
  if (trimmed.startsWith("//") || trimmed.startsWith("*") || trimmed.startsWith("/*")) return trimmed
  const trailing = line.search(/\s\/\/(\s|$)/)
  return trailing >= 0 ? line.slice(trailing).trim() : undefined
}

/** A comment line's words, without its opening `//`, `*` or `/**`. */
const wordsOf = (comment: string) => comment.replace(/^(\/\/+|\/\*+|\*+\/?)\s?/, "")

const codePattern = /\b[GPSWLMHR]\d{1,2}\b/g

/**
 * Tokens that match the code pattern without being codes, each `file: token` with the reason.
 * None today: every match in src/ and test/ is a real citation (a storage service or an HTML
 * heading named by letter and digit would be the kind of thing to list here).
 */
const notCodes: ReadonlyMap<string, string> = new Map<string, string>([])

/** Where a comment refers to a house-style section: `STYLE: <Section>` or `STYLE.md, "<Section>"`. */
const stylePattern = /STYLE(?::|\.md,) "?(?=[A-Z])/g

interface Citation {
  readonly cited: string
  readonly at: string
}

const comments = files.flatMap(({ name, lines }) =>
  lines.flatMap((line, index) => {
    const comment = commentOf(line)
    if (comment === undefined) return []
    // A reference wrapped onto the next line is read on with it.
    const next = commentOf(lines[index + 1] ?? "")
    const own = wordsOf(comment).replace(/\s+/g, " ")
    const words = own + (next !== undefined && /^(\/\/|\*)/.test(next) ? " " + wordsOf(next).replace(/\s+/g, " ") : "")
    return [{ at: `${name}:${index + 1}`, file: name, comment, own, words }]
  })
)

const codesCited: Array<Citation> = comments.flatMap(({ at, comment, file }) =>
  [...comment.matchAll(codePattern)]
    .map(([token]) => token)
    .filter((token) => !notCodes.has(`${file}: ${token}`))
    .map((cited) => ({ cited, at }))
)

// The section, up to the next heading; each bullet read whole, its wrapped lines joined.
const notes = readFileSync(new URL("../docs/SPEC-NOTES.md", import.meta.url), "utf8").split("\n")
const headings = notes.filter((line) => line.startsWith("## ")).map((line) => line.slice(3))
const sectionStart = notes.indexOf("## Codes cited in comments")
const sectionEnd = notes.findIndex((line, index) => index > sectionStart && line.startsWith("## "))
const section = notes.slice(sectionStart + 1, sectionEnd < 0 ? undefined : sectionEnd)
const bullets = section
  .join("\n")
  .split(/\n(?=- )/)
  .filter((block) => block.startsWith("- "))
  .map((block) => block.replace(/\s*\n\s*/g, " ").trim())

const definedCodes = new Set(bullets.flatMap((bullet) => {
  const code = bullet.match(/^- \*\*([GPSWLMHR]\d{1,2})\*\*:/)
  return code ? [code[1]!] : []
}))
const definedStyles = bullets.flatMap((bullet) => {
  const style = bullet.match(/^- \*\*STYLE: ([^*]+)\*\*:/)
  return style ? [style[1]!] : []
})

/**
 * The STYLE section a reference names. Quoted, it is the text up to the closing quote. Bare, it
 * is a defined section the text starts with, whole: followed by punctuation or the end, not by a
 * letter or more lowercase words (a section's first word does not stand for the whole title).
 */
const styleSectionAt = (quoted: boolean, rest: string): { readonly defined: boolean; readonly name: string } => {
  if (quoted) {
    const name = rest.slice(0, rest.includes("\"") ? rest.indexOf("\"") : 40)
    return { defined: definedStyles.includes(name), name }
  }
  const known = definedStyles.find((name) => rest.startsWith(name) && !/^ ?[a-z]|^[A-Z]/.test(rest.slice(name.length)))
  return known !== undefined
    ? { defined: true, name: known }
    : { defined: false, name: rest.match(/^[A-Z][A-Za-z]*(?: [a-z][A-Za-z]*)*/)?.[0] ?? rest.slice(0, 40) }
}

// A reference is this line's when it starts on it; the next line only finishes it.
const stylesCited = comments.flatMap(({ at, own, words }) =>
  [...words.matchAll(stylePattern)]
    .filter((match) => (match.index ?? 0) < own.length)
    .map((match) => ({ at, ...styleSectionAt(match[0].endsWith("\""), words.slice((match.index ?? 0) + match[0].length)) }))
)

/** `CODE: file:line, file:line` for each missing one, to print on failure. */
const report = (citations: ReadonlyArray<Citation>) => {
  const where = new Map<string, Array<string>>()
  for (const { at, cited } of citations) where.set(cited, [...(where.get(cited) ?? []), at])
  return [...where].map(([cited, at]) => `${cited}: cited at ${at.join(", ")}`)
}

describe("codes cited in comments", () => {
  it("finds the section, its codes and the citations", () => {
    expect(sectionStart).toBeGreaterThan(0)
    expect(definedCodes.size).toBeGreaterThan(0)
    // Guards the scan itself: a broken comment reader would find nothing and pass the rest.
    expect(codesCited.length).toBeGreaterThan(100)
    expect(stylesCited.length).toBeGreaterThan(0)
  })

  it("defines in docs/SPEC-NOTES.md every code a comment in src/ or test/ cites", () => {
    const missing = report(codesCited.filter(({ cited }) => !definedCodes.has(cited)))
    expect(missing, `Define these in docs/SPEC-NOTES.md, "Codes cited in comments", as **CODE**:\n${missing.join("\n")}`)
      .toEqual([])
  })

  it("defines every STYLE section a comment cites", () => {
    const missing = report(stylesCited.filter(({ defined }) => !defined).map(({ at, name }) => ({ at, cited: `STYLE: ${name}` })))
    expect(missing, `Define these in docs/SPEC-NOTES.md, "Codes cited in comments", as **STYLE: <Section>**:\n${missing.join("\n")}`)
      .toEqual([])
  })

  it("points each definition at a section this file has", () => {
    const dangling = bullets.flatMap((bullet) => {
      const see = bullet.match(/ See "(.+)"\.$/)
      return see && !headings.includes(see[1]!) ? [`${bullet.slice(2, bullet.indexOf(":"))} -> "${see[1]}"`] : []
    })
    expect(dangling, `No such section in docs/SPEC-NOTES.md:\n${dangling.join("\n")}`).toEqual([])
  })

  it("cites nothing outside the repository, in the code or in its documents", () => {
    // Spelled in pieces so that this file does not find itself.
    const outside = [[".."], ["", "work"]].map((head) => [...head, "shared"].join("/"))
    const documents = ["README.md", ...readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)]
      .map((name) => ({ name, lines: readFileSync(path.join(root, name), "utf8").split("\n") }))
    const found = [...files, ...documents].flatMap(({ lines, name }) =>
      lines.flatMap((line, index) =>
        outside.some((needle) => line.includes(needle)) ? [`${name}:${index + 1}: ${line.trim()}`] : []
      )
    )
    expect(found, `Cite docs/SPEC-NOTES.md instead of files outside the repository:\n${found.join("\n")}`).toEqual([])
  })
})
