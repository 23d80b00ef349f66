import { readdir, rm } from "node:fs/promises"
import * as path from "node:path"

/**
 * The sources as plain JavaScript, once per run, for the processes the tests start whose subject
 * is not how `npm start` loads TypeScript: the benchmarks' scripts and their servers, the CLI's
 * commands (cli.test.ts), the server a restart test kills, and the service and CLI that refuse a
 * database that cannot start (embeddedPostgres.test.ts). Through tsx each such process
 * spent about 11 s of CPU loading the sources (its loader answers every module's resolution from
 * another thread); from this tree Node loads them as they are, in 4 to 5. The same files,
 * transpiled one by one with their paths kept (`src/`, `bench/`): a thread started by its
 * sibling's path (`Threads.siblingModule`) and a package import resolve as from the sources.
 * `npm start` as a user runs it (embeddedPostgresStart.test.ts) and the examples keep tsx, which
 * is their subject.
 */
export const compiledTreeDir = (root: string, runId: string) => path.join(root, "node_modules", ".cache", `adintel-test-${runId}`)

const sourcesUnder = async (root: string, folder: string): Promise<Array<string>> =>
  (await readdir(path.join(root, folder), { recursive: true }))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => path.join(folder, file))

/** Transpiles `src/` and `bench/` of `root` into `dir`; the function returned removes it. */
export const compileTree = async (root: string, dir: string): Promise<() => Promise<void>> => {
  const { build } = await import("esbuild")
  const entryPoints = [...await sourcesUnder(root, "src"), ...await sourcesUnder(root, "bench")]
  await build({
    absWorkingDir: root,
    entryPoints,
    outdir: dir,
    outbase: ".",
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "warning"
  })
  return () => rm(dir, { recursive: true, force: true })
}
