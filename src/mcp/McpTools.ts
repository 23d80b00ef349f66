import { HttpApiSchema, HttpServerRequest } from "@effect/platform"
import { Cause, Context, Effect, Either, Exit, Option, ParseResult, Ref, Schema } from "effect"
import { Caller, Metered, type RateWindow, Unauthorized } from "../access/gateway/Api.js"
import { CallCharge } from "../access/gateway/CallCharge.js"
import { answeringDefects } from "../access/gateway/Http.js"
import { type RouteHandler, RouteHandlers } from "../access/gateway/RouteHandlers.js"
import { InternalServerError, InvalidRequest } from "../kernel/Errors.js"
import { describeParseError } from "../kernel/Issues.js"
import { jsonFormOf } from "../kernel/Forms.js"
import { AppConfig } from "../platform/AppConfig.js"
import { type ArgumentParts, inputOf, type JsonObject, outputOf } from "./JsonSchemas.js"
import { isJsonObject } from "../kernel/Guards.js"
import { type ToolDeclaration, toolsOf } from "./Tools.js"
import type { AnyContract } from "../kernel/Contract.js"
import { serviceSpan } from "../platform/telemetry/Tracing.js"

/**
 * The contract whose routes are the tools: the server gives the whole `AdIntelApi` (app/Server.ts).
 * Each route says there whether it is a tool (kernel/McpTool.ts); `toolsOf` collects them.
 */
export class McpContract extends Context.Tag("adintel/McpContract")<McpContract, AnyContract>() {}

/** A tool as `tools/list` shows it (MCP 2025-06-18; `title`, `outputSchema` and annotations are ignored by older clients). */
export interface ToolDescriptor {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: JsonObject
  readonly outputSchema?: JsonObject
  readonly annotations: {
    readonly title: string
    readonly readOnlyHint: boolean
    readonly destructiveHint: boolean
    readonly idempotentHint: boolean
    readonly openWorldHint: boolean
  }
}

/** A `tools/call` result (MCP `CallToolResult`). */
export interface ToolResult {
  readonly content: ReadonlyArray<{ readonly type: "text"; readonly text: string }>
  readonly structuredContent?: JsonObject
  readonly isError: boolean
}

/** What a call ended as: the result, and the rate window of its admission (none when refused before a slot). */
export interface ToolOutcome {
  readonly result: ToolResult
  readonly rate: Option.Option<RateWindow>
}

/** spec: Limits: what every description ends with. */
const costOf = (declaration: ToolDeclaration, ratePerMinute: number) =>
  `Cost: 1 API credit per call${declaration.alsoUses ? ` and ${declaration.alsoUses}` : ""}; at most ${ratePerMinute} calls per minute per account.`

interface Prepared {
  readonly name: string
  readonly descriptor: ToolDescriptor
  readonly route: RouteHandler
  readonly parts: ArgumentParts
  /** The route's failures: each error's wire body schema, with its status. */
  readonly failures: ReadonlyArray<Schema.Schema.Any>
}

const failuresOf = (route: RouteHandler): ReadonlyArray<Schema.Schema.Any> => {
  const schemas = new Set<Schema.Schema.Any>()
  for (const schema of [route.endpoint.errorSchema, route.group.errorSchema, route.api.errorSchema, Metered.failure]) {
    HttpApiSchema.deunionize(schemas, schema)
  }
  return [...schemas]
}

const prepare = (name: string, declaration: ToolDeclaration, route: RouteHandler, ratePerMinute: number): Prepared => {
  const { parts, schema } = inputOf(route.endpoint)
  const output = outputOf(route.endpoint)
  const generates = declaration.alsoUses === "a monthly script generation"
  return {
    name,
    route,
    parts,
    failures: failuresOf(route),
    descriptor: {
      name,
      title: declaration.title,
      description: `${declaration.description} ${costOf(declaration, ratePerMinute)}`,
      inputSchema: schema,
      ...(Option.isSome(output) ? { outputSchema: output.value } : {}),
      annotations: {
        title: declaration.title,
        readOnlyHint: !generates,
        destructiveHint: false,
        idempotentHint: !generates,
        openWorldHint: false
      }
    }
  }
}

/** A query string carries text: a JSON argument as the query string would spell it. */
const asQueryText = (value: unknown): string | ReadonlyArray<string> =>
  Array.isArray(value)
    ? value.map((item) => (typeof item === "string" ? item : JSON.stringify(item)))
    : typeof value === "string"
    ? value
    : JSON.stringify(value)

