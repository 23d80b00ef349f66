import { parentPort, workerData } from "node:worker_threads"

/**
 * The thread's side of `Threads.ts`: what a module run on a thread imports to answer requests.
 * It imports nothing but Node's own, and neither do the modules threads run: each module a
 * thread loads is loaded again on it (through tsx from the sources), and Effect's alone took
 * seconds of every demo load's start.
 */

export interface Request<I> {
  readonly id: number
  readonly input: I
}
export type Reply<O> = { readonly id: number; readonly output: O } | { readonly id: number; readonly error: string }

/** What a thread started by `threadOf` is given: how `serveThread` knows it runs on one (a test runner's own worker threads do not). */
export const threadMarker = { adintelThread: true }

/**
 * On a thread `threadOf` started, answers each request with `handle`'s output (an error: its
 * message), moving the buffers `transfer` lists rather than copying them. Does nothing elsewhere.
 */
export const serveThread = <I, O>(handle: (input: I) => O, transfer: (output: O) => ReadonlyArray<ArrayBuffer> = () => []) => {
  const port = parentPort
  if (port === null || workerData?.adintelThread !== true) return
  port.on("message", ({ id, input }: Request<I>) => {
    try {
      const output = handle(input)
      port.postMessage({ id, output } satisfies Reply<O>, [...transfer(output)])
    } catch (error) {
      port.postMessage({ id, error: String(error) } satisfies Reply<O>)
    }
  })
}
