import { type HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Record } from "effect"
import { SessionAuth, type SessionAuthFailure } from "./session/Api.js"

/**
 * Route families reached at a second path (spec: Versioning; INTERPRETATIONS S3, S4). A mirror
 * is a group of its own, named `<group>@legacy` or `<group>@alias`, holding the same endpoints
 * (same names, schemas and errors) under another prefix; `Metered.group` serves every mirror
 * of a group with the group's own handlers, so mounting a family elsewhere is one line in the
 * contract: `.add(legacy(ShopApi, { from: shopPrefix, to: "/api/clipapp-shop" }))`.
 */

export interface Move {
  /** The prefix every endpoint of the group starts with... */
  readonly from: string
  /** ...and what it is replaced with. */
  readonly to: string
}

const moved = <Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any>(
  endpoints: Record.ReadonlyRecord<string, Endpoints>,
  { from, to }: Move,
  annotate: (endpoint: Endpoints) => Endpoints = (endpoint) => endpoint
): Record.ReadonlyRecord<string, Endpoints> =>
  Record.map(endpoints, (endpoint) => {
    const { path } = endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
    if (path !== from && !path.startsWith(`${from}/`)) {
      throw new Error(`Mirror: endpoint ${endpoint.name} (${path}) is not under ${from}`)
    }
    // Endpoints are immutable records: a copy with another path is the same endpoint elsewhere.
    const copy = Object.assign(Object.create(Object.getPrototypeOf(endpoint)), endpoint, { path: to + path.slice(from.length) })
    return annotate(copy)
  })

/** The suffix a mirror group's name carries: `<group>@legacy`, `<group>@alias`, or with a label (`@legacy-product-detail`). */
export type MirrorKind = "legacy" | "alias"
export const mirrorName = <Id extends string, Kind extends string>(id: Id, kind: Kind) => `${id}@${kind}` as const
/** Whether a group name is a mirror of `group`. */
export const isMirrorOf = (name: string, group: string) => name.startsWith(`${group}@`)

const sessionSecurity = [{ SessionCookie: [] }]

/**
 * S4: a metered family at its legacy dashboard path, under the browser session instead of the
 * key: the same handlers, no programmatic credit, quotas still apply, 401 without a session.
 */
export function legacy<Id extends string, Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any, E, R>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, E, R>,
  move: Move
): HttpApiGroup.HttpApiGroup<`${Id}@legacy`, Endpoints, SessionAuthFailure>
/** A family with a second legacy prefix: `label` tells its mirror group from the first one. */
export function legacy<Id extends string, Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any, E, R, const Label extends string>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, E, R>,
  move: Move,
  label: Label
): HttpApiGroup.HttpApiGroup<`${Id}@legacy-${Label}`, Endpoints, SessionAuthFailure>
export function legacy<Id extends string, Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any, E, R>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, E, R>,
  move: Move,
  label?: string
): HttpApiGroup.HttpApiGroup<string, Endpoints, SessionAuthFailure> {
  const endpoints = moved(group.endpoints, move, (endpoint) =>
    (endpoint as any).annotate(OpenApi.Transform, (operation: { readonly [key: string]: unknown }) => ({ ...operation, security: sessionSecurity })))
  const base = HttpApiGroup.make(mirrorName(group.identifier, label === undefined ? "legacy" : `legacy-${label}`)).annotate(
    OpenApi.Description,
    `Legacy dashboard paths under ${move.to}: the ${move.from} routes for a signed-in browser session; no API credit is charged, daily quotas apply.`
  )
  return Object.assign(Object.create(Object.getPrototypeOf(base)), base, { endpoints }).middleware(SessionAuth)
}

/** S3: an un-versioned alias of a metered family: the same routes, metered exactly alike. */
export const alias = <Id extends string, Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any, E, R>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, E, R>,
  move: Move
): HttpApiGroup.HttpApiGroup<`${Id}@alias`, Endpoints, E, R> =>
  Object.assign(Object.create(Object.getPrototypeOf(group)), group, {
    identifier: mirrorName(group.identifier, "alias"),
    endpoints: moved(group.endpoints, move)
  })
