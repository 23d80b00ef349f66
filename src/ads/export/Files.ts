import { Schema } from "effect"
import { AdView } from "../library/Api.js"
import type { ExportFormat } from "../library/Filters.js"

/**
 * The export's files (issue 32): NDJSON, one ad per line exactly as the search shows it, and
 * CSV (RFC 4180) with the columns a spreadsheet user expects. Pure functions of the pages.
 */

type Cell = string | number | null | undefined

/** The CSV columns, in order, and how each reads an ad. */
const columns: ReadonlyArray<readonly [string, (ad: AdView) => Cell]> = [
  ["id", (ad) => ad.id],
  ["library", (ad) => ad.library],
  ["advertiser_id", (ad) => ad.advertiser.id],
  ["advertiser", (ad) => ad.advertiser.name],
  ["advertiser_domain", (ad) => ad.advertiser.domain],
  ["headline", (ad) => ad.headline],
  ["text", (ad) => ad.body],
  ["description", (ad) => ad.description],
  ["cta", (ad) => ad.cta?.text],
  ["landing_url", (ad) => ad.landing?.url],
  ["landing_domain", (ad) => ad.landing?.domain],
  ["status", (ad) => ad.status],
  ["format", (ad) => ad.format],
  ["countries", (ad) => ad.countries.join(" ")],
  ["languages", (ad) => ad.languages.join(" ")],
  ["platforms", (ad) => ad.publisher_platforms.join(" ")],
  ["first_seen", (ad) => ad.first_seen],
  ["last_seen", (ad) => ad.last_seen],
  ["days_running", (ad) => ad.days_running],
  ["likes", (ad) => ad.engagement?.likes],
  ["comments", (ad) => ad.engagement?.comments],
  ["shares", (ad) => ad.engagement?.shares],
  ["views", (ad) => ad.engagement?.views],
  ["impressions_min", (ad) => ad.impressions?.lower],
  ["impressions_max", (ad) => ad.impressions?.upper],
  ["spend_min", (ad) => ad.spend?.lower],
  ["spend_max", (ad) => ad.spend?.upper],
  ["spend_currency", (ad) => ad.spend?.currency],
  ["niche", (ad) => ad.niche],
  ["media_url", (ad) => ad.media[0]?.url]
]

/**
 * One CSV field: quoted when it holds a comma, quote or line break (RFC 4180); text a
 * spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, carriage return first) is
 * prefixed with `'` (OWASP, "CSV Injection"). Numbers are written as they are.
 */
const field = (cell: Cell): string => {
  if (cell === null || cell === undefined) return ""
  if (typeof cell === "number") return String(cell)
  const text = /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, "\"\"")}"` : text
}

const line = (cells: ReadonlyArray<Cell>) => `${cells.map(field).join(",")}\r\n`

/** The CSV header line. */
export const csvHeader = line(columns.map(([name]) => name))

const encodeAd = Schema.encodeSync(AdView)

/** A page of ads in a file's form (CSV rows without the header). */
export const linesOf = (format: ExportFormat, ads: ReadonlyArray<AdView>): string =>
  format === "csv"
    ? ads.map((ad) => line(columns.map(([, read]) => read(ad)))).join("")
    : ads.map((ad) => `${JSON.stringify(encodeAd(ad))}\n`).join("")

/** The media type of a file. */
export const contentTypeOf = (format: ExportFormat) => format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson"
