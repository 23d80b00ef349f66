import { leaves, type Niche, slug } from "./Copy.js"
import { Prng } from "./Prng.js"

/**
 * The hosted stores' side of the demo world (issue 20): each store's theme, apps, language and
 * social links, its products with images this service draws itself (served under `/media/`),
 * and daily observations of price and inventory that sales are estimated from. A fifth of the
 * stores hide their stock: their sales are unknown. Deterministic like the rest of the world.
 */

/** What the generator needs of a brand that has a store. */
export interface StoreBrand {
  readonly b: number
  readonly niche: Niche
  readonly name: string
  readonly domain: string
  readonly currency: string
}

export interface StoreWorldOptions {
  readonly seed: number
  /** Midnight (UTC) of the world's today, in milliseconds. */
  readonly now: number
  /** Days of observations, ending yesterday. */
  readonly days: number
  /** Products drawn per store (at most the store's product count). */
  readonly productsPerStore: number
  readonly fetchedAt: string
  readonly brands: ReadonlyArray<StoreBrand>
}

/** A product image to draw and index: what the demo loader renders from its name. */
export interface StoreImage {
  readonly store_external_id: string
  readonly external_id: string
  readonly image: string
}

const DAY = 86_400_000
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const round2 = (n: number) => Math.round(n * 100) / 100

const themes = ["dawn", "sense", "refresh", "craft", "impulse", "prestige", "motion", "debut", "impact", "studio"]
const apps = [
  "klaviyo", "judge-me", "loox", "yotpo", "recharge", "gorgias", "privy", "afterpay", "klarna", "zipify-pages",
  "reconvert", "vitals", "pagefly", "smile-io", "okendo", "omnisend", "tidio", "bold-upsell", "postscript", "attentive"
]
const languageOf = (currency: string) => (currency === "EUR" ? "de" : "en")

/** A media name: the drawing's seed (8 hex digits) and the words it shows. */
export const imageName = (drawing: number, title: string) =>
  `/media/stores/${(drawing >>> 0).toString(16).padStart(8, "0")}-${slug(title).slice(0, 60) || "product"}.png`

export const storeWorld = (options: StoreWorldOptions) => {
  const { brands, days, fetchedAt, now, productsPerStore, seed } = options
  const provenance = { fetched_at: fetchedAt, source: "demo", method: "generated" as const }
  const storeId = (brand: StoreBrand) => `store-b${brand.b}`

  /** The fields the store record carries beyond the ad tests' (theme, apps, language, social links). */
  const extras = (brand: StoreBrand) => {
    const rng = Prng.for(seed, "store-extras", brand.b)
    const handle = slug(brand.name).replace(/-/g, "")
    return {
      theme: rng.pick(themes),
      apps: rng.sample(apps, rng.int(2, 7)).sort(),
      language: languageOf(brand.currency),
      social_links: rng.sample(["instagram", "facebook", "tiktok", "pinterest", "youtube"] as const, rng.int(1, 4)).map((network) => ({
        network,
        url: `https://${network}.example/${handle}`
      }))
    }
  }

  /** Whether a store hides its stock: its sales are unknown. */
  const hidesStock = (brand: StoreBrand) => Prng.for(seed, "store-stock", brand.b).chance(0.2)

  const productOf = (brand: StoreBrand, k: number) => {
    const rng = Prng.for(seed, "store-product", brand.b, k)
    const leaf = rng.pick(leaves(brand.niche))
    const noun = rng.pick(leaf.products)
    const title = `${rng.pick(["", "The ", "New ", "Signature ", "Everyday "])}${noun}${rng.pick(["", " Set", " - Travel Size", " Pro", ""])}`
    const price = round2(rng.int(brand.niche.price[0], brand.niche.price[1]) - 0.01)
    const drawing = Prng.for(seed, "store-drawing", brand.b, k).int(0, 2 ** 31 - 1)
    // Most products launched long ago; a few in the last fortnight ("new products").
    const published = now - (rng.chance(0.15) ? rng.int(1, 14) : rng.int(15, 700)) * DAY
    return { rng, leaf, title, price, drawing, published, k }
  }

  function* products() {
    for (const brand of brands) {
      for (let k = 0; k < productsPerStore; k++) {
        const p = productOf(brand, k)
        yield {
          store_external_id: storeId(brand),
          external_id: `p${k}`,
          title: p.title,
          price: p.price,
          compare_at_price: p.rng.chance(0.3) ? round2(p.price * 1.25) : null,
          currency: brand.currency,
          images: [imageName(p.drawing, p.title)],
          url: `https://${brand.domain}/products/${slug(p.title)}`,
          product_type: p.leaf.level3,
          published_on: isoDay(p.published),
          ...provenance
        }
      }
    }
  }

  /**
   * Daily observations: stock falls by each day's sales (trend, weekly rhythm, noise) and is
   * restocked when low; a product is observed from the day it was published.
   */
  function* metrics() {
    const weekly = [1.15, 0.9, 0.92, 0.95, 1.0, 1.1, 1.25]
    for (const brand of brands) {
      const hidden = hidesStock(brand)
      for (let k = 0; k < productsPerStore; k++) {
        const p = productOf(brand, k)
        const rng = Prng.for(seed, "store-series", brand.b, k)
        const base = rng.logNormal(6, 1.0)
        const trend = rng.normal() * 0.015
        let stock = rng.int(80, 600)
        const series = []
        for (let d = 0; d < days; d++) {
          const day = now - (days - d) * DAY
          if (day < p.published) continue
          const sold = Math.max(0, Math.round(base * Math.exp(trend * d) * weekly[new Date(day).getUTCDay()]! * (1 + 0.3 * rng.normal())))
          stock = stock - sold < 10 ? stock - Math.min(stock, sold) + rng.int(200, 600) : stock - sold
          const discounted = rng.chance(0.05)
          series.push({ day: isoDay(day), price: discounted ? round2(p.price * 0.8) : p.price, inventory: hidden ? null : stock })
        }
        if (series.length > 0) yield { store_external_id: storeId(brand), external_id: `p${k}`, series }
      }
    }
  }

  /** Every product's main image, to draw and index. */
  function* images(): Generator<StoreImage> {
    for (const brand of brands) {
      for (let k = 0; k < productsPerStore; k++) {
        const p = productOf(brand, k)
        yield { store_external_id: storeId(brand), external_id: `p${k}`, image: imageName(p.drawing, p.title) }
      }
    }
  }

  return {
    extras,
    products,
    metrics,
    images,
    counts: { "store-products": brands.length * productsPerStore, "store-metrics": brands.length * productsPerStore }
  }
}
