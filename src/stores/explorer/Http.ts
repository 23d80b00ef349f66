import { Effect } from "effect"
import { serveGroup } from "../../access/gateway/Http.js"
import { mediaBase } from "../media/MediaBase.js"
import { StoreExplorerContract } from "./Api.js"
import { StoreExplorer } from "./StoreExplorer.js"

/** `POST /api/v1/store-explorer` and its alias `/api/store-explorer` (S3). */
export const StoreExplorerLive = serveGroup(StoreExplorerContract, "storeExplorer", (handlers) =>
  Effect.map(StoreExplorer, (explorer) =>
    handlers.handle("explore", ({ payload }) => Effect.flatMap(mediaBase, (base) => explorer.explore(payload, base)))))
