import type { BrandNews } from "../../ads/brands/BrandTracker.js"
import type { Delivery } from "../inbox/Inbox.js"
import type { MailMessage } from "../mail/Mailer.js"
import type { Frequency } from "./Api.js"
import type { AccountId } from "../../kernel/Ids.js"

/**
 * What a digest says: one inbox item per brand with new ads, and the e-mail that sums them up
 * (plain text and HTML alike). Pure: the job passes everything in.
 */

export interface Digest {
  readonly accountId: AccountId
  readonly frequency: Exclude<Frequency, "off">
  /** The previous digest's slot; null: since each brand was followed. */
  readonly since: Date | null
  /** This digest's slot: it covers ads first seen up to here. */
  readonly until: Date
  readonly news: ReadonlyArray<BrandNews>
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`
const instant = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`
const period = (digest: Digest) =>
  digest.since === null ? `since you started tracking it, up to ${instant(digest.until)}` : `between ${instant(digest.since)} and ${instant(digest.until)}`

const escape = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

const summaryOf = (ad: BrandNews["ads"][number]) => {
  const copy = [ad.headline, ad.body].filter((part): part is string => part !== null && part.trim() !== "").join(": ")
  return copy === "" ? `(${ad.format}, no copy)` : copy.replace(/\s+/g, " ").slice(0, 160)
}

/** The key of a brand's item in a digest: a second delivery of the same digest writes nothing. */
export const digestKey = (digest: Digest, brandId: string) => `digest:${digest.until.toISOString()}:${brandId}`

/** One inbox item per brand: its count and its newest ads. */
export const digestItems = (digest: Digest, createdAt: Date): ReadonlyArray<Delivery> =>
  digest.news.map((brand) => ({
    accountId: digest.accountId,
    type: "brand_new_ads",
    title: `${brand.name}: ${plural(brand.count, "new ad")}`,
    body: `${brand.name} started ${plural(brand.count, "new ad")} ${period(digest)}.`,
    data: {
      brand: { id: brand.id, name: brand.name, domain: brand.domain },
      count: brand.count,
      ads: brand.ads,
      since: digest.since?.toISOString() ?? null,
      until: digest.until.toISOString()
    },
    createdAt,
    key: digestKey(digest, brand.id)
  }))

/** The e-mail of a digest, to `to`. */
export const digestMail = (digest: Digest, to: string, serviceName: string): MailMessage => {
  const ads = digest.news.reduce((n, brand) => n + brand.count, 0)
  const subject = `${serviceName} ${digest.frequency} digest: ${plural(ads, "new ad")} from ${plural(digest.news.length, "tracked brand")}`
  const intro = `New ads of the brands you track, ${digest.since === null ? `up to ${instant(digest.until)}` : `${period(digest)}`}.`
  const more = (brand: BrandNews) => brand.count - brand.ads.length
  const text = [
    intro,
    "",
    ...digest.news.flatMap((brand) => [
      `${brand.name}${brand.domain === null ? "" : ` (${brand.domain})`}: ${plural(brand.count, "new ad")}`,
      ...brand.ads.map((ad) => `  - ${summaryOf(ad)} [${ad.format}, first seen ${ad.first_seen}, id ${ad.id}]`),
      ...(more(brand) > 0 ? [`  ...and ${more(brand)} more`] : []),
      ""
    ]),
    `Change how often you get this digest: POST /api/v1/brands/notifications/prefs (frequency off, daily or weekly).`
  ].join("\n")
  const html = [
    `<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#1a1a1a">`,
    `<p>${escape(intro)}</p>`,
    ...digest.news.map((brand) =>
      [
        `<h2 style="font-size:1.1em;margin-bottom:.3em">${escape(brand.name)}${brand.domain === null ? "" : ` <small>(${escape(brand.domain)})</small>`}: ${escape(plural(brand.count, "new ad"))}</h2>`,
        `<ul>`,
        ...brand.ads.map((ad) => `<li>${escape(summaryOf(ad))} <small>[${escape(ad.format)}, first seen ${escape(ad.first_seen)}, id ${escape(ad.id)}]</small></li>`),
        ...(more(brand) > 0 ? [`<li>...and ${more(brand)} more</li>`] : []),
        `</ul>`
      ].join("")
    ),
    `<p style="color:#666;font-size:.9em">Change how often you get this digest: <code>POST /api/v1/brands/notifications/prefs</code> (frequency off, daily or weekly).</p>`,
    `</body></html>`
  ].join("\n")
  return { to, subject, text, html }
}
