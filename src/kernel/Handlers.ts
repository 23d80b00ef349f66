import type { HttpApiBuilder, HttpApiEndpoint } from "@effect/platform"

type Endpoint = HttpApiEndpoint.HttpApiEndpoint.Any

/** What `handle` adds to the handlers' requirements for the endpoints named `Names` (as `HttpApiBuilder` types it). */
type Added<Endpoints extends Endpoint, Names extends string, P, R1> = Exclude<
  HttpApiEndpoint.HttpApiEndpoint.ExcludeProvided<Endpoints, Names, R1 | HttpApiEndpoint.HttpApiEndpoint.ContextWithName<Endpoints, Names>>,
  P
>

/**
 * Handles a family of endpoints that one declaration generated (their names listed at run time)
 * with the handler `of` makes for each name, and types what is left as the group's other
 * endpoints: `HttpApiBuilder.group` (through `serveGroup`) then demands those at compile time,
 * and a family left out does not compile. One handler type serves the family: it takes any of
 * their requests and answers what any of them answers, so a family is a set of endpoints whose
 * answers share a type (an entity's explore pages, every count, a path's series).
 */
export const handleAll = <E, P, R, Endpoints extends Endpoint, const Names extends HttpApiEndpoint.HttpApiEndpoint.Name<Endpoints>, R1>(
  handlers: HttpApiBuilder.Handlers<E, P, R, Endpoints>,
  names: ReadonlyArray<Names>,
  of: (name: Names) => HttpApiEndpoint.HttpApiEndpoint.HandlerWithName<Endpoints, Names, E, R1>
): HttpApiBuilder.Handlers<E, P, R | Added<Endpoints, Names, P, R1>, HttpApiEndpoint.HttpApiEndpoint.ExcludeName<Endpoints, Names>> =>
  // Each `handle` types the endpoints left as fewer; the loop keeps the group's type, so the
  // result is narrowed once at the end: every name of the family was handled by then.
  names.reduce(
    (acc: HttpApiBuilder.Handlers<E, P, R | Added<Endpoints, Names, P, R1>, Endpoints>, name) => acc.handle(name, of(name)),
    handlers
  ) as HttpApiBuilder.Handlers<E, P, R | Added<Endpoints, Names, P, R1>, HttpApiEndpoint.HttpApiEndpoint.ExcludeName<Endpoints, Names>>