const pick = (args: JsonObject, names: ReadonlyArray<string>, f: (value: unknown) => unknown = (v) => v) =>
  Object.fromEntries(Object.entries(args).filter(([name]) => names.includes(name)).map(([name, value]) => [name, f(value)]))

/** A contract schema as one that needs no services (`as`: the contract's schemas need none; `Schema.Any` types them as any context). */
const contextFree = (schema: Schema.Schema.Any) => schema as Schema.Schema<unknown, unknown, never>

const invalid = (error: ParseResult.ParseError) => new InvalidRequest({ error: describeParseError(error) })

/**
 * The arguments, decoded as the route decodes its request (same schemas, same messages: G10,
 * G11). An argument the tool does not take is refused as a query string's unknown parameter is.
 */
const decodeArguments = (tool: Prepared, args: JsonObject) =>
  Effect.gen(function*() {
    const { endpoint } = tool.route
    const known = [...tool.parts.path, ...tool.parts.query, ...tool.parts.body]
    const unknown = Object.keys(args).find((name) => !known.includes(name))
    if (unknown !== undefined) return yield* Effect.fail(new InvalidRequest({ error: `${unknown}: unknown parameter` }))
    const decode = (schema: Option.Option<Schema.Schema.Any>, input: unknown) =>
      Option.match(schema, {
        onNone: () => Effect.succeed(undefined),
        onSome: (schema) => Effect.mapError(Schema.decodeUnknown(contextFree(schema))(input), invalid)
      })
    return {
      path: yield* decode(endpoint.pathSchema, pick(args, tool.parts.path, (v) => (typeof v === "string" ? v : JSON.stringify(v)))),
      urlParams: yield* decode(endpoint.urlParamsSchema, pick(args, tool.parts.query, asQueryText)),
      payload: yield* decode(Option.map(endpoint.payloadSchema, jsonFormOf), pick(args, tool.parts.body))
    }
  })

/** The route's answer for a failure: its status and wire body, as the contract encodes it. */
const encodeFailure = (tool: Prepared, error: unknown): { readonly status: number; readonly body: JsonObject } => {
  for (const schema of tool.failures) {
    if (!Schema.is(Schema.typeSchema(schema))(error)) continue
    const body = Schema.encodeUnknownEither(contextFree(schema))(error)
    if (Either.isRight(body) && isJsonObject(body.right)) return { status: HttpApiSchema.getStatusErrorAST(schema.ast), body: body.right }
  }
  return { status: 500, body: { success: false, error: new InternalServerError().error } }
}

/** M1: a refusal is a result with `isError` and the spec's text (`message` where the envelope has one, else `error`). */
const refusal = (body: JsonObject): ToolResult => {
  const text = typeof body["message"] === "string" ? body["message"] : typeof body["error"] === "string" ? body["error"] : "Request failed"
  const { success: _success, error: _error, message: _message, ...details } = body
  return {
    isError: true,
    // What the envelope adds to its text (a credits object, a checkout URL) follows as JSON.
    content: [{ type: "text", text }, ...(Object.keys(details).length > 0 ? [{ type: "text" as const, text: JSON.stringify(body) }] : [])]
  }
}

const count = (n: number, what: string) => `${n.toLocaleString("en-US")} ${what}${n === 1 ? "" : "s"}`

/** One line saying what an answer holds, before its JSON. */
export const summaryOf = (answer: JsonObject): string => {
  const data = answer["data"]
  if (Array.isArray(data) && "scroll_token" in answer) {
    const token = answer["scroll_token"]
    return `${count(data.length, "result")}${typeof token === "string" ? `; more: call again with scroll_token "${token}"` : "; no more pages"}.`
  }
  if (Array.isArray(data) && typeof answer["total"] === "number") {
    return `${count(data.length, "result")} of ${answer["total"].toLocaleString("en-US")} (page ${answer["page"]}, page_size ${answer["page_size"]}).`
  }
  if (typeof answer["total"] === "number") return `${count(answer["total"], "match")}.`
  const credits = answer["credits"]
  if (typeof credits === "object" && credits !== null && "total_remaining" in credits) {
    return `${String(credits.total_remaining)} credits left.`
  }
  if ("credits_remaining" in answer) {
    return answer["credits_remaining"] === null ? "Unlimited short-video searches." : `${String(answer["credits_remaining"])} short-video searches left today.`
  }
  if ("transcript" in answer) return answer["transcript"] === null ? "No transcript yet." : "Transcript found."
  if (Array.isArray(data)) return `${count(data.length, "result")}.`
  return "Done."
}

