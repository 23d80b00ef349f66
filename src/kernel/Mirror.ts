import { HttpApiEndpoint, HttpApiGroup, type HttpApiMiddleware, HttpApiSchema, OpenApi } from "@effect/platform"
import { type Context, Record, type Schema } from "effect"

/**
 * Route families reached at a second path (spec: Versioning; INTERPRETATIONS S3, S4). A mirror
 * is a group of its own, named `<group>@legacy` or `<group>@alias`, holding the same endpoints
 * (same names, schemas and errors) under another prefix; `serveGroup` serves every mirror
 * of a group with the group's own handlers, so mounting a family elsewhere is one line in the
 * contract: `.add(legacy(ShopApi, { from: shopPrefix, to: "/api/clipapp-shop" }))`. `alias` is
 * here; `legacy` (behind the browser session) is `access/session/Legacy.ts`.
 *
 * A mirror is built only with the platform's public constructors (`HttpApiEndpoint.make`,
 * `HttpApiGroup.make` and their `set*`/`add*`/`annotate*`/`middleware` methods) from the
 * public fields of the original, never by copying the library's objects: a platform release
 * that lays its objects out differently still builds the same mirror, and one that changes
 * those methods fails to compile here.
 */

export interface Move {
  /** The prefix every endpoint of the group starts with... */
  readonly from: string
  /** ...and what it is replaced with. */
  readonly to: HttpApiEndpoint.PathSegment
}

/**
 * The builder methods a copy of an endpoint goes through, as `HttpApiEndpoint` declares them,
 * without the types they track (`any`: the combinators' own signatures state the mirror's
 * types, which are the original's).
 */
interface EndpointSteps extends HttpApiEndpoint.HttpApiEndpoint.Any {
  setPath(schema: Schema.Schema<any, any, any>): EndpointSteps
  setUrlParams(schema: Schema.Schema<any, any, any>): EndpointSteps
  setPayload(schema: Schema.Schema<any, any, any>): EndpointSteps
  setHeaders(schema: Schema.Schema<any, any, any>): EndpointSteps
  addSuccess(schema: Schema.Schema<any, any, any>): EndpointSteps
  addError(schema: Schema.Schema<any, any, any>): EndpointSteps
  annotateContext(context: Context.Context<never>): EndpointSteps
  middleware<I extends HttpApiMiddleware.HttpApiMiddleware.AnyId, S>(middleware: Context.Tag<I, S>): EndpointSteps
}

/** The same for a group, as `HttpApiGroup` declares them. */
export interface GroupSteps extends HttpApiGroup.HttpApiGroup.Any {
  add(endpoint: HttpApiEndpoint.HttpApiEndpoint.Any): GroupSteps
  addError(schema: Schema.Schema<any, any, any>): GroupSteps
  annotateContext(context: Context.Context<never>): GroupSteps
  annotate<I, S>(tag: Context.Tag<I, S>, value: S): GroupSteps
  middleware<I extends HttpApiMiddleware.HttpApiMiddleware.AnyId, S>(middleware: Context.Tag<I, S>): GroupSteps
}

type Endpoint = HttpApiEndpoint.HttpApiEndpoint.AnyWithProps

/** Where `path` lands when `from` is replaced with `to`; a path outside `from` is a mistake in the contract. */
const movedPath = (name: string, path: string, { from, to }: Move): HttpApiEndpoint.PathSegment => {
  if (path !== from && !path.startsWith(`${from}/`)) {
    throw new Error(`Mirror: endpoint ${name} (${path}) is not under ${from}`)
  }
  return `${to}${path.slice(from.length)}`
}

/**
 * The same endpoint at another path: name, method, schemas, annotations and middleware carried
 * over through the public builder. The error schema is added whole (the builder unifies a
 * union's members, so a middleware's failures, already in it, are not repeated).
 */
const relocated = (endpoint: Endpoint, path: HttpApiEndpoint.PathSegment): EndpointSteps => {
  let copy: EndpointSteps = HttpApiEndpoint.make(endpoint.method)(endpoint.name, path)
  if (endpoint.pathSchema._tag === "Some") copy = copy.setPath(endpoint.pathSchema.value)
  if (endpoint.urlParamsSchema._tag === "Some") copy = copy.setUrlParams(endpoint.urlParamsSchema.value)
  if (endpoint.payloadSchema._tag === "Some") copy = copy.setPayload(endpoint.payloadSchema.value)
  if (endpoint.headersSchema._tag === "Some") copy = copy.setHeaders(endpoint.headersSchema.value)
  if (endpoint.successSchema !== HttpApiSchema.NoContent) copy = copy.addSuccess(endpoint.successSchema)
  copy = copy.addError(endpoint.errorSchema).annotateContext(endpoint.annotations)
  for (const middleware of endpoint.middlewares) copy = copy.middleware(middleware)
  return copy
}

/** A group named `name` holding `endpoints`, each at its moved path, in their order. */
export const movedGroup = (
  name: string,
  endpoints: Record.ReadonlyRecord<string, Endpoint>,
  move: Move,
  options?: { readonly topLevel?: boolean }
): GroupSteps =>
  Record.values(endpoints).reduce<GroupSteps>(
    (mirror, endpoint) => mirror.add(relocated(endpoint, movedPath(endpoint.name, endpoint.path, move))),
    HttpApiGroup.make(name, options)
  )

/** The suffix a mirror group's name carries: `<group>@legacy`, `<group>@alias`, or with a label (`@legacy-product-detail`). */
export type MirrorKind = "legacy" | "alias"
export const mirrorName = <Id extends string, Kind extends string>(id: Id, kind: Kind) => `${id}@${kind}` as const
/** Whether a group name is a mirror's (of any group). */
export const isMirror = (name: string) => name.includes("@")
/** Whether a group name is a mirror of `group`. */
export const isMirrorOf = (name: string, group: string) => name.startsWith(`${group}@`)

/**
 * A mirror is left out of `/openapi.json` and `/docs`: integrators see each route once, at its
 * canonical path; the README's "Second paths" lists the mirrors (issue 27).
 */
export const undocumented = OpenApi.Exclude

/**
 * S3: an un-versioned alias of a metered family: the same routes, metered exactly alike (the
 * group's errors, annotations and middleware carried over), named `<group>@alias`.
 */
export function alias<Id extends string, Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any, E, R>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, E, R>,
  move: Move
): HttpApiGroup.HttpApiGroup<`${Id}@alias`, Endpoints, E, R>
export function alias(group: HttpApiGroup.HttpApiGroup.AnyWithProps, move: Move): GroupSteps {
  let mirror = movedGroup(mirrorName(group.identifier, "alias"), group.endpoints, move, { topLevel: group.topLevel })
    .addError(group.errorSchema)
    .annotateContext(group.annotations)
  for (const middleware of group.middlewares) mirror = mirror.middleware(middleware)
  return mirror.annotate(undocumented, true)
}
