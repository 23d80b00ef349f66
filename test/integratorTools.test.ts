import { describe, expect, layer } from "@effect/vitest"
import { HttpApi } from "@effect/platform"
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import * as path from "node:path"
import { AdIntelApi } from "../src/app/Api.js"
import { products } from "../src/kernel/Products.js"
import { downloaded, root, run, server } from "./support/IntegratorTools.js"
import { TestServer } from "./support/TestServer.js"

/**
 * Issue 27: the contract works in the tools integrators use, run offline on what the service
 * serves: `redocly lint` with the recommended ruleset (no configuration, no ignore file), and
 * the document's tags and mirrors. The clients: openapi-typescript and a `--strict` openapi-fetch
 * program in test/integratorClients.test.ts, `/docs` in Chromium and the MCP Inspector in
 * test/integratorBrowsers.test.ts.
 */

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
        // A route that reads the ad corpus: also the 503 of a Citus worker that did not answer (issue 45).
        expect(Object.keys(document.paths["/api/v1/clipapp-ads/{id}"].get.responses)).toEqual(["200", "400", "401", "403", "404", "429", "431", "500", "503"])
        expect(Object.keys(document.paths["/api/v1/magic-ai"].post.responses)).toEqual(["200", "400", "401", "403", "404", "413", "429", "431", "500", "503"])
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
  })
})
