import { Effect } from "effect"
import { serveGroup } from "../../access/gateway/Http.js"
import { mediaBase } from "../media/MediaBase.js"
import { StoreVisualSearchContract } from "./Api.js"
import { VisualSearch } from "./VisualSearch.js"

/** `POST /api/v1/store-explorer/visual-search` and its alias (S3): a JSON body or a multipart form. */
export const StoreVisualSearchLive = serveGroup(StoreVisualSearchContract, "storeVisualSearch", (handlers) =>
  Effect.map(VisualSearch, (visual) =>
    handlers.handle("search", ({ payload }) =>
      Effect.flatMap(mediaBase, (base) => Effect.map(visual.search(payload, base), (data) => ({ success: true as const, data }))))))
