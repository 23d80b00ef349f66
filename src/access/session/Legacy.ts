import { type HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { mirrorName, type Move, moved } from "../../kernel/Mirror.js"
import { SessionAuth, type SessionAuthFailure } from "./Api.js"

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
  // (`as any`: `HttpApiEndpoint.Any` does not expose `annotate`, every endpoint has it.)
  const endpoints = moved(group.endpoints, move, (endpoint) =>
    (endpoint as any).annotate(OpenApi.Transform, (operation: { readonly [key: string]: unknown }) => ({ ...operation, security: sessionSecurity })))
  const base = HttpApiGroup.make(mirrorName(group.identifier, label === undefined ? "legacy" : `legacy-${label}`)).annotate(
    OpenApi.Description,
    `Legacy dashboard paths under ${move.to}: the ${move.from} routes for a signed-in browser session; no API credit is charged, daily quotas apply.`
  )
  return Object.assign(Object.create(Object.getPrototypeOf(base)), base, { endpoints }).middleware(SessionAuth)
}
