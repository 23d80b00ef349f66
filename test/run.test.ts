import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { readdir, stat } from "node:fs/promises"
import * as path from "node:path"
import packageJson from "../package.json" with { type: "json" }

/** `node scripts/run.mjs args` (what `npm start` and `npm run admin` run) to its end: exit code, stdout, stderr. */
const run = (...args: Array<string>) =>
  Effect.async<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resume) => {
    execFile(process.execPath, ["scripts/run.mjs", ...args], { timeout: 60_000 }, (error, stdout, stderr) =>
      resume(Effect.succeed({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr })))
  })

const { version } = packageJson

const builds = path.join("node_modules", ".cache", "adintel-run")

/** Each build kept, with when it was written. */
const kept = Effect.promise(async () =>
  Object.fromEntries(await Promise.all((await readdir(builds)).map(async (name) => [name, (await stat(path.join(builds, name))).mtimeMs] as const))))

describe("scripts/run.mjs: the programs of src/ built by esbuild and run (npm start, npm run admin)", () => {
  it.live("refuses what is not a program of src/, naming it, with exit code 2", () =>
    Effect.gen(function*() {
      expect(yield* run()).toEqual({ code: 2, stdout: "", stderr: `usage: node scripts/run.mjs src/<program>.ts [arguments] (got "")\n` })
      expect(yield* run("src/../package.json")).toEqual({ code: 2, stdout: "", stderr: `usage: node scripts/run.mjs src/<program>.ts [arguments] (got "src/../package.json")\n` })
      expect((yield* run("src/nothing.ts")).code).toBe(2)
    }))

  it.live("runs a program with its arguments; a start after the first builds nothing", () =>
    Effect.gen(function*() {
      const first = yield* run("src/cli.ts", "--version")
      expect([first.code, first.stdout.trim(), first.stderr]).toEqual([0, version, ""])
      const before = yield* kept
      expect(Object.keys(before).length).toBeGreaterThan(0)
      expect(yield* run("src/cli.ts", "--version")).toEqual(first)
      // The same build, not written again; none added beside it.
      expect(yield* kept).toEqual(before)
    }), 120_000)
})
