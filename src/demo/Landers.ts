import type { Niche } from "./Copy.js"
import { Prng } from "./Prng.js"

/**
 * The demo landers' pages (issue 20): their type, title, headline and visible text written from
 * the niche's words, and where and in which languages they are served. Drawn from a generator
 * of their own (`lander-page`), so the rest of the world draws what it drew before.
 */

export const landerTypes = [["product", 5], ["listicle", 2], ["advertorial", 2], ["quiz", 1], ["vsl", 1], ["presell", 1], ["collection", 1], ["home", 1]] as const
export type LanderType = (typeof landerTypes)[number][0]

/** The path of a lander of this type on its domain. */
export const landerPath = (type: LanderType, productSlug: string, nicheSlug: string) =>
  ({
    product: `products/${productSlug}`,
    listicle: `listicle/${productSlug}`,
    advertorial: `advertorial/${productSlug}`,
    quiz: `quiz/${productSlug}`,
    vsl: `watch/${productSlug}`,
    presell: `pages/${productSlug}-review`,
    collection: `collections/${nicheSlug}`,
    home: ""
  })[type]

/** Landers served off the brand's own store: editorial pages. */
export const offsite = (type: LanderType) => type === "advertorial" || type === "listicle" || type === "presell"

/** Languages of the markets a lander may be written for. */
const languageOf: Record<string, string> = { DE: "de", FR: "fr", ES: "es", IT: "it", NL: "nl", BR: "pt", MX: "es" }
const markets = ["US", "GB", "CA", "AU", "DE", "FR", "IE", "NZ", "NL", "ES"]

export interface LanderPage {
  readonly title: string
  readonly headline: string
  readonly text: string
  readonly countries: ReadonlyArray<string>
  readonly languages: ReadonlyArray<string>
}

/** The page of the `k`-th lander of a brand. */
export const landerPage = (
  seed: number,
  brand: { readonly b: number; readonly name: string; readonly niche: Niche; readonly country: string },
  k: number,
  type: LanderType,
  product: string
): LanderPage => {
  const rng = Prng.for(seed, "lander-page", brand.b, k)
  const { benefits, label, pains, personas } = brand.niche
  const benefit = rng.pick(benefits)
  const pain = rng.pick(pains)
  const persona = rng.pick(personas)
  const title = {
    product: `${product} | ${brand.name}`,
    listicle: `7 reasons everyone is switching to the ${product}`,
    advertorial: `Why ${personas[0]} can't stop talking about this ${product}`,
    quiz: `Which ${product} is right for you? Take the 60-second quiz`,
    vsl: `Watch: how the ${product} gives you ${benefit}`,
    presell: `I tried the ${product} for 30 days: an honest review`,
    collection: `Shop all ${label} | ${brand.name}`,
    home: `${brand.name}: ${benefits[0]}`
  }[type]
  const headline = rng.pick([
    `${benefit[0]!.toUpperCase()}${benefit.slice(1)}`,
    `Say goodbye to ${pain}`,
    `The ${product} ${persona} swear by`,
    `Finally: ${benefit}`
  ])
  const text = [
    `Tired of ${pain}? Meet the ${product} from ${brand.name}.`,
    `Made for ${persona}, it delivers ${benefit}.`,
    rng.pick([
      "Over 10,000 five-star reviews.",
      "Backed by a 60-day money-back guarantee.",
      "Free shipping on every order today.",
      "Dermatologist tested and cruelty free.",
      "Limited stock: order before it sells out again."
    ]),
    type === "quiz" ? "Answer 5 quick questions to find your match." : type === "vsl" ? "Watch the full video before it comes down." : "Order now and save 20%."
  ].join(" ")
  const countries = [...new Set([brand.country, ...rng.sample(markets, rng.int(0, 3))])].sort()
  const languages = [...new Set(["en", ...countries.flatMap((c) => (languageOf[c] === undefined || !rng.chance(0.3) ? [] : [languageOf[c]!]))])]
  return { title, headline, text, countries, languages }
}
