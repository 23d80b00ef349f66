import { Effect } from "effect"
import * as Metered from "../../access/gateway/Http.js"
import { mediaBase } from "../media/MediaBase.js"
import { StoreVisualSearchContract } from "./Api.js"
import { VisualSearch } from "./VisualSearch.js"

/** `POST /api/v1/store-explorer/visual-search` and its alias (S3): the body's content type says which schema applies. */
export const StoreVisualSearchLive = Metered.group(StoreVisualSearchContract, "storeVisualSearch", (handlers) =>
  Effect.map(VisualSearch, (visual) =>
    handlers.handle("search", ({ payload, request }) =>
      Effect.flatMap(mediaBase, (base) =>
        Effect.map(
          visual.search(payload, (request.headers["content-type"] ?? "").toLowerCase().includes("multipart/form-data"), base),
          (data) => ({ success: true as const, data })
        )))))
