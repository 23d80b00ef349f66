import { HttpApi } from "@effect/platform"
import { Context, Option } from "effect"
import type { AnyContract } from "../kernel/Contract.js"
import { type AlsoUses, type McpDecision, McpTool } from "../kernel/McpTool.js"
import { isMirror } from "../kernel/Mirror.js"

/**
 * The MCP tools, collected from the contract: each route says in its capability's `Api.ts`
 * whether it is a tool and with which words (`McpTool`, kernel/McpTool.ts), so nothing here names
 * a route. The route's own handler serves its tool (access/gateway/RouteHandlers.ts), its schemas
 * give the tool's input and output schemas, and its metering is the route's (issue 21;
 * INTERPRETATIONS M1).
 */

/** A tool: its name and words, and the route that serves it. */
export interface ToolDeclaration {
  readonly name: string
  /** The group of the route (a metered group of the contract) and its endpoint. */
  readonly group: string
  readonly endpoint: string
  /** A short human title (MCP `title`). */
  readonly title: string
  /** For a language model: what it does, when to use it (and when another tool fits better). */
  readonly description: string
  readonly alsoUses?: AlsoUses
}

/** A route of the contract at its canonical path, and what it is to MCP: its own decision, else its group's. */
export interface RouteDecision {
  readonly group: string
  readonly endpoint: string
  readonly decision: Option.Option<McpDecision>
}

/** Every route of `api` outside its mirrors (which serve the same routes again), in the contract's order. */
export const decisionsOf = (api: AnyContract): ReadonlyArray<RouteDecision> => {
  const decisions: Array<RouteDecision> = []
  HttpApi.reflect(api, {
    predicate: ({ group }) => !isMirror(group.identifier),
    onGroup: () => {},
    onEndpoint: ({ endpoint, group, mergedAnnotations }) =>
      decisions.push({ group: group.identifier, endpoint: endpoint.name, decision: Context.getOption(mergedAnnotations, McpTool) })
  })
  return decisions
}

/** The tools of `api`, in the contract's order; two routes declaring one name is a mistake in the contract. */
export const toolsOf = (api: AnyContract): ReadonlyArray<ToolDeclaration> => {
  const tools = decisionsOf(api).flatMap(({ decision, endpoint, group }): Array<ToolDeclaration> =>
    Option.isSome(decision) && decision.value._tag === "Tool"
      ? [{
        name: decision.value.name,
        group,
        endpoint,
        title: decision.value.title,
        description: decision.value.description,
        ...(decision.value.alsoUses === undefined ? {} : { alsoUses: decision.value.alsoUses })
      }]
      : []
  )
  const names = tools.map((tool) => tool.name)
  const twice = names.filter((name, index) => names.indexOf(name) !== index)
  if (twice.length > 0) throw new Error(`MCP tools declared by two routes: ${twice.join(", ")}`)
  return tools
}
