import { Effect } from "effect"
import { spawn } from "node:child_process"

/** Our environment without the settings that would pick another database or directory. */
export const baseEnv = () => {
  const { DATABASE_URL: _url, DATA_DIR: _dir, PORT: _port, ...env } = process.env
  return env
}

/**
 * `command args` as its own process group (npm, its shell, tsx, the service), output collected.
 * On release the group gets SIGINT (the service stops its PostgreSQL), SIGKILL after 60 s, and
 * we wait until it has ended.
 */
export const started = (command: string, args: ReadonlyArray<string>, options: { cwd: string; env: NodeJS.ProcessEnv }) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = spawn(command, [...args], { ...options, detached: true, stdio: ["ignore", "pipe", "pipe"] })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk) => (stdout += chunk))
      child.stderr.on("data", (chunk) => (stderr += chunk))
      const closed = new Promise<number | null>((resolve) => {
        child.once("error", () => resolve(null))
        child.once("close", resolve)
      })
      const signal = (name: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, name)
        } catch {
          // the group has ended already
        }
      }
      return { closed, signal, stdout: () => stdout, stderr: () => stderr }
    }),
    ({ closed, signal }) =>
      Effect.promise(async () => {
        signal("SIGINT")
        const late = setTimeout(() => signal("SIGKILL"), 60_000)
        await closed
        clearTimeout(late)
      })
  )
