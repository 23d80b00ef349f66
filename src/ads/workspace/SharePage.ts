import { html, layout, type Raw, raw } from "../../access/session/Pages.js"
import type { BoardBrand, SharedAd, SharedBoard } from "./Api.js"
import { isJsonObject } from "../../kernel/Guards.js"

/**
 * The public page of a shared board (issue 19): server-rendered HTML in the key page's style
 * (access/session/Pages.ts), read-only, no script. Media are links, not images: the page
 * fetches nothing from the ads' hosts on the visitor's behalf.
 */

const styles = raw(`<style>
.brands{list-style:none;margin:0;padding:0;display:grid;gap:.5rem;grid-template-columns:repeat(auto-fill,minmax(220px,1fr))}
.brands li{border:1px solid var(--line);border-radius:8px;padding:.6rem .75rem;overflow-wrap:anywhere}
.ads{display:grid;gap:1rem;grid-template-columns:repeat(auto-fill,minmax(280px,1fr))}
.ad{border:1px solid var(--line);border-radius:10px;padding:.9rem;display:grid;gap:.4rem;align-content:start;overflow-wrap:anywhere}
.ad h3{font-size:1rem;margin:0}.ad p{margin:0}
.pills{display:flex;flex-wrap:wrap;gap:.35rem;align-items:center}
.pill{font-size:12px;padding:.1rem .5rem;border-radius:99px;background:var(--bg);border:1px solid var(--line);color:var(--muted)}
.pill.gone{color:var(--warn);border-color:#fcd34d;background:#fffbeb}
.pager{display:flex;justify-content:space-between;gap:1rem;margin-top:1rem}
a{color:var(--brand)}h1,h2{overflow-wrap:anywhere}
</style>`)

const number = (n: number) => n.toLocaleString("en-US")
const plural = (n: number, one: string, many = `${one}s`) => `${number(n)} ${n === 1 ? one : many}`
const day = (instant: string) => instant.slice(0, 10)
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

/** Only http(s) targets become links: a record's URL never runs script in the visitor's page. */
const isWebUrl = (value: unknown): value is string => typeof value === "string" && /^https?:\/\/\S+$/i.test(value)
const link = (url: string, label: string) => html`<a href="${url}" rel="noopener noreferrer nofollow" target="_blank">${label}</a>`

const mediaLinks = (media: ReadonlyArray<unknown>): ReadonlyArray<Raw> =>
  media.flatMap((item, i) => {
    const record = isJsonObject(item) ? item : {}
    const type = typeof record["type"] === "string" ? record["type"] : "media"
    return isWebUrl(record["url"]) ? [link(record["url"], `${type} ${i + 1}`), raw(" ")] : []
  })

const brandItem = (brand: BoardBrand) =>
  html`<li><strong>${brand.name}</strong><br><span class="muted">${brand.domain ?? "no domain"} · ${
    brand.in_library ? plural(brand.active_ads, "active ad") : "no longer in the library"
  }</span></li>`

const adCard = (ad: SharedAd) => {
  const media = mediaLinks(ad.media)
  return html`<article class="ad">
<div class="pills"><strong>${ad.advertiser.name}</strong><span class="pill">${ad.format}</span><span class="pill">${ad.status}</span>${
    ad.in_library ? raw("") : html`<span class="pill gone">no longer in the library</span>`
  }</div>
${ad.headline === null ? raw("") : html`<h3>${clip(ad.headline, 200)}</h3>`}
${ad.body === null ? raw("") : html`<p>${clip(ad.body, 400)}</p>`}
<p class="muted">${ad.library} · first seen ${day(ad.first_seen)} · ${plural(ad.days_running, "day")} running · saved ${day(ad.saved_at)}</p>
${media.length === 0 ? raw("") : html`<p>Media: ${media}</p>`}
${ad.landing !== null && isWebUrl(ad.landing.url) ? html`<p>${link(ad.landing.url, ad.landing.domain ?? "Landing page")}</p>` : raw("")}
</article>`
}

const pager = (shared: Omit<SharedBoard, "success">, pageHref: (page: number) => string) => {
  const last = Math.max(1, Math.ceil(shared.total / shared.page_size))
  if (last === 1) return raw("")
  return html`<nav class="pager" aria-label="Pages">${
    shared.page > 1 ? html`<a href="${pageHref(shared.page - 1)}" id="newer">← Newer</a>` : html`<span></span>`
  }<span class="muted">Page ${shared.page} of ${last}</span>${
    shared.page < last ? html`<a href="${pageHref(shared.page + 1)}" id="older">Older →</a>` : html`<span></span>`
  }</nav>`
}

export const sharedBoardPage = (shared: Omit<SharedBoard, "success">, pageHref: (page: number) => string): string => {
  const { board } = shared
  const first = (shared.page - 1) * shared.page_size + 1
  const shown = shared.data.length === 0 ? "" : ` · ${number(first)}–${number(first + shared.data.length - 1)} of ${number(shared.total)}`
  return layout(
    `${board.name} · Shared board · AdIntel`,
    "",
    html`<span class="muted">Shared board, read-only</span>`,
    html`${styles}
<section class="card">
<h1 id="board-name">${board.name}</h1>
<p class="muted" id="board-summary">${plural(board.brands_count, "brand")} · ${plural(board.ads_count, "saved ad")} · this link works until ${day(board.expires_at)}</p>
</section>
<section class="card" id="brands"><h2>Brands</h2>${
      shared.brands.length === 0 ? html`<p class="muted">No brands on this board.</p>` : html`<ul class="brands">${shared.brands.map(brandItem)}</ul>`
    }</section>
<section class="card" id="ads"><h2>Saved ads<span class="muted">${shown}</span></h2>${
      shared.data.length === 0 ? html`<p class="muted">No saved ads on this page.</p>` : html`<div class="ads">${shared.data.map(adCard)}</div>`
    }${pager(shared, pageHref)}</section>`,
    false
  )
}

/** What a visitor sees for an unknown, revoked or expired link, and when views come too fast. */
export const shareMessagePage = (title: string, message: string): string =>
  layout(`${title} · AdIntel`, "", raw(""), html`<section class="card"><h1>${title}</h1><p class="muted">${message}</p></section>`, false)
