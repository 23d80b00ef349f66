import type { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpServerRequest } from "@effect/platform"
import { Context, Effect, Option } from "effect"

/** What a route's handler takes: the parts HttpApiBuilder decoded, and the request. */
export interface RouteRequest {
  readonly path?: unknown
  readonly urlParams?: unknown
  readonly payload?: unknown
  readonly request: HttpServerRequest.HttpServerRequest
}

/** One endpoint's handler, as its route runs it. */
export interface RouteHandler {
  /** The contract part the group was built against: its failures are the route's too. */
  readonly api: HttpApi.HttpApi.AnyWithProps
  readonly group: HttpApiGroup.HttpApiGroup.AnyWithProps
  readonly endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
  /**
   * The handler wrapped as `serveGroup` wraps it (the text rule, the refund on its exit),
   * with its layer's services: the caller provides only `Caller` and the HTTP request.
   */
  readonly run: (request: RouteRequest) => Effect.Effect<unknown, unknown>
}

/** The handlers of a group as `HttpApiBuilder` holds them (`any`: its handler types are per endpoint). */
type BuiltHandlers = HttpApiBuilder.Handlers<any, any, any, any>

const keyOf = (group: string, endpoint: string) => `${group}/${endpoint}`

/**
 * Every route's handler by group and endpoint, for callers that are not HTTP routes: an MCP
 * tool runs the very handler its REST route runs (issue 21, "no second implementation").
 * `serveGroup` registers each group as its layer is built; lookups happen once the server
 * is up, when every group is built.
 */
export class RouteHandlers extends Effect.Service<RouteHandlers>()("adintel/RouteHandlers", {
  sync: () => {
    const byKey = new Map<string, RouteHandler>()
    const registered: Array<{ readonly group: string; readonly endpoint: string }> = []
    return {
      register: (api: HttpApi.HttpApi.Any, built: BuiltHandlers, context: Context.Context<never>): void => {
        for (const item of built.handlers) {
          registered.push({ group: built.group.identifier, endpoint: item.endpoint.name })
          // A raw handler reads the request itself: there is nothing decoded to give it.
          if (item.withFullRequest) continue
          // (`as`: `HttpApiEndpoint.Any` hides the schemas every endpoint has.)
          const endpoint = item.endpoint as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
          byKey.set(keyOf(built.group.identifier, endpoint.name), {
            // (`as`: `HttpApi.Any` hides the error schema every API has.)
            api: api as HttpApi.HttpApi.AnyWithProps,
            group: built.group as HttpApiGroup.HttpApiGroup.AnyWithProps,
            endpoint,
            // (`as`: a handler's requirements are typed per endpoint; the layer's context meets them.)
            run: (request) =>
              Effect.mapInputContext(item.handler(request) as Effect.Effect<unknown, unknown, never>, (input: Context.Context<never>) =>
                Context.merge(context, input))
          })
        }
      },
      find: (group: string, endpoint: string): Option.Option<RouteHandler> => Option.fromNullable(byKey.get(keyOf(group, endpoint))),
      /** Every handler registered so far, raw ones too, once per registration (test/routes.test.ts counts them). */
      registered: (): ReadonlyArray<{ readonly group: string; readonly endpoint: string }> => [...registered]
    }
  }
}) {}
