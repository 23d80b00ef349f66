import { Context, Effect, Layer } from "effect"
import { execFile } from "node:child_process"
import { writeFile } from "node:fs/promises"
import * as path from "node:path"
import ts from "typescript"
import { expect } from "@effect/vitest"
import { loadedSmallWorldServer } from "./AdWorld.js"
import { tempDir } from "./TempDir.js"
import { call } from "./TestServer.js"

// What the integrators' tools' tests share (test/integratorTools.test.ts, integratorClients.test.ts,
// integratorBrowsers.test.ts).

export const root = path.resolve(".")
export const fixture = path.join(root, "test/fixtures/openapi-client")

/** The MCP Inspector needs Node 22.19 or later (its `engines`). */
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
export const inspectorRuns = major > 22 || (major === 22 && minor >= 19)

/** A tool's command line, run with this Node; what it printed and its exit code. */
export const run = (script: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) =>
  Effect.async<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resume) => {
    execFile(
      process.execPath,
      [path.join(root, "node_modules", script), ...args],
      // Offline: no telemetry, no update check.
      { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1", ...env } },
      (error, stdout, stderr) => resume(Effect.succeed({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }))
    )
  })

/** The work folder of the run: the document, the generated types. */
export class WorkDir extends Context.Tag("test/WorkDir")<WorkDir, string>() {}

export const server = Layer.unwrapScoped(Effect.map(tempDir("openapi-tools"), (dir) =>
  Layer.succeed(WorkDir, dir).pipe(Layer.provideMerge(loadedSmallWorldServer({ env: { STORE_MEDIA_DIR: path.join(dir, "media") } })))
))

/** The document as an integrator downloads it, saved where the tools read it. */
export const downloaded = Effect.gen(function*() {
  const dir = yield* WorkDir
  const answer = yield* call("/openapi.json")
  expect(answer.status).toBe(200)
  const file = path.join(dir, "openapi.json")
  yield* Effect.promise(() => writeFile(file, answer.body))
  return { file, document: JSON.parse(answer.body) }
})

/** A strict compile of the fixture program, the generated types served where it imports them from. */
export const strictDiagnostics = (generated: string) => {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
    noUnusedLocals: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    // TypeScript's own lib files (lib.dom.d.ts is most of the program) are not checked: a third
    // of the compile. The generated types, openapi-fetch's and the program are.
    skipDefaultLibCheck: true
  }
  const typesFile = path.join(fixture, "adintel-api.d.ts")
  const host = ts.createCompilerHost(options)
  const { fileExists, readFile: read, getSourceFile } = host
  host.fileExists = (file) => file === typesFile || fileExists.call(host, file)
  host.readFile = (file) => (file === typesFile ? generated : read.call(host, file))
  host.getSourceFile = (file, language, onError, fresh) =>
    file === typesFile ? ts.createSourceFile(file, generated, language) : getSourceFile.call(host, file, language, onError, fresh)
  const program = ts.createProgram([path.join(fixture, "client.ts")], options, host)
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))
}

/** What the fixture program answers. */
export interface Answers {
  readonly ads: ReadonlyArray<string>
  readonly hasMore: boolean
  readonly media: ReadonlyArray<string>
  readonly similar: ReadonlyArray<{ readonly id: string; readonly similarity: number }>
  readonly stores: ReadonlyArray<string>
  readonly refused: { readonly status: number; readonly error: string } | null
}
