import { describe, expect, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { maxBatch } from "../src/mcp/Mcp.js"
import { AdIntelApi } from "../src/app/Api.js"
import { toolsOf } from "../src/mcp/Tools.js"
import { loadedSmallWorldServer, recordsOf } from "./support/AdWorld.js"
import { account, balanceOf, call, keyHeader, signIn, TestServer } from "./support/TestServer.js"

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

/** `tools/call` over plain HTTP: the JSON-RPC answer's result. */
const callTool = (key: string, name: string, args: unknown) =>
  Effect.map(rpc(key, { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name, arguments: args } }), (answer) => {
    expect(answer.status).toBe(200)
    return JSON.parse(answer.body).result as { isError: boolean; content: Array<{ type: string; text: string }>; structuredContent?: unknown }
  })

/** The account's ledger rows, oldest first. */
const ledgerOf = (accountId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ method: string; route: string; status: number | null; refunded: boolean }>`
      select method, route, status, refunded_at is not null as refunded from request_ledger where account_id = ${accountId}::uuid order by id`)

describe("MCP with an API key (official SDK client)", () => {
  // A similar-ads text search asks an embedding model that is not there: the call fails (500).
  layer(loadedSmallWorldServer({ env: { EMBEDDINGS_URL: "http://127.0.0.1:9/v1" } }))((it) => {
    it.scoped("lists every declared tool, calls ads and shop tools, one credit each", () =>
      Effect.gen(function*() {
        const owner = yield* account({ plan: "pro" })
        const client = yield* connect({ "X-API-Key": owner.api_key })
        expect(client.getServerVersion()?.name).toBe("adintel")

        const listed = yield* Effect.promise(() => client.listTools())
        expect(listed.tools.map((t) => t.name).sort()).toEqual(toolsOf(AdIntelApi).map((tool) => tool.name).sort())
        const social = listed.tools.find((t) => t.name === "search_social_ads")!
        expect(social.inputSchema.properties).toHaveProperty("limit")
        expect(social.inputSchema.properties).not.toHaveProperty("api_key")
        expect(social.description).toContain("Cost: 1 API credit per call")
        // Every tool has its route's answer as output schema; a POST route's body is the input.
        expect(listed.tools.filter((t) => t.outputSchema?.type !== "object").map((t) => t.name)).toEqual([])
        const explore = listed.tools.find((t) => t.name === "explore_shop_products")!
        expect(Object.keys(explore.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["country", "min_price", "sort", "page_size"]))
        expect(explore.description).toContain("and a daily short-video search")
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
        // Five tool calls and the REST call, one credit each.
        expect((yield* balanceOf(owner.id)).used).toBe(6)
      }), 60_000)

    it.scoped("the workspace, brands, landers, trends and stores families answer as tools, one credit each", () =>
      Effect.gen(function*() {
        const owner = yield* account({ plan: "pro" })
        const client = yield* connect({ "X-API-Key": owner.api_key })
        const callTool = (name: string, args: Record<string, unknown>) =>
          Effect.promise(() => client.callTool({ name, arguments: args })).pipe(
            Effect.map((result) => ({ isError: result.isError, answer: result.structuredContent as Record<string, any> }))
          )

        // A brand tab is its own tool, answering what its REST route answers.
        const tab = yield* callTool("brand_overview_cards", { id: "social-flagship" })
        expect(tab.isError).toBe(false)
        const rest = yield* call("/api/v1/brands/overview-cards?id=social-flagship", keyHeader(owner.api_key))
        expect(tab.answer).toEqual(JSON.parse(rest.body))
        expect(tab.answer.data.total).toBeGreaterThan(0)

        expect((yield* callTool("follow_brand", { id: "social-flagship" })).answer).toMatchObject({ success: true, brand: { id: "social-flagship" } })
        const tracked = yield* callTool("list_tracked_brands", {})
        expect(tracked.answer.data.map((b: { id: string }) => b.id)).toEqual(["social-flagship"])

        const folder = yield* callTool("create_folder", { name: "From a model" })
        expect(folder.answer).toMatchObject({ success: true, folder: { name: "From a model", boards: [] } })

        const landers = yield* callTool("explore_landers", { page_size: 2 })
        expect(landers.answer).toMatchObject({ success: true, page: 1, page_size: 2 })
        expect(landers.answer.data).toHaveLength(2)

        const stores = yield* callTool("explore_stores", { page_size: 2 })
        expect(stores.answer).toMatchObject({ success: true, page: 1, page_size: 2 })

        const topics = yield* callTool("trending_topics", { window_days: 30, limit: 5 })
        expect(topics.isError).toBe(false)
        expect(Object.keys(topics.answer)).toEqual(["success", "window", "data"])

        // A refusal of the route is an error result with its text, and keeps its credit (G4).
        const unknown = yield* callTool("brand_hooks", { id: "social-no-such-brand" })
        expect(unknown.isError).toBe(true)

        // Eight tool calls and one REST call.
        expect((yield* balanceOf(owner.id)).used).toBe(9)
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

    it.effect("speaks JSON-RPC over POST: versions, notifications, batches, errors", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "basic" })
        const init = (version: string) =>
          Effect.map(rpc(api_key, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "1" } } }), (a) =>
            JSON.parse(a.body).result.protocolVersion)
        expect(yield* init("2025-03-26")).toBe("2025-03-26")
        expect(yield* init("2025-06-18")).toBe("2025-06-18")
        expect(yield* init("2099-01-01")).toBe("2025-06-18")

        const notified = yield* rpc(api_key, { jsonrpc: "2.0", method: "notifications/initialized" })
        expect([notified.status, notified.body]).toEqual([202, ""])
        const batch = yield* rpc(api_key, [{ jsonrpc: "2.0", id: "a", method: "ping" }, { jsonrpc: "2.0", method: "notifications/initialized" }, { jsonrpc: "2.0", id: "b", method: "nope" }])
        expect(JSON.parse(batch.body)).toEqual([
          { jsonrpc: "2.0", id: "a", result: {} },
          { jsonrpc: "2.0", id: "b", error: { code: -32601, message: "Method not found: nope" } }
        ])
        const tooMany = yield* rpc(api_key, Array.from({ length: maxBatch + 1 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" })))
        expect(JSON.parse(tooMany.body).error).toEqual({ code: -32600, message: `A batch holds 1 to ${maxBatch} messages` })
        expect(JSON.parse((yield* rpc(api_key, Array.from({ length: maxBatch }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" })))).body)).toHaveLength(maxBatch)
        const broken = yield* rpc(api_key, "{")
        expect([broken.status, JSON.parse(broken.body).error.code]).toEqual([400, -32700])
        const unknownTool = yield* rpc(api_key, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "no_such_tool" } })
        expect(JSON.parse(unknownTool.body).error).toEqual({ code: -32602, message: "Unknown tool: no_such_tool" })
        const oldVersion = yield* rpc(api_key, { jsonrpc: "2.0", id: 3, method: "ping" }, { "mcp-protocol-version": "2024-01-01" })
        expect(oldVersion.status).toBe(400)
        const foreign = yield* rpc(api_key, { jsonrpc: "2.0", id: 4, method: "ping" }, { origin: "https://evil.example" })
        expect(foreign.status).toBe(403)
        expect((yield* call("/mcp", { headers: { "x-api-key": api_key } })).status).toBe(405)
        // None of these was a tool call: nothing charged.
        expect(yield* ledgerOf((yield* account({ plan: "basic" })).id)).toEqual([])
      }))

    it.effect("answers refusals as isError results with the spec's texts, metered as REST is", () =>
      Effect.gen(function*() {
        const owner = yield* account({ plan: "basic" })
        // Bad input: the route's own message; the credit is kept (G4).
        const bad = yield* callTool(owner.api_key, "search_social_ads", { limit: 500 })
        expect(bad).toEqual({ isError: true, content: [{ type: "text", text: "limit: must be an integer from 1 to 50" }] })
        const unknown = yield* callTool(owner.api_key, "get_credits", { api_key: owner.api_key })
        expect(unknown.content[0]!.text).toBe("api_key: unknown parameter")
        // S6: session-only generation with a key alone, charged like REST.
        const generate = yield* callTool(owner.api_key, "generate_video_transcript", { video_id: "v-1" })
        expect([generate.isError, generate.content[0]!.text]).toEqual([true, "Not logged in"])
        // A model that fails: 500, refunded.
        const failed = yield* callTool(owner.api_key, "find_similar_ads", { text: "glow serum for dry skin" })
        expect(failed).toEqual({ isError: true, content: [{ type: "text", text: "Internal server error" }] })
        expect(yield* ledgerOf(owner.id)).toEqual([
          { method: "MCP", route: "search_social_ads", status: 400, refunded: false },
          { method: "MCP", route: "get_credits", status: 400, refunded: false },
          { method: "MCP", route: "generate_video_transcript", status: 200, refunded: false },
          { method: "MCP", route: "find_similar_ads", status: 500, refunded: true }
        ])
        expect((yield* balanceOf(owner.id)).used).toBe(3)

        // With the account's browser session beside the key, generation goes on (here: to the video's lookup).
        const signed = yield* account({ plan: "basic", password: "a session password" })
        const { cookie } = yield* signIn(signed.email, "a session password")
        const withSession = yield* rpc(signed.api_key, { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "generate_video_transcript", arguments: { video_id: "no-such-video" } } }, { cookie })
        expect(JSON.parse(withSession.body).result.content[0].text).toBe("Video not found or no playable URL available")

        const free = yield* account({ plan: "free" })
        expect(yield* callTool(free.api_key, "get_credits", {})).toEqual({ isError: true, content: [{ type: "text", text: "AdIntel Basic plan or higher required" }] })
        const broke = yield* account({ plan: "basic", patch: { monthly_limit: 0 } })
        const exhausted = yield* callTool(broke.api_key, "get_credits", {})
        expect(exhausted.content[0]!.text).toBe("No API credits remaining. Buy an add-on pack or wait until next monthly reset.")
        expect(JSON.parse(exhausted.content[1]!.text)).toMatchObject({ credits: { remaining: 0 }, purchase: { url: expect.any(String) } })
        const quota = yield* account({ plan: "basic", patch: { daily_search_limit: 0 } })
        const searched = yield* callTool(quota.api_key, "count_shop_products", {})
        expect(searched.content[0]!.text).toBe("You have used up your daily search quota. Upgrade to Premium for unlimited searches.")
        expect((yield* balanceOf(quota.id)).used).toBe(1)
      }))
  })
})
