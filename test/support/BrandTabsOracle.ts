import * as Signals from "../../src/ads/brandInsights/CopySignals.js"
import type { TabName } from "../../src/ads/brandInsights/Tabs.js"
import type { WorldRecord } from "./AdWorld.js"

/**
 * The brand insight tabs computed the slow, obvious way from the generated records (issue 19:
 * "each tab's answer checked against a brute-force computation"): whole arrays filtered,
 * grouped and sorted in JavaScript, with the rules of `CopySignals.ts` as JavaScript regular
 * expressions. What the routes answer must equal this, tab by tab.
 */

const DAY = 86_400_000
const at = (instant: string) => Date.parse(instant)
const dayStart = (day: string) => Date.parse(`${day}T00:00:00Z`)
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const addDays = (d: string, n: number) => day(dayStart(d) + n * DAY)

export interface Query {
  readonly brand: WorldRecord
  readonly advertisers: ReadonlyArray<WorldRecord>
  readonly ads: ReadonlyArray<WorldRecord>
  readonly transcripts: ReadonlyMap<string, string>
  readonly dateFrom: string
  readonly dateTo: string
  readonly libraries?: ReadonlyArray<string>
  readonly countries?: ReadonlyArray<string>
}

const copyOf = (ad: WorldRecord): string | null =>
  [ad.body, ad.headline, ad.description].filter((part) => part != null).join("\n") || null
const first = (signals: ReadonlyArray<Signals.Signal>, copy: string | null) =>
  copy === null ? null : signals.find((s) => new RegExp(s.pattern, "i").test(copy))?.name ?? null
const chars = (text: string) => [...text].length
const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  if (sorted.length === 0) return null
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
const byText = (a: unknown, b: unknown) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0)
const isActive = (ad: WorldRecord) => ad.status === "active"
const count = (ads: ReadonlyArray<WorldRecord>, keep: (ad: WorldRecord) => boolean) => ads.filter(keep).length

/** Values of the period's ads grouped: distinct ads per value, most first, ties by the value's text. */
const rank = (
  pairs: ReadonlyArray<readonly [unknown, WorldRecord]>,
  key: string,
  { active = true, limit = 20, span = false }: { readonly active?: boolean; readonly limit?: number; readonly span?: boolean } = {}
) => {
  const groups = new Map<unknown, Map<string, WorldRecord>>()
  for (const [k, ad] of pairs) {
    if (k === null || k === undefined) continue
    if (!groups.has(k)) groups.set(k, new Map())
    groups.get(k)!.set(ad.external_id, ad)
  }
  return [...groups].map(([k, ads]): Record<string, any> => {
    const all = [...ads.values()]
    return {
      [key]: k,
      ads: all.length,
      ...(active ? { active: count(all, isActive) } : {}),
      ...(span ? spanOf(all) : {})
    }
  }).sort((a, b) => b.ads - a.ads || byText(a[key], b[key])).slice(0, limit)
}
const spanOf = (ads: ReadonlyArray<WorldRecord>) => ({
  first_seen: ads.map((ad) => ad.first_seen).sort()[0],
  last_seen: ads.map((ad) => ad.last_seen).sort().at(-1)
})
const tabAd = (ad: WorldRecord) => ({
  id: ad.external_id,
  library: ad.library,
  status: ad.status,
  format: ad.format,
  headline: ad.headline ?? null,
  first_seen: ad.first_seen,
  last_seen: ad.last_seen,
  days_running: ad.days_running,
  landing_url: ad.landing?.url ?? null
})
const sorted = (ads: ReadonlyArray<WorldRecord>, compare: (a: WorldRecord, b: WorldRecord) => number) =>
  [...ads].sort((a, b) => compare(a, b) || byText(a.external_id, b.external_id))
