import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import * as path from "node:path"
import { recordsOf } from "./support/AdWorld.js"
import { type Answers, downloaded, fixture, run, server, strictDiagnostics, WorkDir } from "./support/IntegratorTools.js"
import { account, call, keyHeader, TestServer } from "./support/TestServer.js"

/**
 * Issue 27: the contract works in the clients integrators use, run offline on what the service
 * serves: `openapi-typescript`, and a `--strict` TypeScript program on `openapi-fetch` against the
 * generated types (then run against the service). The `/docs` page in Chromium and the MCP
 * Inspector: test/integratorBrowsers.test.ts (a file of its own: each half costs seconds of CPU).
 * The document in redocly: test/integratorTools.test.ts.
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

  })
})
