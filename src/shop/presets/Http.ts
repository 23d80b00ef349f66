import { Effect } from "effect"
import { ShopPresetsContract } from "./Api.js"
import { Caller } from "../../access/gateway/Api.js"
import { serveGroup } from "../../access/gateway/Http.js"
import { ShopPresets } from "./ShopPresets.js"

const page = <A extends object>(fields: A) => ({ success: true as const, ...fields })
const saved = <A>(data: A) => ({ success: true as const, data })
const done = () => ({ success: true as const })

/** `/api/v1/clipapp-shop/filter-presets*`, and their legacy session paths (S4): the caller's own presets. */
export const ShopPresetsLive = serveGroup(ShopPresetsContract, "shopPresets", (handlers) =>
  Effect.map(ShopPresets, (presets) =>
    handlers
      .handle("list", ({ urlParams }) => Effect.map(Effect.flatMap(Caller, (c) => presets.list(c.accountId, urlParams)), page))
      .handle("save", ({ payload }) => Effect.map(Effect.flatMap(Caller, (c) => presets.save(c.accountId, payload)), saved))
      .handle("update", ({ payload }) => Effect.map(Effect.flatMap(Caller, (c) => presets.update(c.accountId, payload)), saved))
      .handle("delete", ({ payload }) => Effect.map(Effect.flatMap(Caller, (c) => presets.remove(c.accountId, payload)), done))))