const rangeStats = (ads: ReadonlyArray<WorldRecord>, field: string) => {
  const reported = ads.filter((ad) => ad[field] != null)
  const ranges = new Map<string, { lower: number; upper: number | null; ads: number }>()
  for (const ad of reported) {
    const k = `${ad[field].lower}|${ad[field].upper}`
    ranges.set(k, { lower: ad[field].lower, upper: ad[field].upper, ads: (ranges.get(k)?.ads ?? 0) + 1 })
  }
  return {
    reported: reported.length,
    unreported: ads.length - reported.length,
    lower_total: reported.reduce((n, ad) => n + ad[field].lower, 0),
    upper_total: reported.length === 0 || reported.some((ad) => ad[field].upper === null)
      ? null
      : reported.reduce((n, ad) => n + ad[field].upper, 0),
    ranges: [...ranges.values()].sort((a, b) => a.lower - b.lower || (a.upper ?? Infinity) - (b.upper ?? Infinity))
  }
}
const videoSeconds = (ad: WorldRecord): number | null => ad.media?.find((m: WorldRecord) => m.type === "video")?.duration_seconds ?? null
const hookOf = (ad: WorldRecord) => {
  if (ad.ai_tags?.hook != null) return ad.ai_tags.hook as string
  const copy = copyOf(ad)
  if (copy === null) return null
  return [...(new RegExp(Signals.hookPattern).exec(copy)?.[0] ?? copy.split("\n")[0]!)].slice(0, Signals.maxHookChars).join("")
}
const productOf = (ad: WorldRecord) => {
  const url: string | undefined = ad.landing?.url
  if (url === undefined) return null
  const handle = new RegExp(Signals.productHandlePattern).exec(url)?.[1] ?? new RegExp(Signals.lastSegmentPattern).exec(url)?.[1]
  return handle === undefined ? null : handle.toLowerCase()
}

/** Every Monday from date_from's week to date_to's; every first of a month likewise. */
const calendar = (from: string, to: string) => {
  const weeks = new Set<string>()
  const months = new Set<string>()
  for (let d = from; d <= to; d = addDays(d, 1)) {
    weeks.add(addDays(d, -((new Date(dayStart(d)).getUTCDay() + 6) % 7)))
    months.add(`${d.slice(0, 7)}-01`)
  }
  return { weeks: [...weeks], months: [...months] }
}

