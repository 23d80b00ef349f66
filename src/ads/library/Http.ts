import { Effect } from "effect"
import { AdLibraryContract, MagicAiContract } from "./Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import { AdSearch, type Page } from "./AdSearch.js"

const answer = <A>(page: Page<A>) => ({ success: true as const, ...page })

/** `/api/v1/adlibrary` (and its alias `/api/adlibrary`, S3). */
export const AdLibraryLive = serveGroup(AdLibraryContract, "adlibrary", (handlers) =>
  Effect.map(AdSearch, (ads) =>
    handlers.handle("social", ({ urlParams }) => Effect.map(ads.search("social", urlParams), answer))))

export const AdsLive = serveGroup(AdLibraryContract, "ads", (handlers) =>
  Effect.map(AdSearch, (ads) =>
    handlers
      .handle("pinboard", ({ urlParams }) => Effect.map(ads.search("pinboard", urlParams), answer))
      .handle("clipapp", ({ urlParams }) => Effect.map(ads.search("clipapp", urlParams), answer))
      .handle("search", ({ urlParams }) => Effect.map(ads.search("search", urlParams), answer))
      .handle("clipappAd", ({ path }) => Effect.map(ads.ad("clipapp", path.id), (data) => ({ success: true as const, data })))))

/** `/api/v1/magic-ai` (and its legacy session path `/api/magic-ai`, S4). */
export const MagicAiLive = serveGroup(MagicAiContract, "magicAi", (handlers) =>
  Effect.map(AdSearch, (ads) => handlers.handle("similar", ({ payload }) => Effect.map(ads.similar(payload), answer))))
