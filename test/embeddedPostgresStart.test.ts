import { describe, expect, it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { copyFile, link, mkdir, readdir, readlink, rm, rmdir, stat, symlink } from "node:fs/promises"
import * as path from "node:path"
import { freePort } from "../src/platform/db/EmbeddedPostgres.js"
import { baseEnv, started } from "./support/ProcessGroup.js"
import { tempDir } from "./support/TempDir.js"

const root = process.getuid?.() === 0

/** `from` recreated at `to` with hard links (copies across file systems): the same files, reachable only through `to`. */
const linkTree = async (from: string, to: string): Promise<void> => {
  await mkdir(to, { mode: (await stat(from)).mode & 0o777 })
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const [source, target] = [path.join(from, entry.name), path.join(to, entry.name)]
    if (entry.isDirectory()) await linkTree(source, target)
    else if (entry.isSymbolicLink()) await symlink(await readlink(source), target)
    else await link(source, target).catch(() => copyFile(source, target))
  }
}

describe("embedded PostgreSQL", () => {
  // Live clock: the child's time bounds are real time.

  // The common case on a fresh server or in a container: a clone under a directory only its
  // owner may enter (root's home, any mktemp -d), run as root. PostgreSQL refuses to run as root
  // and runs as the user postgres, who cannot pass that directory to reach its binaries or
  // ./.data. As a normal user this is simply npm start in a fresh copy.
  it.live("npm start in a copy of the project inside a private (0700) directory answers /ready", () =>
    Effect.gen(function*() {
      const privateDir = yield* tempDir("private")
      expect((yield* Effect.promise(() => stat(privateDir))).mode & 0o777).toBe(0o700)
      // Hard links, node_modules included: the binaries are reachable only through the private
      // directory, as in a real clone (a symlink to ours would resolve to a reachable path).
      const project = path.join(privateDir, "adintel")
      yield* Effect.promise(async () => {
        await mkdir(project)
        for (const name of ["package.json", "package-lock.json", "tsconfig.json", "scripts", "src", "node_modules"]) {
          const source = path.resolve(name)
          if ((await stat(source)).isDirectory()) await linkTree(source, path.join(project, name))
          else await link(source, path.join(project, name)).catch(() => copyFile(source, path.join(project, name)))
        }
      })
      const port = yield* Effect.promise(freePort)
      const service = yield* started("npm", ["start"], {
        cwd: project,
        env: { ...baseEnv(), PORT: String(port), HOST: "127.0.0.1", DEMO_SCALE: "small" }
      })
      // Root's cluster lives outside the private directory: removed after the service has stopped.
      yield* Effect.addFinalizer(() =>
        Effect.promise(async () => {
          const home = /Embedded PostgreSQL ready: data in (\/var\/lib\/adintel\/[^/\s]+)\/pg,/.exec(service.stdout())?.[1]
          if (home === undefined) return
          await rm(home, { recursive: true, force: true })
          await rmdir(path.dirname(home)).catch(() => undefined) // others' clusters may be there
        })
      )

      const exited = Effect.flatMap(Effect.promise(() => service.closed), (code) =>
        Effect.fail(new Error(`npm start exited (${code}):\n${service.stdout()}\n${service.stderr()}`)))
      const ready = Effect.tryPromise(() => fetch(`http://127.0.0.1:${port}/ready`)).pipe(
        Effect.filterOrFail((response) => response.status === 200),
        Effect.flatMap((response) => Effect.promise(() => response.json())),
        Effect.retry(Schedule.spaced("250 millis")),
        Effect.timeoutFail({ duration: "180 seconds", onTimeout: () => new Error(`no /ready in 180 s:\n${service.stdout()}\n${service.stderr()}`) })
      )
      expect(yield* Effect.raceFirst(ready, exited)).toMatchObject({ status: "ready" })
      // As root, the start-up log says where the database's files went (out of the private directory).
      if (root) expect(service.stdout()).toMatch(/Embedded PostgreSQL ready: data in \/var\/lib\/adintel\/adintel-\w+\/pg, run as the user postgres, since postgres cannot pass /)
    }).pipe(Effect.scoped), { timeout: 300_000 })
})