/** The tabs' answers (`data`), brute force. */
export const oracle = (q: Query): Record<TabName, unknown> => {
  const start = dayStart(q.dateFrom)
  const end = dayStart(q.dateTo) + DAY
  const libraries = q.libraries ?? ["social", "pinboard", "clipapp", "search"]
  const mine = new Set(
    q.advertisers
      .filter((adv) => libraries.includes(adv.platform))
      .filter((adv) =>
        adv.platform === "social" ? adv.external_id === q.brand.external_id : q.brand.domain != null && adv.domain === q.brand.domain
      )
      .map((adv) => `${adv.platform}|${adv.external_id}`)
  )
  const ads = q.ads.filter((ad) =>
    mine.has(`${ad.library}|${ad.advertiser_external_id}`) && at(ad.first_seen) < end && at(ad.last_seen) >= start &&
    (q.countries === undefined || (ad.countries ?? []).some((c: string) => q.countries!.includes(c)))
  )
  const since = (days: number) => dayStart(addDays(q.dateTo, -days))
  const launched = ads.filter((ad) => at(ad.first_seen) >= start)
  const { months, weeks } = calendar(q.dateFrom, q.dateTo)
  const launchesIn = (from: number, to: number) => count(launched, (ad) => at(ad.first_seen) >= from && at(ad.first_seen) < to)
  const of = (key: (ad: WorldRecord) => unknown) => ads.map((ad) => [key(ad), ad] as const)
  const each = (list: (ad: WorldRecord) => ReadonlyArray<unknown>) => ads.flatMap((ad) => list(ad).map((k) => [k, ad] as const))
  const lengths = (field: string) => {
    const values = ads.filter((ad) => ad[field] != null).map((ad) => chars(ad[field]))
    return {
      ads: values.length,
      min: values.length === 0 ? null : Math.min(...values),
      median: median(values),
      max: values.length === 0 ? null : Math.max(...values)
    }
  }
  const taggedOrDerived = (field: "angle" | "persona", signals: ReadonlyArray<Signals.Signal>) => {
    const values = ads.map((ad) => [ad.ai_tags?.[field] ?? first(signals, copyOf(ad)), ad] as const)
    return {
      [`${field}s`]: rank(values, field),
      tagged: count(ads, (ad) => ad.ai_tags?.[field] != null),
      derived: values.filter(([k, ad]) => ad.ai_tags?.[field] == null && k !== null).length,
      unknown: values.filter(([k]) => k === null).length
    }
  }
  const offers = ads.flatMap((ad) => Signals.offerSignals.filter((s) => new RegExp(s.pattern, "i").test(copyOf(ad) ?? "")).map((s) => [s.name, ad] as const))
  const discount = new RegExp(Signals.offerSignals.find((s) => s.name === "discount")!.pattern, "i")
  const emoji = (ad: WorldRecord) => [...(copyOf(ad) ?? "").matchAll(new RegExp(Signals.emojiPatternJs, "gu"))].map((m) => m[0])
  const videos = ads.filter((ad) => ad.format === "video")
  const seconds = videos.map(videoSeconds).filter((s): s is number => s !== null)
  const shows = (ad: WorldRecord) => ["likes", "comments", "shares", "views"].some((m) => ad.engagement?.[m] != null)
  const engagementOf = (ad: WorldRecord) => (ad.engagement?.likes ?? 0) + (ad.engagement?.comments ?? 0) + (ad.engagement?.shares ?? 0)
  const sum = (metric: string) => {
    const values = ads.map((ad) => ad.engagement?.[metric]).filter((v): v is number => v != null)
    return values.length === 0 ? null : values.reduce((n, v) => n + v, 0)
  }
  const ctas = new Map<string, { type: string | null; text: string | null; ads: number; active: number }>()
  for (const ad of ads.filter((ad) => ad.cta != null)) {
    const k = `${ad.cta.type}|${ad.cta.text}`
    const item = ctas.get(k) ?? { type: ad.cta.type, text: ad.cta.text, ads: 0, active: 0 }
    ctas.set(k, { ...item, ads: item.ads + 1, active: item.active + (isActive(ad) ? 1 : 0) })
  }
  const grouped = (key: (ad: WorldRecord) => string | null) => {
    const groups = new Map<string, Array<WorldRecord>>()
    for (const ad of ads) {
      const k = key(ad)
      if (k !== null) groups.set(k, [...(groups.get(k) ?? []), ad])
    }
    return [...groups].sort(([a, x], [b, y]) => y.length - x.length || byText(a, b)).slice(0, 20)
  }
  const bucket = (where: (ad: WorldRecord) => boolean, compare: (a: WorldRecord, b: WorldRecord) => number) => {
    const kept = ads.filter(where)
    return { ads: kept.length, items: sorted(kept, compare).slice(0, 20).map(tabAd) }
  }
  const weekCounts = weeks.map((week) => ({ week, launched: launchesIn(dayStart(week), dayStart(week) + 7 * DAY) }))
  const busiest = [...weekCounts].filter((w) => w.launched > 0).sort((a, b) => b.launched - a.launched || byText(a.week, b.week))[0]
  const transcribed = sorted(videos, (a, b) => at(b.first_seen) - at(a.first_seen)).filter((ad) => q.transcripts.has(ad.external_id))
  const currencies = [...new Set(ads.filter((ad) => ad.spend != null).map((ad) => ad.spend.currency as string))].sort(byText)

  return {
    "overview-cards": {
      total: ads.length,
      active: count(ads, isActive),
      new_1d: count(ads, (ad) => at(ad.first_seen) >= since(0)),
      new_7d: count(ads, (ad) => at(ad.first_seen) >= since(6)),
      new_30d: count(ads, (ad) => at(ad.first_seen) >= since(29)),
      median_days_running: median(ads.map((ad) => ad.days_running)),
      top_format: (rank(of((ad) => ad.format), "format")[0]?.format as string | undefined) ?? null,
      first_seen: ads.length === 0 ? null : spanOf(ads).first_seen,
      last_seen: ads.length === 0 ? null : spanOf(ads).last_seen,
      libraries: rank(of((ad) => ad.library), "library", { active: false }),
      countries: rank(each((ad) => ad.countries ?? []), "country", { active: false, limit: 10 })
    },
    "ad-copies": {
      bodies: rank(of((ad) => ad.body), "text"),
      headlines: rank(of((ad) => ad.headline), "text"),
      body_length: lengths("body"),
      headline_length: lengths("headline"),
      emoji: { ads: count(ads, (ad) => emoji(ad).length > 0), top: rank(each(emoji), "emoji", { active: false, limit: 10 }) }
    },
    hooks: {
      hooks: rank(of(hookOf), "hook", { span: true }),
      tagged: count(ads, (ad) => ad.ai_tags?.hook != null),
      derived: count(ads, (ad) => ad.ai_tags?.hook == null && hookOf(ad) !== null)
    },
    angles: taggedOrDerived("angle", Signals.angleSignals),
    personas: taggedOrDerived("persona", Signals.personaSignals),
    offers: {
      ads_with_offer: new Set(offers.map(([, ad]) => ad.external_id)).size,
      offers: rank(offers, "offer"),
      discounts: rank(
        each((ad) => discount.test(copyOf(ad) ?? "") ? [...copyOf(ad)!.matchAll(new RegExp(Signals.percentPattern, "gi"))].map((m) => Number(m[1])) : []),
        "percent",
        { active: false }
      ),
      codes: rank(each((ad) => [...(copyOf(ad) ?? "").matchAll(new RegExp(Signals.codePattern, "gi"))].map((m) => m[1]!.toUpperCase())), "code", { active: false })
    },
    ctas: {
      ctas: [...ctas.values()].sort((a, b) => b.ads - a.ads || byText(a.type, b.type) || byText(a.text, b.text)).slice(0, 20),
      without_cta: count(ads, (ad) => ad.cta == null)
    },
    "landing-pages": {
      urls: grouped((ad) => ad.landing?.url ?? null).map(([url, group]) => ({
        url,
        domain: group[0]!.landing.domain,
        ads: group.length,
        active: count(group, isActive),
        ...spanOf(group)
      })),
      domains: grouped((ad) => ad.landing?.domain ?? null).map(([domain, group]) => ({
        domain,
        urls: new Set(group.map((ad) => ad.landing.url)).size,
        ads: group.length,
        active: count(group, isActive),
        ...spanOf(group)
      })),
      without_landing: count(ads, (ad) => ad.landing == null)
    },
    products: { products: rank(of(productOf), "product", { span: true }), unknown: count(ads, (ad) => productOf(ad) === null) },
    formats: {
      formats: rank(of((ad) => ad.format), "format"),
      weeks: weeks.map((week) => {
        const running = ads.filter((ad) => at(ad.first_seen) < dayStart(week) + 7 * DAY && at(ad.last_seen) >= dayStart(week))
        return { week, ...Object.fromEntries(["image", "video", "carousel", "text", "dpa"].map((f) => [f, count(running, (ad) => ad.format === f)])) }
      })
    },
    platforms: {
      libraries: rank(of((ad) => ad.library), "library"),
      placements: rank(each((ad) => ad.publisher_platforms ?? []), "placement")
    },
    countries: { countries: rank(each((ad) => ad.countries ?? []), "country", { limit: 250 }), untargeted: count(ads, (ad) => (ad.countries ?? []).length === 0) },
    languages: { languages: rank(each((ad) => ad.languages ?? []), "language", { limit: 50 }), unknown: count(ads, (ad) => (ad.languages ?? []).length === 0) },
    "launch-cadence": {
      weeks: weekCounts,
      launched: launched.length,
      average_per_week: launched.length / weeks.length,
      busiest_week: busiest?.week ?? null
    },
    winners: { ads: sorted(ads, (a, b) => b.days_running - a.days_running || at(a.first_seen) - at(b.first_seen)).slice(0, 20).map(tabAd) },
    "new-this-week": {
      since: addDays(q.dateTo, -6),
      total: count(ads, (ad) => at(ad.first_seen) >= since(6)),
      ads: sorted(ads.filter((ad) => at(ad.first_seen) >= since(6)), (a, b) => at(b.first_seen) - at(a.first_seen)).slice(0, 20).map(tabAd)
    },
    movers: {
      scaling: bucket((ad) => isActive(ad) && at(ad.first_seen) < since(13), (a, b) => b.days_running - a.days_running || at(a.first_seen) - at(b.first_seen)),
      testing: bucket((ad) => isActive(ad) && at(ad.first_seen) >= since(13), (a, b) => at(b.first_seen) - at(a.first_seen)),
      stopped: bucket((ad) => !isActive(ad), (a, b) => at(b.last_seen) - at(a.last_seen))
    },
    variants: {
      groups: grouped((ad) => ad.variant_group ?? null).map(([group, members]) => ({
        group,
        headlines: new Set(members.map((ad) => ad.headline).filter((h) => h != null)).size,
        ads: members.length,
        active: count(members, isActive),
        ...spanOf(members)
      })),
      grouped_ads: count(ads, (ad) => ad.variant_group != null),
      single_ads: count(ads, (ad) => ad.variant_group == null)
    },
    "video-lengths": {
      video_ads: videos.length,
      with_length: seconds.length,
      median_seconds: median(seconds),
      buckets: Signals.videoLengthBuckets.map(({ bucket, max, min }) => {
        const inside = videos.filter((ad) => {
          const s = videoSeconds(ad)
          return s !== null && s >= min && (max === null || s < max)
        })
        return { bucket, min_seconds: min, max_seconds: max, ads: inside.length, active: count(inside, isActive) }
      })
    },
    reach: {
      impressions: rangeStats(ads, "impressions"),
      reach: rangeStats(ads, "reach"),
      spend: {
        reported: count(ads, (ad) => ad.spend != null),
        unreported: count(ads, (ad) => ad.spend == null),
        currencies: currencies.map((currency) => ({ currency, ...rangeStats(ads.filter((ad) => ad.spend?.currency === currency), "spend") }))
      }
    },
    engagement: {
      ads_with_engagement: count(ads, shows),
      likes: sum("likes"),
      comments: sum("comments"),
      shares: sum("shares"),
      views: sum("views"),
      top: sorted(ads.filter(shows), (a, b) => engagementOf(b) - engagementOf(a) || at(a.first_seen) - at(b.first_seen)).slice(0, 20).map((ad) => ({
        ...tabAd(ad),
        likes: ad.engagement?.likes ?? null,
        comments: ad.engagement?.comments ?? null,
        shares: ad.engagement?.shares ?? null,
        views: ad.engagement?.views ?? null,
        engagement: engagementOf(ad)
      }))
    },
    seasonality: {
      months: months.map((month) => {
        const next = new Date(dayStart(month))
        next.setUTCMonth(next.getUTCMonth() + 1)
        return { month: month.slice(0, 7), launched: launchesIn(dayStart(month), next.getTime()) }
      }),
      weekdays: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"].map((weekday, n) => ({
        weekday,
        launched: count(launched, (ad) => (new Date(at(ad.first_seen)).getUTCDay() + 6) % 7 === n)
      }))
    },
    niches: { niches: rank(of((ad) => ad.niche ?? null), "niche"), unknown: count(ads, (ad) => ad.niche == null) },
    transcripts: {
      video_ads: videos.length,
      transcribed: transcribed.length,
      transcripts: transcribed.slice(0, 20).map((ad) => {
        const transcript = q.transcripts.get(ad.external_id)!
        return {
          ad_id: ad.external_id,
          library: ad.library,
          first_seen: ad.first_seen,
          duration_seconds: videoSeconds(ad),
          words: transcript.split(/\s+/).filter((w) => w.length > 0).length,
          transcript
        }
      })
    }
  }
}
