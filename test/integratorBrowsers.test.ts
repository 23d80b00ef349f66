import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { products } from "../src/kernel/Products.js"
import { artifacts, hasChromium, launchChromium } from "./support/Chromium.js"
import { inspectorRuns, run, server, WorkDir } from "./support/IntegratorTools.js"
import { account, call, keyHeader, TestServer } from "./support/TestServer.js"

/**
 * Issue 27: the contract in the clients integrators see it through, run offline on what the
 * service serves: the `/docs` page in Chromium, and the MCP Inspector's CLI against `/mcp` (on
 * Node 22.19 or later: the Inspector needs it; on Node 20 that test is skipped, and CI runs it on
 * Node 24). The generated types and a `--strict` program: test/integratorClients.test.ts.
 */

describe("the contract in integrators' browsers and the MCP Inspector (issue 27)", () => {
  layer(server, { timeout: 180_000 })((it) => {
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
      }), { timeout: 120_000 })

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
