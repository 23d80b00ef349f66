import { describe, expect, layer } from "@effect/vitest"
import { artifacts, hasChromium, launchChromium } from "./support/Chromium.js"
import { HttpApi } from "@effect/platform"
import { Context, Effect, Layer } from "effect"
import { execFile } from "node:child_process"
import { readFile, writeFile } from "node:fs/promises"
import * as path from "node:path"
import ts from "typescript"
import { AdIntelApi } from "../src/app/Api.js"
import { products } from "../src/kernel/Products.js"
import { loadedSmallWorldServer, recordsOf } from "./support/AdWorld.js"
import { tempDir } from "./support/TempDir.js"
import { account, call, keyHeader, TestServer } from "./support/TestServer.js"

/**
 * Issue 27: the contract works in the tools integrators use, run offline on what the service
 * serves: `redocly lint` with the recommended ruleset (no configuration, no ignore file),
 * `openapi-typescript`, a `--strict` TypeScript program on `openapi-fetch` against the generated
 * types (then run against the service), the `/docs` page in Chromium, and the MCP Inspector's
 * CLI against `/mcp` (on Node 22.19 or later: the Inspector needs it; on Node 20 that test is
 * skipped, and CI runs it on Node 24).
 */

const root = path.resolve(".")
const fixture = path.join(root, "test/fixtures/openapi-client")

/** The MCP Inspector needs Node 22.19 or later (its `engines`). */
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
const inspectorRuns = major > 22 || (major === 22 && minor >= 19)

/** A tool's command line, run with this Node; what it printed and its exit code. */
const run = (script: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) =>
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
class WorkDir extends Context.Tag("test/WorkDir")<WorkDir, string>() {}

const server = Layer.unwrapScoped(Effect.map(tempDir("openapi-tools"), (dir) =>
  Layer.succeed(WorkDir, dir).pipe(Layer.provideMerge(loadedSmallWorldServer({ env: { STORE_MEDIA_DIR: path.join(dir, "media") } })))
))

/** The document as an integrator downloads it, saved where the tools read it. */
const downloaded = Effect.gen(function*() {
  const dir = yield* WorkDir
  const answer = yield* call("/openapi.json")
  expect(answer.status).toBe(200)
  const file = path.join(dir, "openapi.json")
  yield* Effect.promise(() => writeFile(file, answer.body))
  return { file, document: JSON.parse(answer.body) }
})

