import type { SeededTranscript } from "../transcripts/StoredTranscripts.js"
import { adCopy, niches, slug } from "./Copy.js"
import { Prng } from "./Prng.js"

/**
 * One brand with many ads in every world (issue 19): the brand insight tabs need a brand whose
 * ads fill every tab (hooks, offers, variants, video lengths, reach, transcripts...), and the
 * bench world needs one with about 5,000 ads. Its records come after the world's own, so the
 * rest of the world is the same record for record (the other benchmarks' shapes stay
 * comparable). Social ads mostly, some short-video ads under the same domain; one ad in five
 * has no AI tags (the tabs derive them from the copy), and half the video ads have a stored
 * transcript.
 */

/** How many ads the flagship brand runs in a world of this scale: 160 (small), 1,000 (demo), 5,000 (bench). */
export const flagshipAdCount = (scale: { readonly ads: number }) => Math.min(5_000, Math.max(160, Math.round(scale.ads / 30)))

export const flagship = {
  id: "social-flagship",
  name: "Northwind Botanics",
  domain: "northwind-botanics.example",
  offsite: "beauty-insider-flagship.example"
} as const

const DAY = 86_400_000
const niche = niches.find((n) => n.key === "beauty")!
const products = Object.values(niche.tree).flatMap((level3) => Object.values(level3).flat())
const emoji = ["✨", "🔥", "💧", "🌿"]
const markets = ["US", "GB", "CA", "AU", "DE"]
const placements = ["feed", "stories", "reels", "marketplace", "audience_network"]
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const isoTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z")
/** A reported range around a value: the bucket the library would show (as the world's). */
const bucket = (value: number) => {
  const steps = [0, 1_000, 5_000, 10_000, 50_000, 100_000, 500_000, 1_000_000, 5_000_000]
  const i = steps.findIndex((s) => s > value)
  return i === -1 ? { lower: steps[steps.length - 1]!, upper: null } : { lower: steps[i - 1] ?? 0, upper: steps[i]! - 1 }
}

/** An ad's status and dates from when it was first and last seen. */
const sighted = (firstSeen: number, lastSeen: number, active: boolean) => ({
  status: active ? "active" : "inactive",
  first_seen: isoTime(firstSeen),
  last_seen: isoTime(lastSeen),
  start_date: isoDay(firstSeen),
  end_date: active ? null : isoDay(lastSeen),
  days_running: Math.max(0, Math.round((lastSeen - firstSeen) / DAY))
})

export interface FlagshipOptions {
  readonly seed: number
  readonly now: number
  readonly fetchedAt: string
  /** The world's scale (World.ts `Scale`): its ad count sets the brand's. */
  readonly scale: { readonly ads: number }
}

