import type { EntityName } from "../ingest/Records.js"
import { adCopy, brandName, leaves as leavesOf, type Niche, niches, slug, videoCaption } from "./Copy.js"
import { flagshipBrand } from "./FlagshipBrand.js"
import { landerPage, landerPath, landerTypes, offsite } from "./Landers.js"
import { Prng } from "./Prng.js"
import { storeWorld } from "./StoreWorld.js"

/**
 * A deterministic demo world: the same seed, day and scale give the same records, byte for
 * byte. Every record is computed from its own index (`Prng.for(seed, kind, index)`), so a
 * million ads stream out without the world being held in memory. Records are plain JSON, as
 * an import file would carry them, and are loaded through the same ingestion path.
 */

export interface Scale {
  readonly brands: number
  readonly ads: number
  readonly shops: number
  readonly creators: number
  readonly products: number
  readonly videos: number
  /** Days of daily metrics, ending yesterday. */
  readonly days: number
}

export const scales = {
  small: { brands: 12, ads: 300, shops: 12, creators: 20, products: 80, videos: 120, days: 14 },
  demo: { brands: 400, ads: 30_000, shops: 300, creators: 800, products: 6_000, videos: 9_000, days: 90 },
  bench: { brands: 12_000, ads: 1_000_000, shops: 5_000, creators: 20_000, products: 200_000, videos: 150_000, days: 90 },
  // Ten million ads on one machine (issue 29, docs/DATA.md): the ad corpus grows tenfold, brands
  // with it; the short-video shop stays at the bench scale (its own benchmarks measure it).
  "10m": { brands: 120_000, ads: 10_000_000, shops: 5_000, creators: 20_000, products: 200_000, videos: 150_000, days: 90 }
} satisfies Record<string, Scale>
export type ScaleName = keyof typeof scales

export interface WorldOptions {
  readonly seed: number
  /** The world's "today" (YYYY-MM-DD): the newest metric day is the day before. */
  readonly today: string
  readonly scale: Scale
}

const DAY = 86_400_000

// Where ads run: a few big markets and a long tail, so that a country filter can be selective.
const markets = ["US", "GB", "CA", "AU", "DE", "FR", "IE", "NZ", "NL", "SE", "ES", "IT", "MX", "BR", "JP", "SG", "AE", "ZA", "PL", "BE", "AT", "CH", "DK", "NO", "FI", "PT", "IN", "PH", "MY", "KR"]
const targetCountries = (rng: Prng) => {
  const chosen = new Set<string>()
  const count = rng.weighted([[1, 5], [2, 3], [3, 2], [5, 1]] as const)
  for (let tries = 0; chosen.size < count && tries < 50; tries++) {
    chosen.add(markets[Math.min(markets.length - 1, Math.max(0, Math.floor(rng.logNormal(1.5, 1.1)) - 1))]!)
  }
  return [...chosen].sort()
}
const libraries = ["social", "pinboard", "clipapp", "search"] as const
type Library = (typeof libraries)[number]

const provenance = (fetchedAt: string) => ({ fetched_at: fetchedAt, source: "demo", method: "generated" as const })
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const isoTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z")
const round2 = (n: number) => Math.round(n * 100) / 100
const currencies: Readonly<Record<string, string>> = { GB: "GBP", DE: "EUR", CA: "CAD", AU: "AUD" }
const currencyOfCountry = (country: string) => currencies[country] ?? "USD"
/** A reported range around a value: the bucket the library would show. */
const bucket = (value: number) => {
  const steps = [0, 1_000, 5_000, 10_000, 50_000, 100_000, 500_000, 1_000_000, 5_000_000]
  const i = steps.findIndex((s) => s > value)
  return i === -1 ? { lower: steps[steps.length - 1]!, upper: null } : { lower: steps[i - 1] ?? 0, upper: steps[i]! - 1 }
}

const leafCache = new Map(niches.map((niche) => [niche, leavesOf(niche)]))
const leaves = (niche: Niche) => leafCache.get(niche)!

