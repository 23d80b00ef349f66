import { Data, Deferred, Effect, Runtime, Schema, type Scope } from "effect"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { extname } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { parentPort, Worker, workerData } from "node:worker_threads"

/**
 * CPU work on a thread of its own (issue 29): the demo's creatives are drawn on one while the
 * main thread counts the trends, on a machine of two cores. A module (`serveThread`) answers
 * requests on a worker thread; `threadOf` starts it and asks.
 *
 * From the sources (tsx, vitest) a thread is started with tsx's loader, so that it loads
 * TypeScript like the main thread; from a build it loads the module as it is.
 */

/** A thread could not be started, or its module failed. */
export class ThreadFailed extends Data.TaggedError("ThreadFailed")<{ readonly cause: unknown }> {}

interface Request<I> {
  readonly id: number
  readonly input: I
}
type Reply<O> = { readonly id: number; readonly output: O } | { readonly id: number; readonly error: string }

/** A sibling module of `from` (an `import.meta.url`) by name, with `from`'s extension (`.ts` from the sources, `.js` from a build). */
export const siblingModule = (from: string, name: string) => new URL(`./${name}${extname(fileURLToPath(from))}`, from)

/** What a thread started here is given: how `serveThread` knows it runs on one (a test runner's own worker threads do not). */
const marker = { adintelThread: true }

const TsxManifest = Schema.parseJson(Schema.Struct({ exports: Schema.Struct({ "./esm/api": Schema.Struct({ import: Schema.Struct({ default: Schema.String }) }) }) }))

/** Where tsx's ES module API is (its package's export `./esm/api`): a thread cannot resolve it by name from where it evaluates. */
const tsxApi = () => {
  const manifest = createRequire(import.meta.url).resolve("tsx/package.json")
  const { exports } = Schema.decodeUnknownSync(TsxManifest)(readFileSync(manifest, "utf8"))
  return new URL(exports["./esm/api"].import.default, pathToFileURL(manifest))
}

const start = (module: URL): Worker => {
  if (!module.pathname.endsWith(".ts")) return new Worker(module, { workerData: marker })
  return new Worker(`import { register } from ${JSON.stringify(tsxApi().href)}\nregister()\nawait import(${JSON.stringify(module.href)})`, {
    eval: true,
    workerData: marker
  })
}

/**
 * The worker thread of `module` (which calls `serveThread`), ended with the scope: `run` sends
 * it an input and waits for its output; requests are answered in order. A thread that fails
 * fails every request waiting and every one after.
 */
export const threadOf = <I, O>(module: URL): Effect.Effect<{ readonly run: (input: I) => Effect.Effect<O, ThreadFailed> }, never, Scope.Scope> =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const waiting = new Map<number, Deferred.Deferred<O, ThreadFailed>>()
    let failed: ThreadFailed | undefined
    let next = 0
    const fail = (cause: unknown) => {
      failed = new ThreadFailed({ cause })
      for (const deferred of waiting.values()) Runtime.runSync(runtime)(Deferred.fail(deferred, failed))
      waiting.clear()
    }
    const worker = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const worker = start(module)
        worker.on("message", (reply: Reply<O>) => {
          const deferred = waiting.get(reply.id)
          if (deferred === undefined) return
          waiting.delete(reply.id)
          Runtime.runSync(runtime)("error" in reply ? Deferred.fail(deferred, new ThreadFailed({ cause: reply.error })) : Deferred.succeed(deferred, reply.output))
        })
        worker.on("error", fail)
        worker.on("exit", (code) => fail(`the thread exited (${code})`))
        return worker
      }),
      (worker) => Effect.promise(() => worker.removeAllListeners().terminate())
    )
    return {
      run: (input: I) =>
        Effect.suspend(() => {
          if (failed !== undefined) return Effect.fail(failed)
          const id = next++
          return Effect.flatMap(Deferred.make<O, ThreadFailed>(), (deferred) => {
            waiting.set(id, deferred)
            worker.postMessage({ id, input } satisfies Request<I>)
            return Deferred.await(deferred)
          })
        })
    }
  })

/** On a thread `threadOf` started, answers each request with `handle`'s output (an error: its message). Does nothing elsewhere. */
export const serveThread = <I, O>(handle: (input: I) => O) => {
  const port = parentPort
  if (port === null || workerData?.adintelThread !== true) return
  port.on("message", ({ id, input }: Request<I>) => {
    try {
      port.postMessage({ id, output: handle(input) } satisfies Reply<O>)
    } catch (error) {
      port.postMessage({ id, error: String(error) } satisfies Reply<O>)
    }
  })
}
