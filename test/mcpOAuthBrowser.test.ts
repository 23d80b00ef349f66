import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Deferred, Effect } from "effect"
import * as path from "node:path"
import { Gateway } from "../src/access/gateway/Gateway.js"
import { artifacts, hasChromium, launchChromium } from "./support/Chromium.js"
import { callbackServer, creditsWith, MemoryProvider, oauthServer, password, unpooledFetch } from "./support/McpOAuth.js"
import { account, balanceOf, TestServer } from "./support/TestServer.js"

/**
 * Issue 21, M3-M4: the official MCP SDK's OAuth client (discovery, registration, PKCE, refresh)
 * connected to `/mcp` through the sign-in and consent pages in headless Chromium, as a desktop
 * client connects. What the authorization server refuses: test/mcpOAuth.test.ts.
 */

describe("MCP over OAuth 2.1, in a browser", () => {
  layer(oauthServer)((it) => {
    it.scoped.skipIf(!hasChromium)("connects the SDK client through sign-in and consent in Chromium, calls tools, refreshes, disconnects", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const owner = yield* account({ plan: "pro", password })
        const callback = yield* callbackServer
        const redirectUrl = `http://127.0.0.1:${callback.port}/callback`
        const provider = new MemoryProvider(redirectUrl)
        const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: provider, fetch: unpooledFetch })
        const first = new Client({ name: "oauth-test", version: "1.0.0" })
        // No token yet: the server's 401 sends the SDK through discovery and registration to the authorize URL.
        const refused = yield* Effect.promise(() => first.connect(transport).then(() => undefined, (e: unknown) => e))
        expect(refused).toBeInstanceOf(UnauthorizedError)
        const authorizationUrl = provider.authorizationUrl!
        expect(authorizationUrl.pathname).toBe("/mcp/oauth/authorize")
        expect(authorizationUrl.searchParams.get("resource")).toBe(`${url}/mcp`)

        const browser = yield* launchChromium
        const page = yield* Effect.promise(() => browser.newPage())
        const run = <A>(f: () => Promise<A>) => Effect.promise(f)
        // Not signed in: the login page, which comes back to the authorization request.
        yield* run(() => page.goto(authorizationUrl.href))
        expect(new URL(page.url()).pathname).toBe("/login")
        yield* run(() => page.fill("#email", owner.email))
        yield* run(() => page.fill("#password", password))
        yield* run(() => Promise.all([page.waitForURL((u) => u.pathname === "/mcp/oauth/authorize"), page.click("button[type=submit]")]))
        expect(yield* run(() => page.textContent("#client-name"))).toBe("Test Desktop")
        expect(yield* run(() => page.textContent("#redirect-host"))).toBe(`127.0.0.1:${callback.port}`)
        expect(yield* run(() => page.textContent("#account"))).toBe(owner.email)
        yield* run(() => page.screenshot({ path: path.join(artifacts(), "mcp-consent.png"), fullPage: true }))
        yield* run(() => Promise.all([page.waitForURL((u) => u.href.startsWith(redirectUrl)), page.click("#allow")]))
        const redirected = yield* Deferred.await(callback.received)
        expect(redirected.searchParams.get("state")).toBe(provider.stateValue)
        const code = redirected.searchParams.get("code")!

        yield* Effect.promise(() => transport.finishAuth(code))
        expect(provider.saved?.token_type).toBe("Bearer")
        expect(provider.saved?.expires_in).toBe(3600)

        const client = new Client({ name: "oauth-test", version: "1.0.0" })
        yield* Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: provider, fetch: unpooledFetch })))
        const tools = yield* Effect.promise(() => client.listTools())
        expect(tools.tools.length).toBeGreaterThan(30)
        const names = ["search_social_ads", "explore_shop_products", "get_credits"]
        for (const name of names) {
          const result = yield* Effect.promise(() => client.callTool({ name, arguments: name === "search_social_ads" ? { limit: 2 } : {} }))
          expect(result.isError).toBe(false)
        }
        expect((yield* balanceOf(owner.id)).used).toBe(names.length)
        // Answers are written to the ledger by the gateway's batching fiber: its queue drained first.
        yield* (yield* Gateway).flush
        const sql = yield* SqlClient.SqlClient
        const ledger = yield* sql<{ method: string; route: string; status: number }>`
          select method, route, status from request_ledger where account_id = ${owner.id}::uuid order by id`
        expect(ledger).toEqual(names.map((route) => ({ method: "MCP", route, status: 200 })))

        // Refresh: a new pair; the old access token is refused, the new one works.
        const before = provider.saved!
        expect(yield* Effect.promise(() => auth(provider, { serverUrl: new URL(`${url}/mcp`), fetchFn: unpooledFetch }))).toBe("AUTHORIZED")
        const after = provider.saved!
        expect(after.refresh_token).not.toBe(before.refresh_token)
        expect((yield* creditsWith(before.access_token)).status).toBe(401)
        expect((yield* creditsWith(after.access_token)).json.result.isError).toBe(false)

        // The key page lists the client; Disconnect ends its tokens.
        yield* run(() => page.goto(`${url}/api`))
        expect(yield* run(() => page.textContent("#mcp-clients"))).toContain("Test Desktop")
        yield* run(() => Promise.all([page.waitForURL(`${url}/api`), page.click("#mcp-clients button")]))
        expect(yield* run(() => page.textContent("#mcp-clients"))).toContain("None.")
        expect((yield* creditsWith(after.access_token)).status).toBe(401)
        yield* Effect.promise(() => client.close())
      }), 120_000)
  })
})
