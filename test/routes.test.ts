import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import { Metered } from "../src/access/gateway/Api.js"
import { RouteHandlers } from "../src/access/gateway/RouteHandlers.js"
import { AdIntelApi } from "../src/app/Api.js"
import { families } from "../src/app/Families.js"
import { McpTool } from "../src/kernel/McpTool.js"
import { decisionsOf, toolsOf } from "../src/mcp/Tools.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { testServer } from "./support/TestServer.js"

/**
 * Every route of the contract is declared once and projected everywhere it must be (issue 30;
 * STYLE.md, "One declaration, several projections"): served by one handler, a tool for MCP or
 * named as no tool with its reason, and mounted at the second paths the spec gives its family
 * (S3, S4). A route added without one of them fails here, naming it.
 */

const groups = Object.values(AdIntelApi.groups)
const isMirror = (name: string) => name.includes("@")
const canonical = groups.filter((group) => !isMirror(group.identifier))
const routesOf = (group: (typeof groups)[number]) =>
  Object.values(group.endpoints).map((endpoint) => ({ group: group.identifier, name: endpoint.name, method: endpoint.method, path: endpoint.path }))
const canonicalRoutes = canonical.flatMap(routesOf)
const key = ({ group, name }: { readonly group: string; readonly name: string }) => `${group}.${name}`

/**
 * The second paths of the spec (Versioning S3; Route kinds S4), by the canonical path a family
 * lives under; `group` narrows a rule to one family when others share the prefix. The README's
 * "Second paths" table says the same to integrators.
 */
const secondPaths: ReadonlyArray<{ readonly under: string; readonly at: string; readonly kind: "alias" | "legacy"; readonly group?: string }> = [
  { under: "/api/v1/adlibrary", at: "/api/adlibrary", kind: "alias" },
  { under: "/api/v1/store-tracker", at: "/api/store-tracker", kind: "alias" },
  { under: "/api/v1/store-explorer", at: "/api/store-explorer", kind: "alias" },
  { under: "/api/v1/brands", at: "/api/v1/saved-ads", kind: "alias", group: "workspace" },
  { under: "/api/v1/clipapp-shop", at: "/api/clipapp-shop", kind: "legacy" },
  { under: "/api/v1/clipapp-shop/product-detail", at: "/api/product-detail", kind: "legacy", group: "shopProductDetail" },
  { under: "/api/v1/magic-ai", at: "/api/magic-ai", kind: "legacy" },
  { under: "/api/v1/brands", at: "/api/brands", kind: "legacy" }
]

const isUnder = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`)

describe("every route, once in each projection (issue 30)", () => {
  it("every group of the contract is served by exactly one family of app/Families.ts, and every family's groups are in the contract", () => {
    const servedBy = families.flatMap((family, index) => Object.keys(family.contract.groups).map((group) => ({ group, index })))
    const names = groups.map((group) => group.identifier).sort()
    expect(servedBy.map(({ group }) => group).sort()).toEqual(names)
  })

  it("every route is an MCP tool or declared no tool, on its declaration (kernel/McpTool.ts); only a group that is not metered is declared whole", () => {
    // One annotation per route: a route cannot be decided twice, only not at all.
    const undecided = decisionsOf(AdIntelApi).filter((route) => Option.isNone(route.decision)).map((route) => key({ group: route.group, name: route.endpoint }))
    const meteredWhole = canonical
      .filter((group) => Option.isSome(Context.getOption(group.annotations, McpTool)))
      .filter((group) => [...group.middlewares].some((middleware) => middleware.key === Metered.key))
      .map((group) => `${group.identifier} is metered: decide each of its routes`)
    const names = decisionsOf(AdIntelApi).flatMap(({ decision }) => Option.isSome(decision) && decision.value._tag === "Tool" ? [decision.value.name] : [])
    const twice = names.filter((name, index) => names.indexOf(name) !== index)
    expect({ undecided, meteredWhole, twice }).toEqual({ undecided: [], meteredWhole: [], twice: [] })
    expect(toolsOf(AdIntelApi).map((tool) => tool.name)).toEqual(names)
  })

  it("every route has exactly the second paths its family is given (S3, S4), with the same name and method", () => {
    const mirrors = groups.filter((group) => isMirror(group.identifier))
    const wrong = canonicalRoutes.flatMap((route) => {
      const expected = secondPaths
        .filter((rule) => isUnder(route.path, rule.under) && (rule.group === undefined || rule.group === route.group))
        .map((rule) => `${rule.kind} ${route.method} ${rule.at}${route.path.slice(rule.under.length)}`)
        .sort()
      const actual = mirrors
        .filter((mirror) => mirror.identifier.startsWith(`${route.group}@`))
        .flatMap((mirror) => routesOf(mirror).filter((twin) => twin.name === route.name))
        .map((twin) => `${twin.group.slice(twin.group.indexOf("@") + 1).replace(/-.*$/, "")} ${twin.method} ${twin.path}`)
        .sort()
      return JSON.stringify(expected) === JSON.stringify(actual) ? [] : [`${key(route)} (${route.path}): expected ${expected.join(" | ") || "none"}, mounted ${actual.join(" | ") || "none"}`]
    })
    expect(wrong).toEqual([])
  })
})

describe("every route has exactly one handler", () => {
  layer(Layer.merge(testServer(), RouteHandlers.Default).pipe(Layer.provideMerge(TestDatabase)))((it) => {
    it.effect("the running server registered one handler for each route of the contract and of its mirrors, and none else", () =>
      Effect.gen(function*() {
        const registered = (yield* RouteHandlers).registered().map(({ endpoint, group }) => key({ group, name: endpoint }))
        const counts = new Map<string, number>()
        for (const route of registered) counts.set(route, (counts.get(route) ?? 0) + 1)
        const routes = groups.flatMap(routesOf).map(key)
        expect({
          missing: routes.filter((route) => !counts.has(route)),
          twice: [...counts].filter(([, count]) => count > 1).map(([route]) => route),
          unknown: [...counts.keys()].filter((route) => !routes.includes(route))
        }).toEqual({ missing: [], twice: [], unknown: [] })
      }))
  })
})