const answered = (answer: JsonObject): ToolResult =>
  // spec: Errors rule 5: a generation refused with status 200 is a refusal all the same.
  answer["success"] === false && typeof answer["message"] === "string"
    ? { ...refusal(answer), structuredContent: answer }
    : {
      isError: false,
      content: [{ type: "text", text: summaryOf(answer) }, { type: "text", text: JSON.stringify(answer) }],
      structuredContent: answer
    }

/**
 * The MCP tools: their descriptors for `tools/list`, and `tools/call` as one metered call of the
 * route (G1-G6, M1): admitted with the tool's name as the ledger's route, the route's handler
 * run on the decoded arguments, the call's credit settled as on every path (`CallCharge`).
 */
export class McpTools extends Effect.Service<McpTools>()("adintel/McpTools", {
  effect: Effect.gen(function*() {
    const routes = yield* RouteHandlers
    const charge = yield* CallCharge
    const { rateLimitPerMinute } = yield* AppConfig
    const tools = toolsOf(yield* McpContract)

    // Groups register their handlers as the server's layers build: resolved at the first use.
    const resolved = yield* Effect.cached(Effect.sync(() =>
      new Map(tools.map((declaration): [string, Prepared] => {
        const route = routes.find(declaration.group, declaration.endpoint)
        if (Option.isNone(route)) throw new Error(`MCP tool ${declaration.name}: no handler for ${declaration.group}.${declaration.endpoint}`)
        return [declaration.name, prepare(declaration.name, declaration, route.value, rateLimitPerMinute)]
      }))
    ))

    /**
     * The route's handler on the arguments, as its own HTTP route runs it: its answer as JSON, or
     * its typed failure (a defect answered as the 500 envelope's, as on its route).
     */
    const run = (tool: Prepared, args: JsonObject) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const decoded = yield* decodeArguments(tool, args)
        const answer = yield* tool.route.run({ ...decoded, request })
        const encoded = yield* Schema.encodeUnknown(contextFree(tool.route.endpoint.successSchema))(answer)
        // A tool's route answers a JSON object (its output schema says so: test/mcp.test.ts).
        return isJsonObject(encoded) ? encoded : yield* Effect.dieMessage(`MCP tool ${tool.name}: the route answered no JSON object`)
      }).pipe(answeringDefects)

    return {
      list: Effect.withSpan(
        Effect.map(resolved, (prepared) => [...prepared.values()].map((tool) => tool.descriptor)),
        "McpTools.list",
        serviceSpan
      ),

      /** Whether a tool of this name exists (an unknown one is a protocol error, not a call). */
      has: Effect.fn("McpTools.has", serviceSpan)((name: string) => Effect.map(resolved, (prepared) => prepared.has(name))),

      /**
       * One `tools/call`, billed to the account of the key `keyHash` names: one metered call,
       * its credit held for the call and settled by how the route's handler ended (a client
       * gone before the answer gets it back, G4, as on the REST path). The gateway's refusals
       * (plan, rate, credits, calls in flight) are results; an unknown or revoked key fails: the
       * transport answers 401 (M2).
       */
      call: Effect.fn("McpTools.call", serviceSpan)(function*(name: string, args: JsonObject, keyHash: Uint8Array) {
        const tool = (yield* resolved).get(name)
        if (tool === undefined) return yield* Effect.dieMessage(`Unknown MCP tool ${name}`)
        const rate = yield* Ref.make(Option.none<RateWindow>())
        const exit = yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
          const admission = yield* charge.take(keyHash, { method: "MCP", route: name }).pipe(
            Effect.tapError((refused) => Ref.set(rate, refused.rate)),
            Effect.mapError((refused) => refused.error)
          )
          yield* Ref.set(rate, Option.some(admission.rate))
          return yield* run(tool, args).pipe(Effect.provideService(Caller, admission))
        })))
        if (Exit.isSuccess(exit)) return { result: answered(exit.value), rate: yield* Ref.get(rate) } satisfies ToolOutcome
        const failure = Cause.failureOption(exit.cause)
        // Interrupted (the client went away) or died: nothing to answer.
        if (Option.isNone(failure)) return yield* Effect.failCause(Cause.stripFailures(exit.cause))
        if (failure.value instanceof Unauthorized) return yield* Effect.fail(failure.value)
        return { result: refusal(encodeFailure(tool, failure.value).body), rate: yield* Ref.get(rate) } satisfies ToolOutcome
      })
    }
  }),
  dependencies: [RouteHandlers.Default, CallCharge.Default]
}) {}

