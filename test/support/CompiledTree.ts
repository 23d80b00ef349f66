import type { Plugin } from "esbuild"
import { readdir, readFile, rm } from "node:fs/promises"
import * as path from "node:path"
import { pathToFileURL } from "node:url"

/**
 * The programs the tests start as processes, built once per run, for those whose subject is not
 * how `npm start` loads TypeScript: the benchmarks' scripts and their servers, the CLI's commands
 * (cli.test.ts), the server a restart test kills, and the service and CLI that refuse a database
 * that cannot start (embeddedPostgres.test.ts). Through tsx each such process spent about 11 s
 * of CPU loading the sources (its loader answers every module's resolution from another thread);
 * from the sources transpiled file by file, 4 to 5, most of it Node resolving and compiling the
 * Effect packages' modules one by one (`effect` alone is some 300); bundled with them, about
 * half that. `npm start` as a user runs it (embeddedPostgresStart.test.ts) and the examples keep
 * tsx, which is their subject.
 *
 * The entry points keep their paths (`src/main.js`, `src/cli.js`, `bench/<script>.js`, and each
 * thread a module starts by its sibling's path, `Threads.siblingModule`), the code they share is
 * in `chunks/`. Only Effect's packages are bundled; every other package is loaded from
 * `node_modules` as from the sources (those that find their binaries or native modules next to
 * themselves must be). A source's `import.meta.url` is its own output's path, wherever its code
 * landed: a sibling thread, a `createRequire` and `new URL("../src/main.js", ...)` resolve as
 * from the sources.
 */
export const compiledTreeDir = (root: string, runId: string) => path.join(root, "node_modules", ".cache", `adintel-test-${runId}`)

const sourcesUnder = async (root: string, folder: string): Promise<Array<string>> =>
  (await readdir(path.join(root, folder), { recursive: true }))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => path.join(folder, file))

/** A thread a module starts by name beside itself: `siblingModule(import.meta.url, "CountThread")`. */
const siblingThread = /siblingModule\(import\.meta\.url, "(\w+)"\)/g

/** The modules run on their own: the service, the CLI, each benchmark script, each thread. */
const entryPointsOf = async (root: string): Promise<Array<string>> => {
  const threads: Array<string> = []
  for (const file of await sourcesUnder(root, "src")) {
    for (const [, name] of (await readFile(path.join(root, file), "utf8")).matchAll(siblingThread)) threads.push(path.join(path.dirname(file), `${name}.ts`))
  }
  const bench = (await readdir(path.join(root, "bench"))).filter((file) => file.endsWith(".ts")).map((file) => path.join("bench", file))
  return [...new Set(["src/main.ts", "src/cli.ts", ...threads, ...bench])]
}

/** Effect's packages bundled; any other package left to Node. */
const onlyEffectBundled: Plugin = {
  name: "only-effect-bundled",
  setup: (build) => {
    build.onResolve({ filter: /^[^./]/ }, (args) => /^(effect|@effect\/)/.test(args.path) ? undefined : { path: args.path, external: true })
  }
}

/** A source's `import.meta.url`: the path its own output would have in `dir`. */
const importMetaOfSource = (root: string, dir: string): Plugin => ({
  name: "import-meta-of-source",
  setup: (build) => {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      const relative = path.relative(root, args.path)
      if (relative.startsWith("..") || relative.startsWith("node_modules")) return undefined
      const text = await readFile(args.path, "utf8")
      if (!text.includes("import.meta.url")) return undefined
      const own = pathToFileURL(path.join(dir, relative.replace(/\.ts$/, ".js"))).href
      return { contents: text.replaceAll("import.meta.url", JSON.stringify(own)), loader: "ts" }
    })
  }
})

/** Builds the programs of `root` into `dir`; the function returned removes it. */
export const compileTree = async (root: string, dir: string): Promise<() => Promise<void>> => {
  const { build } = await import("esbuild")
  await build({
    absWorkingDir: root,
    entryPoints: await entryPointsOf(root),
    outdir: dir,
    outbase: ".",
    bundle: true,
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    format: "esm",
    platform: "node",
    target: "node20",
    plugins: [onlyEffectBundled, importMetaOfSource(root, dir)],
    logLevel: "warning"
  })
  return () => rm(dir, { recursive: true, force: true })
}
