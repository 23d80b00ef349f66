import type { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"

/**
 * An MCP tool is a declaration: a route of the contract and words for a language model. The
 * route's own handler serves it (access/gateway/RouteHandlers.ts), its schemas give the tool's
 * input and output schemas, and its metering is the route's (issue 21; INTERPRETATIONS M1).
 */

/** What a call takes besides its one credit (spec: Limits). */
export type AlsoUses = "a daily short-video search" | "a monthly script generation"

export interface ToolDeclaration {
  /** The group of the route (a metered group of the contract) and its endpoint. */
  readonly group: string
  readonly endpoint: string
  /** A short human title (MCP `title`). */
  readonly title: string
  /** For a language model: what it does, when to use it (and when another tool fits better). */
  readonly description: string
  readonly alsoUses?: AlsoUses
}

type EndpointsOf<G> = G extends HttpApiGroup.HttpApiGroup<any, infer Endpoints, any, any, any> ? Endpoints : never

/**
 * Declares a tool served by `endpoint` of `group`; both names are checked at compile time. POST
 * endpoints take the tool's arguments as their JSON body, GET endpoints as their query string;
 * path parameters are arguments too.
 */
export const tool = <
  G extends HttpApiGroup.HttpApiGroup.Any,
  const E extends HttpApiEndpoint.HttpApiEndpoint.Name<EndpointsOf<G>>
>(
  group: G,
  endpoint: E,
  about: Omit<ToolDeclaration, "group" | "endpoint">
): ToolDeclaration => ({ group: group.identifier, endpoint, ...about })

/**
 * A decision that routes are not tools, and why: every route of the contract is a tool or named
 * here, once (test/routes.test.ts), so a new route cannot leave MCP by forgetting it. A group
 * that is not metered (probes, session pages, the admin API, public pages) may be declared
 * whole; a metered group names its routes, so each new one is decided on its own.
 */
export interface NoToolDeclaration {
  readonly group: string
  readonly endpoints: ReadonlyArray<string> | "every route"
  /** Why a language model gets no tool for it (docs/SPEC-NOTES.md, "MCP and its OAuth server": which tools). */
  readonly why: string
}

/** Declares routes of `group` that are not tools; the names are checked at compile time. */
export const noTool = <
  G extends HttpApiGroup.HttpApiGroup.Any,
  const E extends HttpApiEndpoint.HttpApiEndpoint.Name<EndpointsOf<G>>
>(
  group: G,
  endpoints: ReadonlyArray<E> | "every route",
  why: string
): NoToolDeclaration => ({ group: group.identifier, endpoints, why })
