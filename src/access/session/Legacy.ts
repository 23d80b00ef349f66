import type { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { type GroupSteps, mirrorName, type Move, movedGroup, undocumented } from "../../kernel/Mirror.js"
import { SessionAuth, type SessionAuthFailure } from "./Api.js"

/**
 * S4: a metered family at its legacy dashboard path, under the browser session instead of the
 * key: the same handlers, no programmatic credit, quotas still apply, 401 without a session.
 * The mirror holds the family's endpoints (kernel/Mirror.ts), not its key middleware, errors
 * or product tag: a new group behind `SessionAuth`.
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
export function legacy(group: HttpApiGroup.HttpApiGroup.AnyWithProps, move: Move, label?: string): GroupSteps {
  const name = mirrorName(group.identifier, label === undefined ? "legacy" : `legacy-${label}`)
  return movedGroup(name, group.endpoints, move).annotate(undocumented, true).middleware(SessionAuth)
}
