import type { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { HttpApiSchema } from "@effect/platform"
import { Rpc } from "@effect/rpc"
import { Context, Option, Schema, SchemaAST } from "effect"
import type { Simplify } from "effect/Types"
import { CreditsExhausted, PlanRequired, RateLimited, TooManyInFlight, Unauthorized } from "../access/gateway/Api.js"
import { CorpusUnavailable, InternalServerError, InvalidRequest } from "../kernel/Errors.js"

/**
 * An RPC procedure is a projection of a route of the contract (STYLE: One declaration, several
 * projections; H4): its payload is the route's input (path, query and body parameters as one
 * object), its success the route's answer, its errors the route's typed failures and the
 * gateway's. The route's own handler serves it (RpcLive.ts), as it serves the MCP tool.
 */

/**
 * What the gateway refuses a call with, and what every route may answer (G1, G11, G4; a Citus
 * worker that did not answer, issue 45).
 */
export const GatewayFailure = Schema.Union(
  Unauthorized,
  PlanRequired,
  RateLimited,
  CreditsExhausted,
  TooManyInFlight,
  InvalidRequest,
  InternalServerError,
  CorpusUnavailable
)
export type GatewayFailure = typeof GatewayFailure.Type

// (`any`: a group's other type parameters, whatever they are; only its endpoints are read.)
type EndpointsOf<G> = G extends HttpApiGroup.HttpApiGroup<any, infer Endpoints, any, any, any> ? Endpoints : never
type EndpointOf<G, E extends string> = HttpApiEndpoint.HttpApiEndpoint.WithName<EndpointsOf<G>, E>

/** An input part's fields, none when the route has no such part. */
type Part<A> = [A] extends [never] ? {} : A

/** The route's input as one object: its path, query and body parameters. */
export type InputOf<Ep extends HttpApiEndpoint.HttpApiEndpoint.Any> = Simplify<
  & Part<HttpApiEndpoint.HttpApiEndpoint.PathParsed<Ep>>
  & Part<HttpApiEndpoint.HttpApiEndpoint.UrlParams<Ep>>
  & Part<HttpApiEndpoint.HttpApiEndpoint.Payload<Ep>>
>

/** The procedure built from endpoint `E` of group `G`, named `Tag`. */
export type ProcedureOf<Tag extends string, G, E extends string> = Rpc.Rpc<
  Tag,
  Schema.Schema<InputOf<EndpointOf<G, E>>, unknown>,
  Schema.Schema<HttpApiEndpoint.HttpApiEndpoint.Success<EndpointOf<G, E>>, unknown>,
  Schema.Schema<HttpApiEndpoint.HttpApiEndpoint.Error<EndpointOf<G, E>> | GatewayFailure, unknown>
>

/** Which parts of a route's input a procedure's payload holds, by field. */
export interface InputParts {
  readonly path: ReadonlyArray<string>
  readonly urlParams: ReadonlyArray<string>
  readonly payload: ReadonlyArray<string>
  /** The one part that takes the whole payload, when the route has only one. */
  readonly only: Option.Option<"path" | "urlParams" | "payload">
}

const fieldsOf = (schema: Option.Option<Schema.Schema.Any>): ReadonlyArray<string> =>
  Option.match(schema, {
    onNone: () => [],
    onSome: (schema) => SchemaAST.getPropertySignatures(schema.ast).map((signature) => String(signature.name))
  })

/** The route's parts, as `Procedure.route` splits a payload back into them. */
export const partsOf = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps): InputParts => {
  const present = (["path", "urlParams", "payload"] as const).filter((part) => Option.isSome(schemaOf(endpoint, part)))
  return {
    path: fieldsOf(endpoint.pathSchema),
    urlParams: fieldsOf(endpoint.urlParamsSchema),
    payload: fieldsOf(endpoint.payloadSchema),
    only: present.length === 1 ? Option.some(present[0]!) : Option.none()
  }
}

const schemaOf = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps, part: "path" | "urlParams" | "payload") =>
  part === "path" ? endpoint.pathSchema : part === "urlParams" ? endpoint.urlParamsSchema : endpoint.payloadSchema

/** The input schema: the one part as the route declares it, or its parts' fields together. */
const inputSchemaOf = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps): Schema.Schema.Any => {
  const parts = (["path", "urlParams", "payload"] as const).flatMap((part) => Option.toArray(schemaOf(endpoint, part)))
  if (parts.length === 0) return Schema.Struct({})
  // (`as`: `Schema.extend` types its arguments as structs; the contract's parts are.)
  return parts.reduce((all, part): Schema.Schema.Any => Schema.extend(all as Schema.Struct<{}>, part as Schema.Struct<{}>))
}

/**
 * The typed failure classes of a route: each error of the contract is the class wrapped in its
 * wire envelope (kernel/Envelope.ts); over RPC the class travels as itself, `_tag` and all, so
 * the client gets it back typed.
 */
const failuresOf = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps): ReadonlyArray<Schema.Schema.Any> => {
  const schemas = new Set<Schema.Schema.Any>()
  HttpApiSchema.deunionize(schemas, endpoint.errorSchema)
  return [...schemas].flatMap((schema) =>
    SchemaAST.isTransformation(schema.ast) && SchemaAST.isTransformation(schema.ast.to) ? [Schema.make(schema.ast.to)] : [])
}

/** A group's endpoint by name (checked at compile time by `procedure`). */
const endpointIn = (group: HttpApiGroup.HttpApiGroup.Any, name: string): HttpApiEndpoint.HttpApiEndpoint.AnyWithProps => {
  // (`as`: `HttpApiGroup.Any` hides the endpoints every group has.)
  const endpoint = (group as HttpApiGroup.HttpApiGroup.AnyWithProps).endpoints[name]
  if (endpoint === undefined) throw new Error(`No endpoint ${name} in ${group.identifier}`)
  return endpoint
}

/** What the server needs to serve a procedure: the route it projects. */
export interface ProcedureRoute {
  readonly group: string
  readonly endpoint: string
  readonly parts: InputParts
}

/** The route a procedure projects, as an annotation of the procedure (RpcLive.ts serves it with that route's handler). */
export class ProjectedRoute extends Context.Tag("adintel/rpc/ProjectedRoute")<ProjectedRoute, ProcedureRoute>() {}

/**
 * The procedure `tag` projecting endpoint `endpoint` of `group` (both names checked at compile
 * time): one line per procedure in Procedures.ts.
 */
export const procedure = <
  const Tag extends string,
  G extends HttpApiGroup.HttpApiGroup.Any,
  const E extends HttpApiEndpoint.HttpApiEndpoint.Name<EndpointsOf<G>>
>(tag: Tag, group: G, name: E): ProcedureOf<Tag, G, E> => {
  const endpoint = endpointIn(group, name)
  const rpc = Rpc.make(tag, {
    payload: inputSchemaOf(endpoint),
    success: endpoint.successSchema,
    error: Schema.Union(GatewayFailure, ...failuresOf(endpoint))
  }).annotate(ProjectedRoute, { group: group.identifier, endpoint: name, parts: partsOf(endpoint) })
  // (`as`: the schemas are read from the endpoint at run time; their types are the endpoint's.)
  return rpc as ProcedureOf<Tag, G, E>
}
