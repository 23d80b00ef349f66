import { describe, expect, layer } from "@effect/vitest"
import { artifacts, hasChromium, launchChromium } from "./support/Chromium.js"
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import * as path from "node:path"
import { products } from "../src/kernel/Products.js"
import { recordsOf } from "./support/AdWorld.js"
import { type Answers, downloaded, fixture, inspectorRuns, run, server, strictDiagnostics, WorkDir } from "./support/IntegratorTools.js"
import { account, call, keyHeader, TestServer } from "./support/TestServer.js"

/**
 * Issue 27: the contract works in the clients integrators use, run offline on what the service
 * serves: `openapi-typescript`, a `--strict` TypeScript program on `openapi-fetch` against the
 * generated types (then run against the service), the `/docs` page in Chromium, and the MCP
 * Inspector's CLI against `/mcp` (on Node 22.19 or later: the Inspector needs it; on Node 20
 * that test is skipped, and CI runs it on Node 24). The document in redocly:
 * test/integratorTools.test.ts.
 */

describe("the contract in integrators' clients (issue 27)", () => {
  layer(server, { timeout: 180_000 })((it) => {
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
