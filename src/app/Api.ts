import { OpenApi } from "@effect/platform"
import { AdminContract } from "../access/accounts/Api.js"
import { CreditsContract } from "../access/credits/Api.js"
import { withKeySchemes } from "../access/gateway/Api.js"
import { OAuthContract } from "../access/oauth/Api.js"
import { SessionContract, sessionCookieName } from "../access/session/Api.js"
import { AdLibraryContract, MagicAiContract } from "../ads/library/Api.js"
import { BrandInsightsContract } from "../ads/brandInsights/Api.js"
import { SavedAdsContract } from "../ads/savedAds/Api.js"
import { StoreAdsContract } from "../ads/storeAds/Api.js"
import { WorkspaceContract } from "../ads/workspace/Api.js"
import { LandersContract } from "../ads/landers/Api.js"
import { TrendsContract } from "../ads/trends/Api.js"
import { IngestContract } from "../ingest/Api.js"
import { apiId, contractPart } from "../kernel/Contract.js"
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

/**
 * HttpApi documents its own decode error on every 400; this service answers G11's envelope
 * instead (app/Server.ts), so the document keeps only that. (`any`: `OpenApi.Transform` types
 * the document as `Record<string, any>`.)
 */
const withoutDecodeError = (spec: Record<string, any>): Record<string, any> => {
  const isDecodeError = (schema: any) => schema?.$ref === "#/components/schemas/HttpApiDecodeError"
  for (const operations of Object.values<Record<string, any>>(spec.paths ?? {})) {
    for (const operation of Object.values<any>(operations)) {
      const bad = operation?.responses?.["400"]
      const content = bad?.content?.["application/json"]
      if (!content) continue
      const kept = (content.schema?.anyOf ?? [content.schema]).filter((schema: any) => !isDecodeError(schema))
      content.schema = kept.length === 1 ? kept[0] : { anyOf: kept }
      bad.description = "Bad input: what is wrong, naming the field"
    }
  }
  const { HttpApiDecodeError: _decode, Issue: _issue, PropertyKey: _key, ...schemas } = spec.components?.schemas ?? {}
  return { ...spec, components: { ...spec.components, schemas } }
}

/**
 * An empty API with the service's conventions: the failures of `contractPart` (any route may
 * answer 400 for bad input, G10/G11, 413 for a body larger than it takes, 500 when it fails
 * unexpectedly; 404 is what an unknown path gets), and an OpenAPI document that lists the key
 * schemes. `AdIntelApi` is built on it, and so is any API a test or an extension composes.
 */
export const serviceApi = <const Id extends string>(id: Id) =>
  contractPart(id)
    .annotateContext(
      OpenApi.annotations({
        title: "AdIntel API",
        version: "1",
        description:
          "Ad-Intelligence and Shop-Analytics API. Every metered call costs 1 credit and is rate limited per account.",
        transform: (spec) => {
          const withKeys = withKeySchemes(withoutDecodeError(spec))
          return {
            ...withKeys,
            components: {
              ...withKeys.components,
              securitySchemes: {
                ...withKeys.components.securitySchemes,
                AdminToken: { type: "http", scheme: "bearer", description: "`ADMIN_TOKEN` (admin API only)" },
                SessionCookie: {
                  type: "apiKey",
                  in: "cookie",
                  name: sessionCookieName,
                  description: "Browser session from `POST /login` (session pages and legacy dashboard paths)"
                }
              }
            }
          }
        }
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
  .addHttpApi(SavedAdsContract)
  .addHttpApi(StoreTrackerContract)
  .addHttpApi(StoreExplorerContract)
  .addHttpApi(StoreVisualSearchContract)
  .addHttpApi(StoreMediaContract)
  .addHttpApi(BrandTrackerContract)
  .addHttpApi(DigestPrefsContract)
  .addHttpApi(NotificationsContract)
  .addHttpApi(LandersContract)
  .addHttpApi(TrendsContract)
{}
