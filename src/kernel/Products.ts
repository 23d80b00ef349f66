import { OpenApi } from "@effect/platform"
import { keysOf } from "./Guards.js"

/**
 * The products the contract is grouped by in `/openapi.json` and `/docs` (issue 27): one OpenAPI
 * tag each, in this order, with what a newcomer needs to know to pick one. Every group of the
 * contract is filed under one of them (`inProduct`), so a route family never shows up as a
 * group of its own internal name.
 */
export const products = {
  "Ad libraries":
    "Search the four ad libraries (social network, image board, short video, search engine), read one ad, and find ads like a copy, an ad or an image (magic-ai). Searches page with a `scroll_token`.",
  "Brands":
    "Advertisers you track: follow a brand, list its ads, read its insight tabs (copies, formats, landers, countries, over any period), and choose how its new ads reach you (digests).",
  "Workspace":
    "Your research desk: folders and boards of saved brands and ads, notes on saved ads, and read-only share links to a board.",
  "Trends":
    "What is rising in new ads: topics, hooks and products over 7, 30 or 90 days against the window before, and one phrase's daily history.",
  "Landers":
    "The landing pages ads link to: explore them by text, page type and platform, sort them by ads or by how long they have run, and read one with its ads.",
  "Hosted stores":
    "Online stores behind the ads: explore them by revenue, traffic and ads, track them, find them by a product photo, and read their search-engine ads.",
  "Short-video shop":
    "Analytics of the short-video shop: categories, shops, creators, videos and products with period metrics, growth and rankings, detail pages, favorites and saved filters. Most calls also use one daily search.",
  "Transcripts":
    "Transcripts of short-video and ad videos, stored or generated on demand, and new ad scripts written from them (each uses one monthly script generation).",
  "Account and keys":
    "Your credits, the API-key page and its sign-in, the key's usage, and the notification inbox (brand digests, credit alerts, key changes).",
  "MCP and OAuth":
    "The MCP endpoint (`/mcp`) lets AI assistants call these routes as tools; OAuth 2.1 connects them. Here: disconnecting a connected assistant.",
  "Admin":
    "Operator routes: accounts, plans, credits, keys and data imports. They exist only when the service runs with `ADMIN_TOKEN`, which authenticates them.",
  "Service":
    "Liveness and readiness, for load balancers and orchestrators. No key needed."
} as const

export type Product = keyof typeof products

/**
 * The products whose routes read the ad corpus, which a Citus cluster spreads over its workers
 * (issue 45): only their operations list the 503 `CorpusUnavailable` in the OpenAPI document.
 * The others read the coordinator alone.
 */
export const corpusProducts: ReadonlySet<string> = new Set<Product>(["Ad libraries", "Brands", "Workspace", "Trends", "Landers", "Hosted stores", "Transcripts"])

/** Files a group under `product`: its operations are listed with that product's tag. */
export const inProduct = (product: Product) => OpenApi.annotations({ title: product, description: products[product] })

/**
 * The document's tags: each product that has operations once, in the order above, then any other
 * group's own name (an API a test or an extension composes may file groups elsewhere).
 */
export const productTags = (used: ReadonlySet<string>): Array<{ readonly name: string; readonly description?: string }> => [
  ...keysOf(products).filter((name) => used.has(name)).map((name) => ({ name, description: products[name] })),
  ...[...used].filter((name) => !(name in products)).map((name) => ({ name }))
]
