import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

/**
 * The layout's rules (issue 18; STYLE.md, "The layout, by product"), checked on every run: a
 * change that breaks one fails here, naming the files.
 */

const src = path.resolve("src")

const filesUnder = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(full) : entry.name.endsWith(".ts") ? [full] : []
  })

const files = filesUnder(src)
const rel = (file: string) => path.relative(src, file)

/** Each file's imports of other files of `src/` (type-only imports too: they tie the folders as much). */
const imports = new Map(files.map((file) => {
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true)
  const targets = importedFiles
    .map(({ fileName }) => fileName)
    .filter((name) => name.startsWith("."))
    .map((name) => path.resolve(path.dirname(file), name.replace(/\.js$/, ".ts")))
  return [file, targets] as const
}))

/** The strongly connected components of more than one node (Tarjan): each is a cycle. */
const cyclesOf = (graph: ReadonlyMap<string, ReadonlySet<string>>): Array<Array<string>> => {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const cycles: Array<Array<string>> = []
  const visit = (node: string) => {
    index.set(node, next)
    low.set(node, next++)
    stack.push(node)
    onStack.add(node)
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to)
        low.set(node, Math.min(low.get(node)!, low.get(to)!))
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!))
    }
    if (low.get(node) === index.get(node)) {
      const component: Array<string> = []
      for (let member = stack.pop()!; ; member = stack.pop()!) {
        onStack.delete(member)
        component.push(member)
        if (member === node) break
      }
      if (component.length > 1) cycles.push(component.sort())
    }
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return cycles
}

const graphOf = (key: (file: string) => string) => {
  const graph = new Map<string, Set<string>>()
  for (const [file, targets] of imports) {
    const from = key(file)
    if (!graph.has(from)) graph.set(from, new Set())
    for (const target of targets) if (key(target) !== from) graph.get(from)!.add(key(target))
  }
  return graph
}

const folderOf = (file: string) => path.dirname(rel(file)) || "."
const topFolderOf = (file: string) => rel(file).split(path.sep)[0]!.replace(/\.ts$/, " (entry point)")

describe("the layout", () => {
  it("has no import cycle between files", () => {
    expect(cyclesOf(graphOf(rel))).toEqual([])
  })

  it("has no cycle between folders: dependencies point one way, at every depth", () => {
    expect(cyclesOf(graphOf(folderOf))).toEqual([])
  })

  it("keeps the layers in order: kernel below platform below access below the products, app on top", () => {
    const rank: Record<string, number> = { kernel: 0, platform: 1, access: 2 }
    const layers = graphOf(topFolderOf)
    const downward = (from: string, to: string) =>
      rank[to] === undefined ? rank[from] === undefined : rank[from] === undefined || rank[to]! <= rank[from]!
    const wrong = [...layers].flatMap(([from, tos]) => [...tos].filter((to) => !downward(from, to)).map((to) => `${from} -> ${to}`))
    expect(wrong).toEqual([])
    // The kernel depends on nothing of ours; the app is depended on by nothing but the entry points.
    expect([...(layers.get("kernel") ?? [])]).toEqual([])
    const onApp = [...layers].filter(([from, tos]) => tos.has("app") && !from.endsWith("(entry point)")).map(([from]) => from)
    expect(onApp).toEqual([])
  })

  it("reads a product's repositories only inside that product: other products use its services", () => {
    const foreign = [...imports].flatMap(([file, targets]) =>
      targets.filter((target) => target.endsWith("Repo.ts") && topFolderOf(target) !== topFolderOf(file)).map((target) => `${rel(file)} -> ${rel(target)}`)
    )
    expect(foreign).toEqual([])
  })

  it("gives every service its own key", () => {
    const keys = files.flatMap((file) =>
      [...fs.readFileSync(file, "utf8").matchAll(/(?:Effect\.Service<\w+>\(\)|Context\.Tag|HttpApiMiddleware\.Tag<\w+>\(\))\("([^"]+)"/g)].map((match) => match[1]!)
    )
    expect(keys.length).toBeGreaterThan(20)
    expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([])
  })
})