export const world = ({ scale, seed, today }: WorldOptions) => {
  const now = Date.parse(`${today}T00:00:00Z`)
  const fetchedAt = isoTime(now - 3 * 3_600_000)
  const regionOf = (index: number) => (index % 5 === 0 ? "GB" : "US")
  const currencyOf = (region: string) => (region === "GB" ? "GBP" : "USD")

  // Brands: a niche, a name, a domain, and the libraries they advertise in.
  const brand = (b: number) => {
    const niche = niches[b % niches.length]!
    const rng = Prng.for(seed, "brand", b)
    const name = brandName(niche, Math.floor(b / niches.length))
    const domain = `${slug(name)}.example`
    const platforms = libraries.filter((library) =>
      library === "social" || rng.chance({ pinboard: 0.4, clipapp: 0.6, search: 0.5 }[library])
    )
    return {
      b,
      niche,
      name,
      domain,
      platforms,
      country: rng.weighted([["US", 6], ["GB", 2], ["CA", 1], ["AU", 1], ["DE", 1]] as const),
      hasStore: rng.chance(0.75),
      landers: rng.int(1, 3)
    }
  }
  const brands = Array.from({ length: scale.brands }, (_, b) => brand(b))
  // Hosted stores' products, observations and drawn images (StoreWorld.ts).
  const storeSide = storeWorld({
    seed, now, days: scale.days, fetchedAt,
    productsPerStore: scale.brands <= 50 ? 8 : scale.brands <= 1_000 ? 4 : 3,
    brands: brands.filter((br) => br.hasStore).map((br) => ({ ...br, currency: currencyOfCountry(br.country) }))
  })
  // A few brands run most ads, as in real libraries.
  const brandOfAd = (rng: Prng) => brands[Math.floor(scale.brands * rng.next() ** 2.2)]!

  const productOf = (niche: Niche, rng: Prng) => rng.pick(rng.pick(leaves(niche)).products)

  function* advertisers() {
    for (const br of brands) {
      for (const platform of br.platforms) {
        const rng = Prng.for(seed, "advertiser", br.b, platform)
        yield {
          platform,
          external_id: `${platform}-b${br.b}`,
          name: platform === "clipapp" ? `${br.name} Official` : br.name,
          domain: br.domain,
          verified: rng.chance(0.35),
          followers: Math.round(rng.logNormal(20_000, 1.6)),
          country: br.country,
          niche: br.niche.key,
          ...provenance(fetchedAt)
        }
      }
    }
  }

  function* stores() {
    for (const br of brands) {
      if (!br.hasStore) continue
      const rng = Prng.for(seed, "store", br.b)
      const base = rng.logNormal(40_000, 1.2)
      const growth = rng.normal() * 0.08
      const storeCurrency = currencyOfCountry(br.country)
      yield {
        external_id: `store-b${br.b}`,
        domain: br.domain,
        name: br.name,
        platform: rng.weighted([["shopify", 8], ["woocommerce", 1], ["bigcommerce", 1]] as const),
        country: br.country,
        currency: storeCurrency,
        product_count: rng.int(6, 400),
        created_on: isoDay(now - rng.int(200, 3_000) * DAY),
        monthly_visits: Array.from({ length: 12 }, (_, m) => {
          const month = new Date(now)
          month.setUTCMonth(month.getUTCMonth() - 12 + m)
          return {
            month: month.toISOString().slice(0, 7),
            visits: Math.max(0, Math.round(base * Math.exp(growth * m) * (1 + 0.15 * rng.normal())))
          }
        }),
        active_ads: rng.int(0, 60),
        best_sellers: rng.sample(leaves(br.niche).flatMap((l) => l.products), 4).map((title) => ({
          title,
          price: round2(rng.int(br.niche.price[0], br.niche.price[1]) - 0.01),
          currency: storeCurrency,
          image_url: `https://cdn.adintel.example/stores/${br.b}/${slug(title)}.jpg`,
          url: `https://${br.domain}/products/${slug(title)}`
        })),
        ...storeSide.extras({ ...br, currency: storeCurrency }),
        ...provenance(fetchedAt)
      }
    }
  }

  const landerOf = (br: ReturnType<typeof brand>, k: number) => {
    const rng = Prng.for(seed, "lander", br.b, k)
    const product = productOf(br.niche, rng)
    const pageType = rng.weighted(landerTypes)
    const domain = offsite(pageType) ? `${slug(br.niche.key)}-insider-${br.b}.example` : br.domain
    return { rng, product, pageType, domain, url: `https://${domain}/${landerPath(pageType, slug(product), slug(br.niche.key))}` }
  }

  function* landers() {
    for (const br of brands) {
      for (let k = 0; k < br.landers; k++) {
        const { domain, pageType, product, rng, url } = landerOf(br, k)
        const { title, ...page } = landerPage(seed, br, k, pageType, product)
        const firstSeen = now - rng.int(20, 400) * DAY
        yield {
          external_id: `lander-b${br.b}-${k}`,
          url,
          final_url: rng.chance(0.2) ? `${url}?variant=${rng.int(1, 3)}` : null,
          domain,
          title,
          page_type: pageType,
          ...page,
          niche: br.niche.key,
          screenshot_url: `https://cdn.adintel.example/landers/${br.b}-${k}.png`,
          platform: br.hasStore ? "shopify" : rng.pick(["wordpress", "webflow", "clickfunnels"]),
          offer_price: pageType === "home" ? null : round2(rng.int(br.niche.price[0], br.niche.price[1]) - 0.01),
          currency: currencyOfCountry(br.country),
          linked_ads: rng.int(1, 40),
          first_seen: isoTime(firstSeen),
          last_seen: isoTime(Math.min(now - DAY, firstSeen + rng.int(5, 300) * DAY)),
          store_external_id: br.hasStore ? `store-b${br.b}` : null,
          ...provenance(fetchedAt)
        }
      }
    }
  }

  /** The creative an ad shares with its variants: the root ad of its run of variants. */
  const creativeRoot = (i: number) => {
    let root = i
    for (let steps = 0; steps < 5 && root > 0 && Prng.for(seed, "variant", root).chance(0.35); steps++) root--
    return root
  }

  const ad = (i: number) => {
    const root = creativeRoot(i)
    const base = Prng.for(seed, "creative", root)
    const br = brandOfAd(base)
    const library: Library = base.pick(br.platforms)
    const product = productOf(br.niche, base)
    const copy = adCopy(br.niche, br.name, product, base)
    const rng = Prng.for(seed, "ad", i)
    const hasVariants = root !== i || (i + 1 < scale.ads && creativeRoot(i + 1) === i)
    const firstSeen = now - rng.int(1, 180) * DAY - rng.int(0, 86_399) * 1000
    const running = Math.min(Math.round(rng.logNormal(18, 1.0)), Math.floor((now - firstSeen) / DAY))
    const lastSeen = Math.max(firstSeen, Math.min(now - rng.int(0, 3_600) * 1000, firstSeen + running * DAY))
    const active = now - lastSeen < 2 * DAY
    const landerIndex = base.int(0, br.landers - 1)
    const lander = landerOf(br, landerIndex)
    const reach = rng.logNormal(30_000, 1.5)
    const format = library === "search"
      ? "text"
      : rng.weighted([["video", library === "clipapp" ? 10 : 4], ["image", library === "pinboard" ? 6 : 3], ["carousel", 2], ["dpa", 1]] as const)
    const media = format === "text" ? [] : Array.from({ length: format === "carousel" ? rng.int(2, 5) : 1 }, (_, m) =>
      format === "video"
        ? {
          type: "video" as const,
          url: `https://cdn.adintel.example/media/${library}/${i}-${m}.mp4`,
          thumbnail_url: `https://cdn.adintel.example/media/${library}/${i}-${m}.jpg`,
          duration_seconds: rng.int(6, 60),
          width: library === "clipapp" ? 1080 : 1920,
          height: library === "clipapp" ? 1920 : 1080
        }
        : {
          type: "image" as const,
          url: `https://cdn.adintel.example/media/${library}/${i}-${m}.jpg`,
          width: 1080,
          height: library === "pinboard" ? 1620 : 1080
        })
    const views = library === "clipapp" ? Math.round(reach * rng.logNormal(1.4, 0.5)) : null
    const likes = Math.round(reach * rng.logNormal(0.012, 0.8))
    return {
      library,
      external_id: `${library}-${i}`,
      advertiser_external_id: `${library}-b${br.b}`,
      status: active ? "active" : "inactive",
      first_seen: isoTime(firstSeen),
      last_seen: isoTime(lastSeen),
      start_date: isoDay(firstSeen),
      end_date: active ? null : isoDay(lastSeen),
      days_running: Math.max(0, Math.round((lastSeen - firstSeen) / DAY)),
      format,
      media,
      body: library === "search" ? null : copy.body,
      headline: library === "search" ? `${br.name} - ${product}`.slice(0, 90) : copy.headline,
      description: copy.description,
      cta: library === "search" ? null : copy.cta,
      landing: { url: lander.url, final_url: null, domain: lander.domain },
      lander_external_id: `lander-b${br.b}-${landerIndex}`,
      store_external_id: br.hasStore ? `store-b${br.b}` : null,
      publisher_platforms: {
        social: rng.sample(["feed", "stories", "reels", "marketplace", "audience_network"], rng.int(1, 4)),
        pinboard: ["home_feed", "search"],
        clipapp: ["for_you"],
        search: ["search", "shopping"]
      }[library],
      countries: targetCountries(rng),
      languages: ["en"],
      impressions: library === "search" ? null : bucket(reach * 1.8),
      spend: library === "social" && rng.chance(0.4) ? { ...bucket(reach / 120), currency: "USD" } : null,
      reach: library === "social" ? bucket(reach) : null,
      engagement: library === "search"
        ? null
        : {
          likes,
          comments: Math.round(likes * rng.logNormal(0.08, 0.6)),
          shares: library === "pinboard" ? null : Math.round(likes * rng.logNormal(0.05, 0.7)),
          views
        },
      niche: br.niche.key,
      ai_tags: library === "search" ? null : { hook: copy.hook, angle: copy.angle, persona: copy.persona },
      variant_group: hasVariants ? `vg-${root}` : null,
      search: library === "search"
        ? {
          advertiser_verified: base.chance(0.7),
          display_url: `${br.domain}/${slug(product)}`,
          regions: rng.sample(["US", "GB", "CA", "AU"], rng.int(1, 3)).map((region) => ({
            region,
            impressions: rng.chance(0.8) ? bucket(reach * rng.next()) : null
          }))
        }
        : null,
      ...provenance(fetchedAt)
    }
  }

  function* ads() {
    for (let i = 0; i < scale.ads; i++) yield ad(i)
  }

  /**
   * The creative of every ad with an image or a video thumbnail, as a seed to draw it from:
   * variants draw their root's creative with a little noise (near-duplicates), other ads
   * their own.
   */
  function* creatives() {
    for (let i = 0; i < scale.ads; i++) {
      const { external_id, library, media } = ad(i)
      const first = media[0]
      if (first === undefined) continue
      const root = creativeRoot(i)
      yield {
        library,
        external_id,
        // the URL a hasher would have fetched it from
        media_url: first.type === "image" ? first.url : first.thumbnail_url,
        seed: Prng.for(seed, "drawing", root).int(0, 2 ** 31 - 1),
        noise: root === i ? 0 : 4 + (i % 4)
      }
    }
  }

  // The short-video shop world, per region.
  const regions = ["US", "GB"] as const
  const categoryIds = (region: string, niche: Niche) => {
    const level1 = `cat-${region}-${niche.key}`
    return { level1, leaves: leaves(niche).map(({ level2, level3 }) => ({ level2: `${level1}-${slug(level2)}`, level3: `${level1}-${slug(level2)}-${slug(level3)}` })) }
  }

  function* categories() {
    for (const region of regions) {
      for (const niche of niches) {
        const ids = categoryIds(region, niche)
        yield { region, external_id: ids.level1, name: niche.label, level: 1, ...provenance(fetchedAt) }
        for (const level2 of Object.keys(niche.tree)) {
          const id2 = `${ids.level1}-${slug(level2)}`
          yield { region, external_id: id2, name: level2, level: 2, parent_external_id: ids.level1, ...provenance(fetchedAt) }
          for (const level3 of Object.keys(niche.tree[level2]!)) {
            yield { region, external_id: `${id2}-${slug(level3)}`, name: level3, level: 3, parent_external_id: id2, ...provenance(fetchedAt) }
          }
        }
      }
    }
  }

  const shopNiche = (s: number) => niches[s % niches.length]!
  function* shops() {
    for (let s = 0; s < scale.shops; s++) {
      const rng = Prng.for(seed, "shop", s)
      const niche = shopNiche(s)
      const region = regionOf(s)
      yield {
        region,
        external_id: `shop-${s}`,
        name: `${brandName(niche, Math.floor(s / niches.length) + 7)} ${rng.pick(["Official", "Store", "Shop", "Outlet", "Boutique"])}`,
        shop_type: rng.weighted([["brand", 4], ["retailer", 3], ["cross-border", 3]] as const),
        rating: round2(Math.min(5, 3.6 + rng.next() * 1.4)),
        followers: Math.round(rng.logNormal(15_000, 1.5)),
        main_category_external_id: categoryIds(region, niche).level1,
        ...provenance(fetchedAt)
      }
    }
  }

  const creatorNiches = (c: number) => {
    const rng = Prng.for(seed, "creator-niches", c)
    return rng.sample(niches, rng.int(1, 2))
  }
  function* creators() {
    for (let c = 0; c < scale.creators; c++) {
      const rng = Prng.for(seed, "creator", c)
      const ownNiches = creatorNiches(c)
      const region = regionOf(c)
      const word = rng.pick(ownNiches[0]!.handles)
      yield {
        region,
        external_id: `creator-${c}`,
        handle: `@${rng.pick(["its", "the", "just", "", "hey"])}${rng.pick(["jess", "mike", "sam", "ava", "leo", "mia", "noah", "zoe"])}${word}${rng.chance(0.5) ? rng.int(1, 99) : ""}`,
        nickname: `${rng.pick(["Jess", "Mike", "Sam", "Ava", "Leo", "Mia", "Noah", "Zoe"])} | ${word}`,
        followers: Math.round(rng.logNormal(35_000, 1.8)),
        engagement_rate: round2(rng.logNormal(0.05, 0.5) * 100) / 100,
        category_external_ids: ownNiches.map((n) => categoryIds(region, n).level1),
        ...provenance(fetchedAt)
      }
    }
  }

  const product = (p: number) => {
    const rng = Prng.for(seed, "product", p)
    const s = rng.int(0, scale.shops - 1)
    const niche = shopNiche(s)
    const region = regionOf(s)
    const leafIndex = rng.int(0, leaves(niche).length - 1)
    const leaf = leaves(niche)[leafIndex]!
    const noun = rng.pick(leaf.products)
    const price = rng.int(niche.price[0], niche.price[1]) - 0.01
    return {
      p,
      s,
      rng,
      region,
      niche,
      noun,
      leafId: categoryIds(region, niche).leaves[leafIndex]!,
      priceMin: round2(price * (rng.chance(0.4) ? 0.8 : 1)),
      priceMax: round2(price),
      launched: now - rng.int(10, 720) * DAY
    }
  }
  function* products() {
    for (let p = 0; p < scale.products; p++) {
      const it = product(p)
      const { rng } = it
      yield {
        region: it.region,
        external_id: `product-${p}`,
        title: `${rng.pick(["", "Viral ", "Best-Selling ", "New ", "Premium ", "2-Pack "])}${it.noun}${rng.pick(["", " - Limited Edition", ` (${rng.pick(["Black", "Rose", "Sage", "Cream", "Blue"])})`, " Bundle"])}`,
        shop_external_id: `shop-${it.s}`,
        category_external_id: it.leafId.level3,
        price_min: it.priceMin,
        price_max: it.priceMax,
        currency: currencyOf(it.region),
        commission_rate: round2(rng.int(5, 25) / 100),
        rating: round2(Math.min(5, 3.8 + rng.next() * 1.2)),
        reviews: Math.round(rng.logNormal(300, 1.4)),
        launched_on: isoDay(it.launched),
        images: [1, 2, 3].slice(0, rng.int(1, 3)).map((n) => `https://cdn.adintel.example/products/${p}-${n}.jpg`),
        ...provenance(fetchedAt)
      }
    }
  }

  const video = (v: number) => {
    const rng = Prng.for(seed, "video", v)
    const c = rng.int(0, scale.creators - 1)
    const region = regionOf(c)
    // Products of the creator's region (shops and creators share the region rule).
    const featured: Array<number> = []
    const wanted = rng.int(1, 3)
    for (let tries = 0; featured.length < wanted && tries < 20; tries++) {
      const p = rng.int(0, scale.products - 1)
      if (product(p).region === region && !featured.includes(p)) featured.push(p)
    }
    return { rng, c, region, featured, published: now - rng.int(1, Math.min(90, scale.days + 30)) * DAY - rng.int(0, 86_399) * 1000 }
  }
  function* videos() {
    for (let v = 0; v < scale.videos; v++) {
      const { c, featured, published, region, rng } = video(v)
      const first = featured[0] === undefined ? undefined : product(featured[0])
      yield {
        region,
        external_id: `video-${v}`,
        creator_external_id: `creator-${c}`,
        description: first ? videoCaption(first.niche, first.noun, rng) : "get ready with me",
        duration_seconds: rng.int(7, 180),
        published_at: isoTime(published),
        is_ad: rng.chance(0.15),
        playback_url: `https://video.adintel.example/play/${v}.mp4`,
        cdn_url: `https://cdn.adintel.example/video/${v}.mp4`,
        product_external_ids: featured.map((p) => `product-${p}`),
        ...provenance(fetchedAt)
      }
    }
  }

  // Daily metrics: trend, weekly seasonality, launch dates and a few outlier days.
  const days = Array.from({ length: scale.days }, (_, d) => now - (scale.days - d) * DAY)
  const weekly = (ms: number) => [1.15, 0.9, 0.92, 0.95, 1.0, 1.1, 1.25][new Date(ms).getUTCDay()]!

  const productSeries = (p: number) => {
    const it = product(p)
    const rng = Prng.for(seed, "product-series", p)
    const base = rng.logNormal(12, 1.3)
    const trend = rng.normal() * 0.012
    const price = (it.priceMin + it.priceMax) / 2
    return days.filter((day) => day >= it.launched).map((day, d) => {
      const spike = rng.chance(0.02) ? rng.int(3, 12) : 1
      const units = Math.max(0, Math.round(base * Math.exp(trend * d) * weekly(day) * spike * (1 + 0.25 * rng.normal())))
      return { day: isoDay(day), units, gmv: round2(units * price), views: Math.round(units * rng.logNormal(90, 0.4)) }
    })
  }

  function* metrics() {
    const shopTotals = new Map<number, Map<string, { units: number; gmv: number }>>()
    const categoryTotals = new Map<string, Map<string, { units: number; gmv: number; products: number }>>()
    const add = <K>(totals: Map<K, Map<string, { units: number; gmv: number; products?: number }>>, key: K, day: string, units: number, gmv: number) => {
      let series = totals.get(key)
      if (!series) totals.set(key, (series = new Map()))
      const point = series.get(day) ?? { units: 0, gmv: 0, products: 0 }
      series.set(day, { units: point.units + units, gmv: point.gmv + gmv, products: (point.products ?? 0) + 1 })
    }
    for (let p = 0; p < scale.products; p++) {
      const it = product(p)
      const series = productSeries(p)
      for (const point of series) {
        add(shopTotals, it.s, point.day, point.units, point.gmv)
        for (const id of [it.leafId.level3, it.leafId.level2, categoryIds(it.region, it.niche).level1]) {
          add(categoryTotals, `${it.region}|${id}`, point.day, point.units, point.gmv)
        }
      }
      if (series.length > 0) {
        yield { region: it.region, subject: "product", external_id: `product-${p}`, currency: currencyOf(it.region), series }
      }
    }
    for (const [s, series] of shopTotals) {
      const rng = Prng.for(seed, "shop-series", s)
      let followers = Math.round(rng.logNormal(15_000, 1.5))
      yield {
        region: regionOf(s),
        subject: "shop",
        external_id: `shop-${s}`,
        currency: currencyOf(regionOf(s)),
        series: [...series].sort(([a], [b]) => a.localeCompare(b)).map(([day, t]) => {
          followers += Math.max(0, Math.round(t.units * rng.logNormal(0.4, 0.5)))
          return { day, units: t.units, gmv: round2(t.gmv), followers }
        })
      }
    }
    for (const [key, series] of categoryTotals) {
      const [region = "", id = ""] = key.split("|")
      yield {
        region,
        subject: "category",
        external_id: id,
        currency: currencyOf(region),
        series: [...series].sort(([a], [b]) => a.localeCompare(b)).map(([day, t]) => ({
          day,
          units: t.units,
          gmv: round2(t.gmv),
          products: t.products
        }))
      }
    }
    for (let c = 0; c < scale.creators; c++) {
      const rng = Prng.for(seed, "creator-series", c)
      let followers = Math.round(rng.logNormal(35_000, 1.8))
      const dailyViews = rng.logNormal(40_000, 1.2)
      const growth = rng.normal() * 0.01
      yield {
        region: regionOf(c),
        subject: "creator",
        external_id: `creator-${c}`,
        currency: currencyOf(regionOf(c)),
        series: days.map((day, d) => {
          const viral = rng.chance(0.03) ? rng.int(4, 20) : 1
          const views = Math.max(0, Math.round(dailyViews * Math.exp(growth * d) * weekly(day) * viral * (1 + 0.3 * rng.normal())))
          // Unfollows can outnumber follows on a quiet day, never below zero followers.
          followers = Math.max(0, followers + Math.max(-50, Math.round(views * rng.logNormal(0.002, 0.6) - rng.int(0, 20))))
          return { day: isoDay(day), followers, views, likes: Math.round(views * rng.logNormal(0.06, 0.4)), gmv: round2(views * rng.logNormal(0.02, 1)) }
        })
      }
    }
    for (let v = 0; v < scale.videos; v++) {
      const { published, region } = video(v)
      const rng = Prng.for(seed, "video-series", v)
      const peak = rng.logNormal(8_000, 1.6) * (rng.chance(0.03) ? rng.int(10, 60) : 1)
      const series = days.filter((day) => day >= published - DAY && day < published + 30 * DAY).map((day) => {
        const age = Math.max(0, (day - published) / DAY)
        const views = Math.max(0, Math.round(peak * Math.exp(-age / 4) * (1 + 0.2 * rng.normal())))
        const likes = Math.round(views * rng.logNormal(0.07, 0.4))
        return { day: isoDay(day), views, likes, comments: Math.round(likes * 0.03), shares: Math.round(likes * 0.02) }
      })
      if (series.length > 0) yield { region, subject: "video", external_id: `video-${v}`, series }
    }
  }

  const advertiserCount = brands.reduce((n, br) => n + br.platforms.length, 0)
  const storeCount = brands.filter((br) => br.hasStore).length
  const landerCount = brands.reduce((n, br) => n + br.landers, 0)
  const categoryCount = regions.length * niches.reduce((n, niche) => n + 1 + leaves(niche).length + Object.keys(niche.tree).length, 0)

  // The brand insight tabs' flagship brand, after the world's own records (FlagshipBrand.ts).
  const flagship = flagshipBrand({ seed, now, fetchedAt, scale })
  const records: Record<EntityName, () => Iterable<unknown>> = {
    stores,
    landers,
    advertisers: function*() { yield* advertisers(); yield* flagship.advertisers() },
    ads: function*() { yield* ads(); yield* flagship.ads() },
    "shop-categories": categories,
    "shop-shops": shops,
    "shop-creators": creators,
    "shop-products": products,
    "shop-videos": videos,
    "shop-metrics": metrics,
    "store-products": storeSide.products,
    "store-metrics": storeSide.metrics
  }

  return {
    records,
    creatives: function*() { yield* creatives(); yield* flagship.creatives() },
    /** Stored transcripts of some of the flagship brand's video ads. */
    transcripts: flagship.transcripts,
    storeImages: storeSide.images,
    /** Records per entity, for progress (metric records: at most one series per subject). */
    counts: {
      stores: storeCount,
      landers: landerCount,
      advertisers: advertiserCount + flagship.counts.advertisers,
      ads: scale.ads + flagship.counts.ads,
      "shop-categories": categoryCount,
      "shop-shops": scale.shops,
      "shop-creators": scale.creators,
      "shop-products": scale.products,
      "shop-videos": scale.videos,
      "shop-metrics": scale.products + scale.shops + categoryCount + scale.creators + scale.videos,
      ...storeSide.counts
    } satisfies Record<EntityName, number>
  }
}
