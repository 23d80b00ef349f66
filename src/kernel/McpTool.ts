import { Context } from "effect"

/**
 * What a route is to MCP (issue 21; issue 30, "one declaration per route"): a tool, with words
 * for a language model, or no tool, with the reason. The decision is an annotation of the route
 * in its capability's `Api.ts` (`.annotate(McpTool, tool(...))`), plain data like its OpenAPI
 * summary; `mcp/Tools.ts` collects the tools by walking the contract, so a route added to a family
 * is decided in its own folder. A group that is not metered (probes, session pages, the admin
 * API, public pages) may be decided whole, on the group; a metered group decides each route
 * (test/routes.test.ts).
 */

/** What a call takes besides its one credit (spec: Limits). */
export type AlsoUses = "a daily short-video search" | "a monthly script generation"

/** The words of a tool: MCP's `title`, and for a language model what it does and when to use it. */
export interface ToolAbout {
  readonly title: string
  readonly description: string
  readonly alsoUses?: AlsoUses
}

export type McpDecision =
  | { readonly _tag: "Tool"; readonly name: string } & ToolAbout
  | { readonly _tag: "NoTool"; readonly why: string }

export class McpTool extends Context.Tag("adintel/McpTool")<McpTool, McpDecision>() {}

/**
 * The route is the MCP tool `name`: its input and output schemas, metering and answer are the
 * route's; POST endpoints take the arguments as their JSON body, GET endpoints as their query
 * string, and path parameters are arguments too. The cost sentence is added from `alsoUses`.
 */
export const tool = (name: string, about: ToolAbout): McpDecision => ({ _tag: "Tool", name, ...about })

/** The route is no tool, and why (docs/SPEC-NOTES.md, "MCP and its OAuth server": which tools). */
export const noTool = (why: string): McpDecision => ({ _tag: "NoTool", why })

/** How a scrolled search pages (INTERPRETATIONS P1), for the descriptions of the tools that do. */
export const scrollPaging =
  "Pages: limit 1-50 (default 20) on the first call; for the next page send only the scroll_token of the previous answer (it carries the filters)."

/** How a numbered list pages (INTERPRETATIONS P2). */
export const pagePaging = "Pages: page (from 1) and page_size (1-100)."
