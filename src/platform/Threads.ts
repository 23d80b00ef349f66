import { Data, Deferred, Effect, ExecutionStrategy, Exit, Runtime, Schema, Scope } from "effect"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { extname } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import { type Reply, type Request, threadMarker } from "./ServeThread.js"

/**
 * CPU work on a thread of its own (issue 29): the demo's creatives are drawn on one while the
 * main thread counts the trends, on a machine of two cores. A module (`serveThread`) answers
 * requests on a worker thread (ServeThread.ts); `threadOf` starts it and asks.
 *
 * From the sources (tsx, vitest) a thread is started with tsx's loader, so that it loads
 * TypeScript like the main thread; from a build it loads the module as it is.
 */

/** A thread could not be started, or its module failed. */
export class ThreadFailed extends Data.TaggedError("ThreadFailed")<{ readonly cause: unknown }> {}

/** A sibling module of `from` (an `import.meta.url`) by name, with `from`'s extension (`.ts` from the sources, `.js` from a build). */
export const siblingModule = (from: string, name: string) => new URL(`./${name}${extname(fileURLToPath(from))}`, from)

const TsxManifest = Schema.parseJson(Schema.Struct({ exports: Schema.Struct({ "./esm/api": Schema.Struct({ import: Schema.Struct({ default: Schema.String }) }) }) }))

/** Where tsx's ES module API is (its package's export `./esm/api`): a thread cannot resolve it by name from where it evaluates. */
const tsxApi = () => {
  const manifest = createRequire(import.meta.url).resolve("tsx/package.json")
  const { exports } = Schema.decodeUnknownSync(TsxManifest)(readFileSync(manifest, "utf8"))
  return new URL(exports["./esm/api"].import.default, pathToFileURL(manifest))
}

const start = (module: URL): Worker => {
  if (!module.pathname.endsWith(".ts")) return new Worker(module, { workerData: threadMarker })
  return new Worker(`import { register } from ${JSON.stringify(tsxApi().href)}\nregister()\nawait import(${JSON.stringify(module.href)})`, {
    eval: true,
    workerData: threadMarker
  })
}

/** A thread that answers inputs: `transfer` lists the buffers of the input that move to the thread rather than being copied (the caller no longer has them). */
export interface Thread<I, O> {
  readonly run: (input: I, transfer?: ReadonlyArray<ArrayBuffer>) => Effect.Effect<O, ThreadFailed>
}

/**
 * The worker thread of `module` (which calls `serveThread`), ended with the scope: `run` sends
 * it an input and waits for its output; requests are answered in order. A thread that fails
 * fails every request waiting and every one after.
 */
export const threadOf = <I, O>(module: URL): Effect.Effect<Thread<I, O>, never, Scope.Scope> =>
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
      run: (input: I, transfer: ReadonlyArray<ArrayBuffer> = []) =>
        Effect.suspend(() => {
          if (failed !== undefined) return Effect.fail(failed)
          const id = next++
          return Effect.flatMap(Deferred.make<O, ThreadFailed>(), (deferred) => {
            waiting.set(id, deferred)
            worker.postMessage({ id, input } satisfies Request<I>, [...transfer])
            return Deferred.await(deferred)
          })
        })
    }
  })

/**
 * A thread of `module` started at its first `run`, ended with the scope, and started again at
 * the next `run` after one failed (the failed one's requests fail): what a service that may
 * never need its thread, and must outlive a thread's failure, holds.
 */
export const lazyThreadOf = <I, O>(module: URL): Effect.Effect<Thread<I, O>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const outer = yield* Effect.scope
    const starting = yield* Effect.makeSemaphore(1)
    let current: { readonly scope: Scope.CloseableScope; readonly thread: Thread<I, O> } | undefined
    const started = starting.withPermits(1)(Effect.suspend(() =>
      current !== undefined ? Effect.succeed(current) : Effect.gen(function*() {
        const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
        const thread = yield* Scope.extend(threadOf<I, O>(module), scope)
        return current = { scope, thread }
      })
    )).pipe(Effect.uninterruptible)
    const forget = (failed: NonNullable<typeof current>) =>
      Effect.suspend(() => {
        if (current !== failed) return Effect.void
        current = undefined
        return Scope.close(failed.scope, Exit.void)
      })
    return {
      run: (input: I, transfer?: ReadonlyArray<ArrayBuffer>) =>
        Effect.flatMap(started, (now) => Effect.tapError(now.thread.run(input, transfer), () => forget(now)))
    }
  })
