import type { Schema } from "effect"
import { Ad, Advertiser, Lander, Store } from "../ads/records/Ads.js"
import { ShopCategory, ShopCreator, ShopMetrics, ShopProduct, ShopShop, ShopVideo } from "../shop/records/Shop.js"
import { StoreMetrics, StoreProduct } from "../stores/records/Stores.js"
import { keysOf } from "../kernel/Guards.js"

/**
 * The entities an import accepts, by the name used in `/admin/ingest/{entity}`, in the order
 * their references need (load a world in this order).
 */
export const records = {
  stores: { schema: Store, description: "Hosted online stores; load before landers and ads that link to them" },
  landers: { schema: Lander, description: "Landing pages; load before ads that link to them" },
  advertisers: { schema: Advertiser, description: "Advertisers (pages) of the ad libraries; load before their ads" },
  ads: { schema: Ad, description: "Ads of the four libraries" },
  "shop-categories": {
    schema: ShopCategory,
    description: "Short-video shop categories, levels 1 to 3; a parent may be in the same file"
  },
  "shop-shops": { schema: ShopShop, description: "Short-video shops; load after their main categories" },
  "shop-creators": { schema: ShopCreator, description: "Short-video creators" },
  "shop-products": { schema: ShopProduct, description: "Short-video shop products; load after their shops and categories" },
  "shop-videos": { schema: ShopVideo, description: "Short videos with the products they feature; load after creators and products" },
  "shop-metrics": { schema: ShopMetrics, description: "Daily metric series of categories, shops, creators, products and videos" },
  // Hosted stores' products and their daily observations (issue 20).
  "store-products": { schema: StoreProduct, description: "Products of hosted stores; load after their stores" },
  "store-metrics": { schema: StoreMetrics, description: "Daily price and inventory of hosted stores' products; load after the products" }
  // (`any`: each entry has its own record type; the table only checks that it holds a schema.)
} satisfies Record<string, { readonly schema: Schema.Schema<any, any>; readonly description: string }>

export type EntityName = keyof typeof records
export const entityNames = keysOf(records)
