import { type HttpApiEndpoint, type HttpApiGroup, OpenApi } from "@effect/platform"
import { Record } from "effect"

/**
 * Route families reached at a second path (spec: Versioning; INTERPRETATIONS S3, S4). A mirror
 * is a group of its own, named `<group>@legacy` or `<group>@alias`, holding the same endpoints
 * (same names, schemas and errors) under another prefix; `serveGroup` serves every mirror
 * of a group with the group's own handlers, so mounting a family elsewhere is one line in the
 * contract: `.add(legacy(ShopApi, { from: shopPrefix, to: "/api/clipapp-shop" }))`. `alias` is
 * here; `legacy` (behind the browser session) is `access/session/Legacy.ts`.
 */

export interface Move {
  /** The prefix every endpoint of the group starts with... */
  readonly from: string
  /** ...and what it is replaced with. */
  readonly to: string
}

export const moved = <Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any>(
  endpoints: Record.ReadonlyRecord<string, Endpoints>,
  { from, to }: Move
): Record.ReadonlyRecord<string, Endpoints> =>
  Record.map(endpoints, (endpoint) => {
    // (`as unknown as`: `HttpApiEndpoint.Any` hides `path`, which every endpoint has.)
    const { path } = endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
    if (path !== from && !path.startsWith(`${from}/`)) {
      throw new Error(`Mirror: endpoint ${endpoint.name} (${path}) is not under ${from}`)
    }
    // Endpoints are immutable records: a copy with another path is the same endpoint elsewhere.
    return Object.assign(Object.create(Object.getPrototypeOf(endpoint)), endpoint, { path: to + path.slice(from.length) })
  })

/** The suffix a mirror group's name carries: `<group>@legacy`, `<group>@alias`, or with a label (`@legacy-product-detail`). */
export type MirrorKind = "legacy" | "alias"
export const mirrorName = <Id extends string, Kind extends string>(id: Id, kind: Kind) => `${id}@${kind}` as const
/** Whether a group name is a mirror of `group`. */
export const isMirrorOf = (name: string, group: string) => name.startsWith(`${group}@`)

/**
 * A mirror is left out of `/openapi.json` and `/docs`: integrators see each route once, at its
 * canonical path; the README's "Second paths" lists the mirrors (issue 27).
 */
export const undocumented = OpenApi.Exclude

/** S3: an un-versioned alias of a metered family: the same routes, metered exactly alike. */
export const alias = <Id extends string, Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any, E, R>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, E, R>,
  move: Move
): HttpApiGroup.HttpApiGroup<`${Id}@alias`, Endpoints, E, R> =>
  (Object.assign(Object.create(Object.getPrototypeOf(group)), group, {
    identifier: mirrorName(group.identifier, "alias"),
    endpoints: moved(group.endpoints, move)
  }) as HttpApiGroup.HttpApiGroup<`${Id}@alias`, Endpoints, E, R>).annotate(undocumented, true)
