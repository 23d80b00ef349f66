import { HttpApi, OpenApi } from "@effect/platform"
import { AdminApi } from "../access/accounts/Api.js"
import { AdLibraryApi, AdsApi, MagicAiApi } from "../ads/library/Api.js"
import { CatalogAdminApi } from "../ingest/Api.js"
import { CreditsApi } from "../access/credits/Api.js"
import { InternalServerErrorBody, InvalidRequestBody, NotFoundBody, PayloadTooLargeBody } from "../kernel/Errors.js"
import { withKeySchemes } from "../access/gateway/Api.js"
import { alias, legacy } from "../access/Mirror.js"
import { SessionApi, sessionCookieName } from "../access/session/Api.js"
import { ShopApi, shopPrefix } from "../shop/account/Api.js"
import { ShopDetailApi, ShopProductDetailApi } from "../shop/detail/Api.js"
import { ShopExploreApi } from "../shop/explore/Api.js"
import { ShopFavoritesApi } from "../shop/favorites/Api.js"
import { ShopPresetsApi } from "../shop/presets/Api.js"
import { ShopSearchApi } from "../shop/search/Api.js"
import { StoreAdsApi } from "../ads/storeAds/Api.js"
import { SystemApi } from "../system/Api.js"
import { AdTranscriptsApi, VideoTranscriptsApi } from "../transcripts/Api.js"

/**
 * HttpApi documents its own decode error on every 400; this service answers G11's envelope
 * instead (Server.ts), so the document keeps only that.
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
 * An empty API with the service's conventions: any route may answer 400 for bad input
 * (G10/G11), 413 for a body larger than it takes, and 500 when it fails unexpectedly, and 404 is what an unknown path gets; the
 * OpenAPI document lists the key schemes. `AdIntelApi` is built on it, and so is any API a
 * test or an extension composes from our groups.
 */
export const serviceApi = <const Id extends string>(id: Id) =>
  HttpApi.make(id)
    .addError(InvalidRequestBody)
    .addError(NotFoundBody)
    .addError(PayloadTooLargeBody)
    .addError(InternalServerErrorBody)
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
 * The whole contract: one value, no runtime. The server, `/openapi.json`, `/docs` and the
 * typed client (`HttpApiClient.make(AdIntelApi)`) all derive from it.
 */
export class AdIntelApi extends serviceApi("adintel")
  .add(SystemApi)
  .add(CreditsApi)
  .add(AdLibraryApi)
  .add(alias(AdLibraryApi, { from: "/api/v1/adlibrary", to: "/api/adlibrary" }))
  .add(AdsApi)
  .add(StoreAdsApi)
  .add(MagicAiApi)
  .add(legacy(MagicAiApi, { from: "/api/v1/magic-ai", to: "/api/magic-ai" }))
  .add(ShopApi)
  .add(legacy(ShopApi, { from: shopPrefix, to: "/api/clipapp-shop" }))
  .add(ShopExploreApi)
  .add(legacy(ShopExploreApi, { from: shopPrefix, to: "/api/clipapp-shop" }))
  .add(ShopSearchApi)
  .add(legacy(ShopSearchApi, { from: shopPrefix, to: "/api/clipapp-shop" }))
  .add(ShopDetailApi)
  .add(legacy(ShopDetailApi, { from: shopPrefix, to: "/api/clipapp-shop" }))
  .add(ShopProductDetailApi)
  .add(legacy(ShopProductDetailApi, { from: shopPrefix, to: "/api/clipapp-shop" }))
  .add(legacy(ShopProductDetailApi, { from: `${shopPrefix}/product-detail`, to: "/api/product-detail" }, "product-detail"))
  .add(ShopFavoritesApi)
  .add(legacy(ShopFavoritesApi, { from: shopPrefix, to: "/api/clipapp-shop" }))
  .add(ShopPresetsApi)
  .add(legacy(ShopPresetsApi, { from: shopPrefix, to: "/api/clipapp-shop" }))
  .add(VideoTranscriptsApi)
  .add(legacy(VideoTranscriptsApi, { from: shopPrefix, to: "/api/clipapp-shop" }))
  .add(AdTranscriptsApi)
  .add(SessionApi)
  .add(AdminApi)
  .add(CatalogAdminApi)
{}
