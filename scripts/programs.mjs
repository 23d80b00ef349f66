// @ts-check
/**
 * How this project's programs are built into plain JavaScript, for Node to load without a
 * TypeScript loader: `scripts/run.mjs` (`npm start`, `npm run admin`) and the test run's tree
 * (test/support/CompiledTree.ts). Through tsx a start spent about 10 CPU-s loading the sources
 * (its loader answers every module's resolution from another thread, and each worker thread the
 * service starts loads tsx again); built by esbuild, the sources load in 3 or 4.
 *
 * The entry points keep their paths (`src/main.js`, each thread a module starts by its
 * sibling's path, `Threads.siblingModule`), the code they share goes to `chunks/`. A source's
 * `import.meta.url` is its own output's path, wherever its code landed: a sibling thread, a
 * `createRequire` and a `new URL("../src/main.js", ...)` resolve as from the sources. Packages
 * are loaded from `node_modules` as from the sources, or, with `bundled`, those it matches are
 * bundled too (Effect's: some 300 modules that Node otherwise resolves and compiles one by one).
 */
import { readdir, readFile } from "node:fs/promises"
import * as path from "node:path"
import { pathToFileURL } from "node:url"

/** The TypeScript files under `folder` of `root`, relative to `root`. */
export const sourcesUnder = async (/** @type {string} */ root, /** @type {string} */ folder) =>
  (await readdir(path.join(root, folder), { recursive: true }))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => path.join(folder, file))

/** A thread a module starts by name beside itself: `siblingModule(import.meta.url, "CountThread")`. */
const siblingThread = /siblingModule\(import\.meta\.url, "(\w+)"\)/g

/** The thread modules of `src/`: each is an entry point of its own. */
export const threadsOf = async (/** @type {string} */ root) => {
  /** @type {Array<string>} */
  const threads = []
  for (const file of await sourcesUnder(root, "src")) {
    for (const [, name] of (await readFile(path.join(root, file), "utf8")).matchAll(siblingThread)) threads.push(path.join(path.dirname(file), `${name}.ts`))
  }
  return threads
}

/**
 * The esbuild options that build `entryPoints` (paths relative to `root`) with every thread of
 * `src/` into `outdir`, which the code will run from (`import.meta.url` names it).
 * @param {{ root: string, outdir: string, entryPoints: ReadonlyArray<string>, bundled?: RegExp }} options
 * @returns {Promise<import("esbuild").BuildOptions>}
 */
export const programsBuild = async ({ root, outdir, entryPoints, bundled }) => ({
  absWorkingDir: root,
  entryPoints: [...new Set([...entryPoints, ...await threadsOf(root)])],
  outdir,
  outbase: ".",
  bundle: true,
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: "linked",
  logLevel: "warning",
  plugins: [
    {
      name: "packages-from-node-modules",
      setup: (build) => {
        build.onResolve({ filter: /^[^./]/ }, (args) => bundled?.test(args.path) ? undefined : { path: args.path, external: true })
      }
    },
    {
      name: "import-meta-of-source",
      setup: (build) => {
        build.onLoad({ filter: /\.ts$/ }, async (args) => {
          const relative = path.relative(root, args.path)
          if (relative.startsWith("..") || relative.startsWith("node_modules")) return undefined
          const text = await readFile(args.path, "utf8")
          if (!text.includes("import.meta.url")) return undefined
          const own = pathToFileURL(path.join(outdir, relative.replace(/\.ts$/, ".js"))).href
          return { contents: text.replaceAll("import.meta.url", JSON.stringify(own)), loader: "ts" }
        })
      }
    }
  ]
})
