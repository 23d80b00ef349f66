import { HttpApi, HttpApiSchema } from "@effect/platform"
import { Option, Schema, type SchemaAST } from "effect"

/**
 * A body a route takes in two forms: JSON, or a multipart form (an uploaded file and text fields).
 * One declaration, a union of the two, that the contract, `/openapi.json` (both media types),
 * the typed client (the JSON form) and MCP (the JSON form) all read.
 *
 * The platform decodes a body with the whole union, whatever its content type: a refusal would
 * name a field of the first form even when the other was sent. `formOf` gives the form a content
 * type names, and the service's conventions (app/Server.ts) describe a refusal by that form alone,
 * so it names the field of the body that was sent (G11).
 */
export const twoForms = <Json extends Schema.Schema.Any, Form extends Schema.Schema.Any>(json: Json, form: Form) =>
  Schema.Union(json, HttpApiSchema.Multipart(form))

const isMultipart = (ast: SchemaAST.AST) => HttpApiSchema.getMultipart(ast) !== undefined

/**
 * The form of `payload` that decodes a body of `contentType` (`multipart/form-data`, else JSON);
 * none when the payload is not declared in two forms.
 */
export const formOf = (payload: { readonly ast: SchemaAST.AST }, contentType: string): Option.Option<Schema.Schema<unknown, unknown>> => {
  if (payload.ast._tag !== "Union" || !payload.ast.types.some(isMultipart)) return Option.none()
  const multipart = contentType.toLowerCase().includes("multipart/form-data")
  return Option.fromNullable(payload.ast.types.find((member) => isMultipart(member) === multipart)).pipe(Option.map(Schema.make))
}

/** A route pattern (`/api/v1/x/:id`) as a test of a request path. */
const matcherOf = (pattern: string) => {
  const source = pattern.split("/").map((segment) => segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
  const regex = new RegExp(`^${source.join("/")}$`)
  return (path: string) => regex.test(path)
}

/**
 * The routes of `api` whose body is declared in two forms, as a lookup by method and request
 * path: the payload, to describe a refusal by the form the request sent (`formOf`).
 */
export const twoFormRoutes = (api: HttpApi.HttpApi.Any) => {
  const routes: Array<{ readonly method: string; readonly matches: (path: string) => boolean; readonly payload: { readonly ast: SchemaAST.AST } }> = []
  // (`as`: `HttpApi.Any` hides the groups `reflect` walks; every API has them.)
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      if (Option.isSome(endpoint.payloadSchema) && Option.isSome(formOf(endpoint.payloadSchema.value, "multipart/form-data"))) {
        routes.push({ method: endpoint.method, matches: matcherOf(endpoint.path), payload: endpoint.payloadSchema.value })
      }
    }
  })
  return (method: string, path: string): Option.Option<{ readonly ast: SchemaAST.AST }> =>
    Option.fromNullable(routes.find((route) => route.method === method && route.matches(path))).pipe(Option.map((route) => route.payload))
}

/** What a JSON body of `payload` is decoded by: its JSON form, or the payload itself (MCP's arguments are JSON). */
export const jsonFormOf = <S extends { readonly ast: SchemaAST.AST }>(payload: S): S | Schema.Schema<unknown, unknown> =>
  Option.getOrElse(formOf(payload, "application/json"), (): S | Schema.Schema<unknown, unknown> => payload)
