import { spawn } from "node:child_process"
import { constants } from "node:fs"
import { access, stat } from "node:fs/promises"
import * as path from "node:path"
import { Config, Data, Duration, Effect, Option } from "effect"
import { errorCodeOf } from "../kernel/Guards.js"

/**
 * Running the local binaries of the transcript pipeline (ffmpeg, pocketsphinx): bounded in time
 * and output, killed when the fiber is interrupted, and found on PATH as configuration sees it.
 */

/** The binary could not be started (`ENOENT`: not there; `EACCES`: not executable). */
export class ChildNotStarted extends Data.TaggedError("ChildNotStarted")<{ readonly code: string }> {}
/** The time bound passed; the child has been killed. */
export class ChildTimedOut extends Data.TaggedError("ChildTimedOut")<{ readonly after: Duration.Duration }> {}
/** The child printed more than the bound on stdout; it has been killed. */
export class ChildOutputTooLarge extends Data.TaggedError("ChildOutputTooLarge")<{ readonly bytes: number }> {}

export interface ChildExit {
  /** null when it ended by a signal. */
  readonly code: number | null
  readonly stdout: string
  /** The last few KB of stderr: for the log, never for an answer (it names paths). */
  readonly stderrTail: string
}

export interface ChildOptions {
  readonly timeout: Duration.DurationInput
  /** Default 8 MB: far above a transcript of the longest audio we accept. */
  readonly maxStdoutBytes?: number
}

const stderrTailBytes = 4096

/** Node's error code, or a short name for anything else (never a message with paths). */
const codeOf = (error: unknown) => errorCodeOf(error) ?? "ESPAWN"

/**
 * Runs `binary args`, stdin closed. A non-zero exit is an answer (the caller words it); failing
 * to start, passing the time bound or the output bound are errors. On interruption (and so on
 * the time bound) the child gets SIGKILL and the fiber waits for it to exit, so a caller's
 * finalizer never removes files the child is still writing.
 */
export const runChild = (
  binary: string,
  args: ReadonlyArray<string>,
  options: ChildOptions
): Effect.Effect<ChildExit, ChildNotStarted | ChildTimedOut | ChildOutputTooLarge> => {
  const maxStdout = options.maxStdoutBytes ?? 8 * 1024 * 1024
  const timeout = Duration.decode(options.timeout)
  return Effect.async<ChildExit, ChildNotStarted | ChildOutputTooLarge>((resume) => {
    let child: ReturnType<typeof spawn>
    try {
      child = spawn(binary, [...args], { stdio: ["ignore", "pipe", "pipe"] })
    } catch (error) {
      // Synchronous refusals: a NUL byte in an argument, an invalid path.
      resume(Effect.fail(new ChildNotStarted({ code: codeOf(error) })))
      return
    }
    let settled = false
    const settle = (effect: Effect.Effect<ChildExit, ChildNotStarted | ChildOutputTooLarge>) => {
      if (settled) return
      settled = true
      resume(effect)
    }
    let exited = false
    const exit = new Promise<void>((done) =>
      child.once("exit", () => {
        exited = true
        done()
      })
    )
    const stdout: Array<Buffer> = []
    let stdoutBytes = 0
    let stderrTail = Buffer.alloc(0)
    child.stdout!.on("data", (chunk: Buffer) => {
      stdoutBytes += chunk.length
      if (stdoutBytes > maxStdout) {
        child.kill("SIGKILL")
        settle(Effect.fail(new ChildOutputTooLarge({ bytes: stdoutBytes })))
        return
      }
      stdout.push(chunk)
    })
    child.stderr!.on("data", (chunk: Buffer) => {
      const joined = Buffer.concat([stderrTail, chunk])
      stderrTail = joined.subarray(Math.max(0, joined.length - stderrTailBytes))
    })
    child.once("error", (error) => {
      // Emitted when the spawn fails (and on a failed kill, which cannot change the outcome).
      if (!exited) settle(Effect.fail(new ChildNotStarted({ code: codeOf(error) })))
    })
    // "close": the exit and both pipes drained, so stdout is complete.
    child.once("close", (code) =>
      settle(Effect.succeed({
        code,
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderrTail: stderrTail.toString("utf8")
      }))
    )
    return Effect.promise(() => {
      if (exited || child.pid === undefined) return Promise.resolve()
      child.kill("SIGKILL")
      return exit
    })
  }).pipe(
    Effect.timeoutFail({ duration: timeout, onTimeout: () => new ChildTimedOut({ after: timeout }) })
  )
}

/** A regular file this process may execute. */
export const isExecutable = (file: string): Effect.Effect<boolean> =>
  Effect.promise(async () => {
    try {
      await access(file, constants.X_OK)
      return (await stat(file)).isFile()
    } catch {
      return false
    }
  })

/**
 * `name` in the directories of `PATH` (read as configuration, so a test can set it), as an
 * absolute path: what `/ready` names, and what runs, whatever the child's environment.
 */
export const findOnPath = (name: string) =>
  Effect.gen(function*() {
    const searchPath = yield* Config.string("PATH").pipe(Config.withDefault(""))
    const names = process.platform === "win32" ? [`${name}.exe`, name] : [name]
    for (const dir of searchPath.split(path.delimiter)) {
      if (dir === "" || !path.isAbsolute(dir)) continue // a relative entry depends on the cwd
      for (const candidate of names) {
        const file = path.join(dir, candidate)
        if (yield* isExecutable(file)) return Option.some(file)
      }
    }
    return Option.none<string>()
  })
