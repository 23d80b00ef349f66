#!/usr/bin/env node
// @ts-check
/**
 * `node scripts/run.mjs src/main.ts [args]`: runs a program of `src/` (`npm start`, `npm run
 * admin`) as JavaScript that esbuild built from the sources (scripts/programs.mjs), with source
 * maps, so a stack trace names the `.ts` lines. The build is kept in
 * `node_modules/.cache/adintel-run/<hash of the sources>` and made again only when a source,
 * the lock file or esbuild changed: a start after the first builds nothing. Built under another
 * name and renamed, so a build cut off is never taken for a whole one, and two starts at once
 * build once or twice but run whole builds.
 */
import { build } from "esbuild"
import { createHash } from "node:crypto"
import { existsSync } from "node:fs"
import { readdir, readFile, rename, rm, stat } from "node:fs/promises"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { programsBuild, sourcesUnder } from "./programs.mjs"

const root = fileURLToPath(new URL("..", import.meta.url))
const [program, ...args] = process.argv.slice(2)
if (program === undefined || !/^src\/\w+\.ts$/.test(program) || !existsSync(path.join(root, program))) {
  console.error(`usage: node scripts/run.mjs src/<program>.ts [arguments] (got ${JSON.stringify(program ?? "")})`)
  process.exit(2)
}

const cache = path.join(root, "node_modules", ".cache", "adintel-run")
/** A build older than this, not the current one, is removed (a process may still run from a recent one). */
const keepOldBuilds = 24 * 60 * 60 * 1000

/** What a build is made of: every source, this script, the lock file, esbuild's version, and where it runs from (its paths are in it). */
const fingerprint = async () => {
  const hash = createHash("sha256").update(root).update("\0")
  const files = [...await sourcesUnder(root, "src"), "scripts/run.mjs", "scripts/programs.mjs", "package-lock.json"].sort()
  for (const file of files) hash.update(file).update("\0").update(await readFile(path.join(root, file))).update("\0")
  hash.update((await import("esbuild")).version)
  return hash.digest("hex").slice(0, 16)
}

const key = await fingerprint()
const outdir = path.join(cache, key)
if (!existsSync(outdir)) {
  const partial = `${outdir}.partial-${process.pid}`
  try {
    await build({ ...await programsBuild({ root, outdir, entryPoints: ["src/main.ts", "src/cli.ts"] }), outdir: partial })
    await rename(partial, outdir).catch((error) => {
      if (!existsSync(outdir)) throw error // else another start built it first
    })
  } finally {
    await rm(partial, { recursive: true, force: true })
  }
  const now = Date.now()
  for (const name of await readdir(cache)) {
    if (name === key) continue
    const at = path.join(cache, name)
    if (now - (await stat(at)).mtimeMs > keepOldBuilds) await rm(at, { recursive: true, force: true })
  }
}

process.setSourceMapsEnabled(true)
// The program reads its arguments as if it had been started itself.
process.argv = [process.argv[0] ?? process.execPath, path.join(root, program), ...args]
await import(pathToFileURL(path.join(outdir, program.replace(/\.ts$/, ".js"))).href)
