import { describe, expect, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect } from "effect"
import { tools } from "../src/mcp/Tools.js"
import { loadedSmallWorldServer, recordsOf } from "./support/AdWorld.js"
import { account, balanceOf, call, keyHeader, TestServer } from "./support/TestServer.js"

/**
 * Issue 21: `/mcp` with the official MCP TypeScript SDK as the client, authenticated by an API
 * key: tools listed with their schemas, tool calls answered with the REST route's answer and
 * metered like it (one credit each, the ledger naming the tool), refusals as `isError` results.
 */

/** An SDK client connected to the test server with these headers; closed with the scope. */
const connect = (headers: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.flatMap(TestServer, ({ url }) =>
      Effect.promise(async () => {
        const client = new Client({ name: "adintel-test", version: "1.0.0" })
        await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }))
        return client
      })),
    (client) => Effect.promise(() => client.close())
  )

const rpc = (key: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
  call("/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(key ? { "x-api-key": key } : {}), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })

const products = recordsOf("shop-products")

describe("MCP with an API key (official SDK client)", () => {
  layer(loadedSmallWorldServer())((it) => {
    it.scoped("lists every declared tool, calls ads and shop tools, one credit each", () =>
      Effect.gen(function*() {
        const owner = yield* account({ plan: "pro" })
        const client = yield* connect({ "X-API-Key": owner.api_key })
        expect(client.getServerVersion()?.name).toBe("adintel")

        const listed = yield* Effect.promise(() => client.listTools())
        expect(listed.tools.map((t) => t.name).sort()).toEqual(Object.keys(tools).sort())
        const social = listed.tools.find((t) => t.name === "search_social_ads")!
        expect(social.inputSchema.properties).toHaveProperty("limit")
        expect(social.inputSchema.properties).not.toHaveProperty("api_key")
        expect(social.description).toContain("Cost: 1 API credit per call")
        // Listing and initializing cost nothing.
        expect((yield* balanceOf(owner.id)).used).toBe(0)

        const ads = yield* Effect.promise(() => client.callTool({ name: "search_social_ads", arguments: { limit: 3 } }))
        expect(ads.isError).toBe(false)
        const page = ads.structuredContent as { success: boolean; data: Array<{ id: string }>; scroll_token: string | null }
        expect(page.success).toBe(true)
        expect(page.data).toHaveLength(3)
        // The same answer as the REST route's.
        const rest = yield* call("/api/v1/adlibrary?limit=3", keyHeader(owner.api_key))
        expect(JSON.parse(rest.body).data.map((ad: { id: string }) => ad.id)).toEqual(page.data.map((ad) => ad.id))

        const next = yield* Effect.promise(() => client.callTool({ name: "search_social_ads", arguments: { scroll_token: page.scroll_token } }))
        expect((next.structuredContent as { data: Array<unknown> }).data.length).toBeGreaterThan(0)

        const product = products.find((p) => p.region === "US")!
        const shop = yield* Effect.promise(() => client.callTool({ name: "explore_shop_products", arguments: { country: "US", page_size: 5 } }))
        expect(shop.isError).toBe(false)
        expect((shop.structuredContent as { data: Array<unknown> }).data).toHaveLength(5)
        const detail = yield* Effect.promise(() => client.callTool({ name: "get_product_detail", arguments: { id: product.external_id, country: "US" } }))
        expect(detail.isError).toBe(false)

        const credits = yield* Effect.promise(() => client.callTool({ name: "get_credits", arguments: {} }))
        expect(credits.structuredContent).toMatchObject({ success: true, credits: { used: 6 } })
        // 2 ads calls, 3 REST-or-shop calls... counted: REST 1, tools 5.
        expect((yield* balanceOf(owner.id)).used).toBe(6)
      }), 60_000)

    it.effect("answers 401 with the resource metadata without a valid credential", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const ping = { jsonrpc: "2.0", id: 1, method: "ping" }
        for (const key of [undefined, "adi_" + "0".repeat(48), "mcp_at_unknown"]) {
          const answer = yield* rpc(undefined, ping, key ? { authorization: `Bearer ${key}` } : {})
          expect(answer.status).toBe(401)
          expect(answer.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${url}/.well-known/oauth-protected-resource/mcp"`)
          expect(answer.body).toBe(`{"success":false,"error":"Unauthorized"}`)
        }
      }))
  })
})
