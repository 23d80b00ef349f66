import { readdir, rm } from "node:fs/promises"
import * as path from "node:path"
import { programsBuild } from "../../scripts/programs.mjs"

/**
 * The programs the tests start as processes, built once per run (scripts/programs.mjs, as
 * `npm start` builds them), for those whose subject is not `npm start` itself: the benchmarks'
 * scripts and their servers, the CLI's commands (cli.test.ts), the server a restart test kills,
 * and the service and CLI that refuse a database that cannot start (embeddedPostgres.test.ts).
 * Effect's packages are bundled in as well: built once for many starts, each start then loads
 * in about 2 CPU-s less (5 test files alone: 91 -> 71 s). `npm start` as a user runs it is
 * embeddedPostgresStart.test.ts's subject.
 */
export const compiledTreeDir = (root: string, runId: string) => path.join(root, "node_modules", ".cache", `adintel-test-${runId}`)

/** Builds the service, the CLI and the benchmarks' scripts of `root` into `dir`; the function returned removes it. */
export const compileTree = async (root: string, dir: string): Promise<() => Promise<void>> => {
  const { build } = await import("esbuild")
  const bench = (await readdir(path.join(root, "bench"))).filter((file) => file.endsWith(".ts")).map((file) => path.join("bench", file))
  await build(await programsBuild({ root, outdir: dir, entryPoints: ["src/main.ts", "src/cli.ts", ...bench], bundled: /^(effect|@effect\/)/ }))
  return () => rm(dir, { recursive: true, force: true })
}