/** A strict compile of the fixture program, the generated types served where it imports them from. */
const strictDiagnostics = (generated: string) => {
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
    noUncheckedIndexedAccess: true
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
interface Answers {
  readonly ads: ReadonlyArray<string>
  readonly hasMore: boolean
  readonly media: ReadonlyArray<string>
  readonly similar: ReadonlyArray<{ readonly id: string; readonly similarity: number }>
  readonly stores: ReadonlyArray<string>
  readonly refused: { readonly status: number; readonly error: string } | null
}

describe("the contract in integrators' tools (issue 27)", () => {
  layer(server, { timeout: 180_000 })((it) => {
    it.effect("redocly lint, recommended ruleset: 0 errors and 0 warnings; `servers` is where the document was fetched from", () =>
      Effect.gen(function*() {
        const { file, document } = yield* downloaded
        const { url } = yield* TestServer
        expect(document.servers).toEqual([{ url, description: "This service" }])
        expect(document.info.license).toEqual({ name: "Proprietary", identifier: "LicenseRef-AdIntel-Proprietary" })
        const lint = yield* run("@redocly/cli/bin/cli.js", ["lint", file, "--extends", "recommended", "--format", "json"], path.dirname(file))
        const report = JSON.parse(lint.stdout)
        expect(report.problems.map((p: { ruleId: string; message: string }) => `${p.ruleId}: ${p.message}`)).toEqual([])
        expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 })
        expect(lint.code).toBe(0)
      }))

    it.effect("tags are the products, each described; no operation answers what it cannot; mirrors are not in the document", () =>
      Effect.gen(function*() {
        const { document } = yield* downloaded
        expect(document.tags).toEqual(Object.entries(products).map(([name, description]) => ({ name, description })))
        const operations = Object.entries<Record<string, any>>(document.paths).flatMap(([p, item]) => Object.entries(item).map(([method, op]) => ({ path: p, method, op })))
        for (const { op } of operations) expect(Object.keys(products)).toContain(op.tags[0])
        expect(Object.keys(document.paths["/health"].get.responses)).toEqual(["200", "431", "500"])
        expect(Object.keys(document.paths["/api/v1/credits"].get.responses)).toEqual(["200", "401", "403", "429", "431", "500"])
        expect(Object.keys(document.paths["/api/v1/clipapp-ads/{id}"].get.responses)).toEqual(["200", "400", "401", "403", "404", "429", "431", "500"])
        expect(Object.keys(document.paths["/api/v1/magic-ai"].post.responses)).toEqual(["200", "400", "401", "403", "404", "413", "429", "431", "500"])
        // The aliases and legacy paths are listed in the README, not here (each route once, at its canonical path).
        expect(Object.keys(document.paths).filter((p) => !p.startsWith("/api/v1/") && p.startsWith("/api/") && !["/api", "/api/regenerate", "/api/usage", "/api/logs"].includes(p))).toEqual([])
        expect(JSON.stringify(document)).not.toMatch(/@(alias|legacy)/)
        // The key is the default security: "Test Request" sends it; unmetered routes say they need none.
        expect(document.security).toEqual([{ ApiKeyHeader: [] }, { BearerKey: [] }, { ApiKeyQuery: [] }])
        expect(document.paths["/health"].get.security).toEqual([])
      }))

    it.effect("the README's \"Second paths\" names every mirror the contract mounts (the document leaves them out)", () =>
      Effect.gen(function*() {
        const readme = yield* Effect.promise(() => readFile(path.join(root, "README.md"), "utf8"))
        const section = readme.slice(readme.indexOf("### Second paths"), readme.indexOf("### Short-video shop"))
        const prefixes = new Set<string>()
        HttpApi.reflect(AdIntelApi, {
          onGroup: () => {},
          onEndpoint: ({ endpoint, group }) => {
            if (!group.identifier.includes("@")) return
            const segments = endpoint.path.split("/")
            prefixes.add(segments.slice(0, segments[2] === "v1" ? 4 : 3).join("/"))
          }
        })
        expect(prefixes.size).toBeGreaterThan(5)
        for (const prefix of prefixes) expect([prefix, section.includes(`\`${prefix}`)]).toEqual([prefix, true])
      }))

    it.effect("openapi-typescript generates the types; a --strict openapi-fetch program compiles against them and its calls answer", () =>
      Effect.gen(function*() {
        const { file } = yield* downloaded
        const dir = yield* WorkDir
        const out = path.join(dir, "adintel-api.d.ts")
        const generate = yield* run("openapi-typescript/bin/cli.js", [file, "-o", out], dir)
        expect([generate.code, generate.stderr + generate.stdout]).toEqual([0, expect.stringContaining("adintel-api.d.ts")])
        expect(`${generate.stderr}${generate.stdout}`).not.toMatch(/⚠|warn|error/i)
        const generated = yield* Effect.promise(() => readFile(out, "utf8"))
        expect(strictDiagnostics(generated)).toEqual([])

        // The same program, run: its answers are the service's.
        const { url } = yield* TestServer
        const { api_key: key } = yield* account({ plan: "pro" })
        const image = recordsOf("store-products").find((p) => p.images?.[0]?.startsWith("/media/stores/"))!
        // Imported by path, not by name: the type check of the repository does not follow it (it needs the generated types).
        const program: string = path.join(fixture, "client.ts")
        const { callAll }: { readonly callAll: (url: string, key: string, imageUrl: string) => Promise<Answers> } = yield* Effect.promise(() => import(program))
        const answers = yield* Effect.promise(() => callAll(url, key, `${url}${image.images[0]}`))
        const rest = JSON.parse((yield* call("/api/v1/adlibrary?q=serum&country=US,GB&limit=5", keyHeader(key))).body)
        expect(answers.ads).toEqual(rest.data.map((ad: { id: string }) => ad.id))
        expect(answers.ads.length).toBeGreaterThan(0)
        expect(answers.hasMore).toBe(rest.has_more)
        expect(answers.similar.length).toBeGreaterThan(0)
        expect(answers.stores[0]).toBe(image.store_external_id)
        expect(answers.refused).toEqual({ status: 400, error: "limit: must be an integer from 1 to 50" })
      }))

    it.scoped.skipIf(!hasChromium)("/docs in Chromium: the product groups, no internal identifiers, the key scheme selected", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const browser = yield* launchChromium
        const page = yield* Effect.promise(() => browser.newPage({ viewport: { width: 1440, height: 1000 } }))
        yield* Effect.promise(() => page.goto(`${url}/docs`))
        yield* Effect.promise(() => page.getByText("Short-video shop", { exact: true }).first().waitFor({ timeout: 60_000 }))
        yield* Effect.promise(() => page.screenshot({ path: path.join(artifacts(), "docs.png") }))
        const text = yield* Effect.promise(() => page.innerText("body"))
        for (const product of Object.keys(products)) expect(text).toContain(product)
        expect(text).not.toMatch(/\w@(alias|legacy)/)
        // The key header is the selected scheme: "Test Request" sends the key pasted here.
        expect(text).toMatch(/ApiKeyHeader/)
        expect(text).toMatch(/X-API-Key/)
      }))

    it.effect.skipIf(!inspectorRuns)("the MCP Inspector CLI, --strict: every tool's schemas portable (0 warnings); a search and a failing tool called", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const dir = yield* WorkDir
        const { api_key: key } = yield* account({ plan: "pro" })
        // Its catalog and storage go to the work folder (HOME), not the user's.
        const inspector = (...args: ReadonlyArray<string>) =>
          run(
            "@modelcontextprotocol/inspector/clients/launcher/build/index.js",
            ["--cli", `${url}/mcp`, "--transport", "http", "--header", `X-API-Key: ${key}`, ...args],
            dir,
            { HOME: dir }
          )
        const listed = yield* inspector("--method", "tools/list", "--strict")
        expect([listed.code, listed.stderr]).toEqual([0, ""])
        const tools: ReadonlyArray<{ readonly name: string; readonly outputSchema?: unknown }> = JSON.parse(listed.stdout).tools
        expect(tools.length).toBeGreaterThan(90)
        expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["search_social_ads", "visual_search_stores", "list_notifications"]))

        const searched = yield* inspector("--method", "tools/call", "--tool-name", "search_social_ads", "--tool-arg", "q=serum", "--tool-arg", "limit=2")
        expect([searched.code, searched.stderr]).toEqual([0, ""])
        const result = JSON.parse(searched.stdout)
        expect(result.isError).not.toBe(true)
        const rest = JSON.parse((yield* call("/api/v1/adlibrary?q=serum&limit=2", keyHeader(key))).body)
        expect(result.structuredContent.data.map((ad: { id: string }) => ad.id)).toEqual(rest.data.map((ad: { id: string }) => ad.id))

        // A failing tool: the route's 404, as an error result (the Inspector's exit code 5).
        const failed = yield* inspector("--method", "tools/call", "--tool-name", "get_short_video_ad", "--tool-arg", "id=no-such-ad")
        expect(failed.code).toBe(5)
        expect(JSON.parse(failed.stdout)).toEqual({ content: [{ type: "text", text: "Ad not found" }], isError: true })
      }))
  })
})
