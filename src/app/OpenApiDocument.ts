import { HttpApi, HttpApiBuilder, HttpApiScalar, HttpServerRequest, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { keySchemes } from "../access/gateway/Api.js"
import { baseUrl } from "../platform/Forwarded.js"
import { AppConfig } from "../platform/AppConfig.js"

/**
 * `/openapi.json`: the contract's generated document (app/Api.ts makes it what integrators'
 * tools expect) with `servers` filled in where it is served from: `PUBLIC_URL`, else the
 * request's own origin (the proxy's under `TRUST_PROXY`). Generators and "Try it" buttons then
 * call this service, wherever it runs.
 */
export const OpenApiDocumentLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const { api } = yield* HttpApi.Api
    const config = yield* AppConfig
    const document = OpenApi.fromApi(api)
    yield* router.get(
      "/openapi.json",
      Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
        HttpServerResponse.unsafeJson({ ...document, servers: [{ url: baseUrl(request, config), description: "This service" }] }))
    )
  })
)

/** The first key scheme (`X-API-Key`): what the docs page's "Test Request" sends once a key is pasted. */
const preferredScheme = Object.keys(keySchemes)[0]!

/**
 * `/docs`: the Scalar reference over the same document, offline (the page carries Scalar
 * itself). The key header is the scheme it selects, so "Test Request" works once a key is
 * pasted; requests go to `PUBLIC_URL`, else to the page's own origin.
 */
export const DocsPageLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) => {
  // Scalar's own options beyond the platform's `ScalarConfig` type: it passes the object to Scalar as is.
  const scalar: HttpApiScalar.ScalarConfig & Record<string, unknown> = {
    authentication: { preferredSecurityScheme: preferredScheme },
    ...Option.match(config.publicUrl, { onNone: () => ({}), onSome: (url) => ({ servers: [{ url: url.origin }] }) })
  }
  return HttpApiScalar.layer({ path: "/docs", scalar })
}))
