import { OpenApi } from "@effect/platform"
import { AdminContract } from "../access/accounts/Api.js"
import { CreditsContract } from "../access/credits/Api.js"
import { keySecurity, withKeySchemes } from "../access/gateway/Api.js"
import { OAuthContract } from "../access/oauth/Api.js"
import { secureSessionCookieName, SessionContract, sessionCookieName } from "../access/session/Api.js"
import { AdLibraryContract, MagicAiContract } from "../ads/library/Api.js"
import { AdExportContract } from "../ads/export/Api.js"
import { BrandInsightsContract } from "../ads/brandInsights/Api.js"
import { SavedAdsContract } from "../ads/savedAds/Api.js"
import { SavedSearchesContract } from "../ads/savedSearches/Api.js"
import { StoreAdsContract } from "../ads/storeAds/Api.js"
import { WorkspaceContract } from "../ads/workspace/Api.js"
import { LandersContract } from "../ads/landers/Api.js"
import { TrendsContract } from "../ads/trends/Api.js"
import { IngestContract } from "../ingest/Api.js"
import { apiId, contractPart } from "../kernel/Contract.js"
import { corpusProducts, productTags } from "../kernel/Products.js"
import { ShopAccountContract } from "../shop/account/Api.js"
import { ShopDetailContract } from "../shop/detail/Api.js"
import { ShopExploreContract } from "../shop/explore/Api.js"
import { ShopFavoritesContract } from "../shop/favorites/Api.js"
import { ShopPresetsContract } from "../shop/presets/Api.js"
import { ShopSearchContract } from "../shop/search/Api.js"
import { SystemContract } from "../system/Api.js"
import { StoreExplorerContract } from "../stores/explorer/Api.js"
import { StoreMediaContract } from "../stores/media/Api.js"
import { StoreTrackerContract } from "../stores/tracker/Api.js"
import { StoreVisualSearchContract } from "../stores/visual/Api.js"
import { TranscriptsContract } from "../transcripts/Api.js"
import { BrandTrackerContract } from "../ads/brands/Api.js"
import { DigestPrefsContract } from "../notifications/digest/Api.js"
import { NotificationsContract } from "../notifications/inbox/Api.js"
import { WebhooksContract } from "../notifications/webhooks/Api.js"

/** The OpenAPI document as a plain JSON value (`OpenApi.Transform` types it as `Record<string, any>`). */
type Document = Record<string, any>

const isDecodeError = (schema: any) => schema?.$ref === "#/components/schemas/HttpApiDecodeError"
/** A response's schema in the document: a reference to a named component, or an inline one. */
type SchemaRef = { readonly $ref?: string } | undefined

const isCorpusUnavailable = (schema: SchemaRef) => schema?.$ref === "#/components/schemas/CorpusUnavailable"

/** `responses[status]` without the schemas `drop` matches; gone when none is left. */
const without = (responses: Document, status: string, drop: (schema: SchemaRef) => boolean) => {
  const content = responses[status]?.content?.["application/json"]
  if (!content) return
  const kept = (content.schema?.anyOf ?? [content.schema]).filter((schema: SchemaRef) => !drop(schema))
  if (kept.length === 0) delete responses[status]
  else responses[status] = { ...responses[status], content: { "application/json": { ...content, schema: kept.length === 1 ? kept[0] : { anyOf: kept } } } }
}

/**
 * The answers an operation can give, as its shape says (docs/SPEC-NOTES.md, "The OpenAPI
 * document"): 400 needs input (parameters or a body) and names what is wrong (G11, not HttpApi's
 * own decode body); 413 needs a body; the 503 of a Citus worker that did not answer needs a
 * route that reads the corpus (`corpusProducts`). Every other status is declared where it can happen.
 */
const possibleAnswers = (operation: any) => {
  const responses = { ...operation.responses }
  const takesBody = operation.requestBody !== undefined
  const takesInput = takesBody || (operation.parameters ?? []).length > 0
  if (!takesBody) delete responses["413"]
  if (!takesInput) delete responses["400"]
  if (!(operation.tags ?? []).some((tag: string) => corpusProducts.has(tag))) without(responses, "503", isCorpusUnavailable)
  const content = responses["400"]?.content?.["application/json"]
  if (content) {
    const kept = (content.schema?.anyOf ?? [content.schema]).filter((schema: any) => !isDecodeError(schema))
    responses["400"] = {
      ...responses["400"],
      description: "Bad input: what is wrong, naming the field",
      content: { "application/json": { ...content, schema: kept.length === 1 ? kept[0] : { anyOf: kept } } }
    }
  }
  return { ...operation, responses }
}

