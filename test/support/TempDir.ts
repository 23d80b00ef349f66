import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { Effect } from "effect"

/** A fresh directory under the system's temporary one, removed with everything in it when the scope closes. */
export const tempDir = (prefix: string) =>
  Effect.acquireRelease(
    Effect.promise(() => mkdtemp(path.join(tmpdir(), `adintel-${prefix}-`))),
    (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
  )