export const flagshipBrand = ({ fetchedAt, now, scale, seed }: FlagshipOptions) => {
  const count = flagshipAdCount(scale)
  const provenance = { fetched_at: fetchedAt, source: "demo", method: "generated" as const }
  const libraries = ["social", "clipapp"] as const

  function* advertisers() {
    for (const library of libraries) {
      yield {
        platform: library,
        external_id: `${library}-flagship`,
        name: library === "clipapp" ? `${flagship.name} Official` : flagship.name,
        domain: flagship.domain,
        verified: true,
        followers: library === "clipapp" ? 48_200 : 126_400,
        country: "GB",
        niche: niche.key,
        ...provenance
      }
    }
  }

  /** Ads come in blocks of five: the first `k` of a block are variants of one creative. */
  const variantsOf = (block: number) => Prng.for(seed, "flagship-block", block).int(1, 5)

  const ad = (i: number) => {
    const block = Math.floor(i / 5)
    const variant = i % 5 < variantsOf(block) ? block : null
    const base = Prng.for(seed, "flagship-creative", variant === null ? `single-${i}` : `block-${block}`)
    const rng = Prng.for(seed, "flagship-ad", i)
    const library = base.chance(0.85) ? "social" : "clipapp"
    const product = base.pick(products)
    const copy = adCopy(niche, flagship.name, product, base)
    const own = adCopy(niche, flagship.name, product, rng)
    const tagged = i % 5 !== 4
    // Launches lean recent, as a brand scaling up.
    const firstSeen = now - (1 + Math.floor(179 * rng.next() ** 1.4)) * DAY - rng.int(0, 86_399) * 1000
    const running = Math.min(Math.round(rng.logNormal(20, 1.0)), Math.floor((now - firstSeen) / DAY))
    const lastSeen = Math.max(firstSeen, Math.min(now - rng.int(0, 3_600) * 1000, firstSeen + running * DAY))
    const active = now - lastSeen < 2 * DAY
    const format = library === "clipapp"
      ? rng.weighted([["video", 9], ["image", 1]] as const)
      : rng.weighted([["video", 4], ["image", 3], ["carousel", 2], ["dpa", 1]] as const)
    const media = Array.from({ length: format === "carousel" ? rng.int(2, 4) : 1 }, (_, m) =>
      format === "video"
        ? {
          type: "video" as const,
          url: `https://cdn.adintel.example/media/${library}/flagship-${i}-${m}.mp4`,
          thumbnail_url: `https://cdn.adintel.example/media/${library}/flagship-${i}-${m}.jpg`,
          duration_seconds: rng.chance(0.9) ? rng.int(6, 90) : null,
          width: 1080,
          height: 1920
        }
        : { type: "image" as const, url: `https://cdn.adintel.example/media/${library}/flagship-${i}-${m}.jpg`, width: 1080, height: 1080 })
    const page = base.weighted([["product", 7], ["listicle", 2], ["home", 1]] as const)
    const landing = page === "product"
      ? { url: `https://${flagship.domain}/products/${slug(product)}`, final_url: null, domain: flagship.domain }
      : page === "listicle"
      ? { url: `https://${flagship.offsite}/listicle/${slug(product)}`, final_url: null, domain: flagship.offsite }
      : { url: `https://${flagship.domain}/`, final_url: null, domain: flagship.domain }
    // Some copy carries an emoji after its hook.
    const body = rng.chance(0.2) ? copy.body.replace(copy.hook, `${copy.hook} ${rng.pick(emoji)}`) : copy.body
    const reach = rng.logNormal(40_000, 1.4)
    const likes = Math.round(reach * rng.logNormal(0.012, 0.8))
    const countries = rng.chance(0.04) ? [] : rng.sample(markets, rng.int(1, 3)).sort()
    return {
      library,
      external_id: `${library}-flagship-${i}`,
      advertiser_external_id: `${library}-flagship`,
      ...sighted(firstSeen, lastSeen, active),
      format,
      media,
      body,
      headline: own.headline,
      description: copy.description,
      cta: rng.chance(0.08) ? null : copy.cta,
      landing,
      publisher_platforms: library === "clipapp" ? ["for_you"] : rng.sample(placements, rng.int(1, 3)),
      countries,
      languages: rng.chance(0.03) ? [] : countries.includes("DE") ? ["de", "en"] : ["en"],
      impressions: bucket(reach * 1.8),
      spend: library === "social" && rng.chance(0.5)
        ? { ...bucket(reach / 120), currency: countries.includes("GB") ? "GBP" : "USD" }
        : null,
      reach: library === "social" ? bucket(reach) : null,
      engagement: {
        likes,
        comments: Math.round(likes * rng.logNormal(0.08, 0.6)),
        shares: Math.round(likes * rng.logNormal(0.05, 0.7)),
        views: library === "clipapp" ? Math.round(reach * rng.logNormal(1.4, 0.5)) : null
      },
      niche: rng.chance(0.05) ? null : niche.key,
      ai_tags: tagged ? { hook: copy.hook, angle: copy.angle, persona: copy.persona } : null,
      variant_group: variant === null ? null : `vg-flagship-${block}`,
      search: null,
      ...provenance
    }
  }

  function* ads() {
    for (let i = 0; i < count; i++) yield ad(i)
  }

  /** The creative of every ad with an image or a video thumbnail, drawn as the world's are (variants alike, a little noise). */
  function* creatives() {
    for (let i = 0; i < count; i++) {
      const { external_id, library, media } = ad(i)
      const first = media[0]
      if (first === undefined) continue
      const block = Math.floor(i / 5)
      const variant = i % 5 < variantsOf(block)
      yield {
        library,
        external_id,
        media_url: first.type === "image" ? first.url : first.thumbnail_url,
        seed: Prng.for(seed, "flagship-drawing", variant ? `block-${block}` : `single-${i}`).int(0, 2 ** 31 - 1),
        noise: variant && i % 5 !== 0 ? 4 + (i % 4) : 0
      }
    }
  }

  /** Half the video ads were transcribed: their copy, spoken, in timed segments. */
  function* transcripts(): Generator<SeededTranscript> {
    for (let i = 0; i < count; i++) {
      const generated = ad(i)
      const video = generated.media.find((m) => m.type === "video")
      if (video === undefined || i % 2 === 1) continue
      const sentences = generated.body.split(/(?<=[.!?])\s+/)
      const length = ("duration_seconds" in video ? video.duration_seconds : null) ?? 30
      const step = length / sentences.length
      yield {
        ad_id: generated.external_id,
        transcript: sentences.join(" "),
        segments: sentences.map((text, n) => ({ start: Math.round(n * step * 10) / 10, end: Math.round((n + 1) * step * 10) / 10, text })),
        media_url: video.url
      }
    }
  }

  return { advertisers, ads, creatives, transcripts, counts: { advertisers: libraries.length, ads: count } }
}