/**
 * The generated document made what integrators' tools expect: operations with the answers they
 * can give, one tag per product (kernel/Products.ts) with its description, the key schemes as
 * the default security (so "Test Request" in /docs sends the key pasted there) and the licence.
 * `servers` is filled in when the document is served (OpenApiDocument.ts): it depends on where.
 */
const forIntegrators = (spec: Document): Document => {
  const paths = Object.fromEntries(Object.entries<Record<string, any>>(spec.paths ?? {}).map(([path, item]) => [
    path,
    Object.fromEntries(Object.entries(item).map(([method, operation]) => [method, possibleAnswers(operation)]))
  ]))
  const used = new Set(Object.values(paths).flatMap((item) => Object.values<any>(item).flatMap((operation) => operation.tags ?? [])))
  const { HttpApiDecodeError: _decode, Issue: _issue, PropertyKey: _key, ...schemas } = spec.components?.schemas ?? {}
  const withKeys = withKeySchemes({ ...spec, paths, components: { ...spec.components, schemas } })
  return {
    ...withKeys,
    info: { ...withKeys.info, license: license },
    security: keySecurity,
    tags: productTags(used),
    components: {
      ...withKeys.components,
      securitySchemes: {
        ...withKeys.components.securitySchemes,
        AdminToken: { type: "http", scheme: "bearer", description: "`ADMIN_TOKEN` (admin API only)" },
        SessionCookie: {
          type: "apiKey",
          in: "cookie",
          name: secureSessionCookieName,
          description: `Browser session from \`POST /login\` (session pages); \`${sessionCookieName}\`, without Secure, where the service is reached over plain http on this machine`
        }
      }
    }
  }
}

/** The licence the document states (OpenAPI `info.license`): the service's own, as `package.json` says. */
const license = { name: "Proprietary", identifier: "LicenseRef-AdIntel-Proprietary" }

/**
 * An empty API with the service's conventions: the failures of `contractPart` (any route may
 * answer 400 for bad input, G10/G11, 413 for a body larger than it takes, 500 when it fails
 * unexpectedly), and an OpenAPI document made for integrators' tools (`forIntegrators`).
 * `AdIntelApi` is built on it, and so is any API a test or an extension composes.
 */
export const serviceApi = <const Id extends string>(id: Id) =>
  contractPart(id)
    .annotateContext(
      OpenApi.annotations({
        title: "AdIntel API",
        version: "1",
        description:
          "Ad-Intelligence and Shop-Analytics API. Every metered call costs 1 credit and is rate limited per account.",
        transform: forIntegrators
      })
    )

/**
 * The whole contract, composed of the products' parts (each product's `Contract.ts`): one value,
 * no runtime. The server, `/openapi.json`, `/docs` and the
 * typed client (`HttpApiClient.make(AdIntelApi)`) all derive from it.
 */
export class AdIntelApi extends serviceApi(apiId)
  .addHttpApi(SystemContract)
  .addHttpApi(CreditsContract)
  .addHttpApi(AdLibraryContract)
  .addHttpApi(StoreAdsContract)
  .addHttpApi(BrandInsightsContract)
  .addHttpApi(MagicAiContract)
  .addHttpApi(ShopAccountContract)
  .addHttpApi(ShopExploreContract)
  .addHttpApi(ShopSearchContract)
  .addHttpApi(ShopDetailContract)
  .addHttpApi(ShopFavoritesContract)
  .addHttpApi(ShopPresetsContract)
  .addHttpApi(TranscriptsContract)
  .addHttpApi(SessionContract)
  .addHttpApi(OAuthContract)
  .addHttpApi(AdminContract)
  .addHttpApi(IngestContract)
  .addHttpApi(WorkspaceContract)
  .addHttpApi(SavedSearchesContract)
  .addHttpApi(SavedAdsContract)
  .addHttpApi(StoreTrackerContract)
  .addHttpApi(StoreExplorerContract)
  .addHttpApi(StoreVisualSearchContract)
  .addHttpApi(StoreMediaContract)
  .addHttpApi(BrandTrackerContract)
  .addHttpApi(DigestPrefsContract)
  .addHttpApi(NotificationsContract)
  .addHttpApi(WebhooksContract)
  .addHttpApi(LandersContract)
  .addHttpApi(TrendsContract)
  .addHttpApi(AdExportContract)
{}
