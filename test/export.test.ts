import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { loadedSmallWorldServer, smallWorld } from "./support/AdWorld.js"
import { account, balanceOf, call, keyHeader } from "./support/TestServer.js"

/** Bulk export over REST (issue 32): the files, one credit per page of 100, the per-call maximum. */

type Json = Record<string, any>

const socialCount = Array.from(smallWorld.records.ads()).filter((ad) => (ad as Json).library === "social").length

/** Every ad of a search, as its pages show them (the REST search, walked by its tokens). */
const walk = (key: string, path: string, query = "") =>
  Effect.gen(function*() {
    const ads: Array<Json> = []
    let answer = yield* call(`${path}?limit=50${query}`, keyHeader(key))
    for (;;) {
      const json = JSON.parse(answer.body)
      ads.push(...json.data)
      if (!json.has_more) return ads
      answer = yield* call(`${path}?scroll_token=${encodeURIComponent(json.scroll_token)}`, keyHeader(key))
    }
  })

const csvOf = (cells: ReadonlyArray<string | number | null | undefined>) =>
  cells.map((cell) => {
    if (cell === null || cell === undefined) return ""
    const text = String(cell)
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, "\"\"")}"` : text
  }).join(",") + "\r\n"

const header =
  "id,library,advertiser_id,advertiser,advertiser_domain,headline,text,description,cta,landing_url,landing_domain,status,format," +
  "countries,languages,platforms,first_seen,last_seen,days_running,likes,comments,shares,views,impressions_min,impressions_max," +
  "spend_min,spend_max,spend_currency,niche,media_url\r\n"

describe("bulk export (REST)", () => {
  layer(loadedSmallWorldServer(), { timeout: 120_000 })((it) => {
    it.effect("NDJSON: every match, each line the ad exactly as the search shows it, in the search's order; one credit per page of 100", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "pro" })
        const expected = yield* walk(api_key, "/api/v1/adlibrary")
        expect(expected.length).toBe(socialCount)
        const before = (yield* balanceOf(id)).used
        const answer = yield* call("/api/v1/adlibrary/export", keyHeader(api_key))
        expect(answer.status).toBe(200)
        expect(answer.headers.get("content-type")).toBe("application/x-ndjson")
        expect(answer.headers.get("content-disposition")).toBe("attachment; filename=\"social-ads.ndjson\"")
        expect(answer.body).toBe(expected.map((ad) => `${JSON.stringify(ad)}\n`).join(""))
        expect((yield* balanceOf(id)).used - before).toBe(Math.ceil(socialCount / 100))
      }))

    it.effect("CSV: the header, then one row per ad with the columns a spreadsheet wants; filters as the search's (ad_format for its format)", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "pro" })
        const expected = yield* walk(api_key, "/api/v1/clipapp-ads", "&format=video&country=US")
        expect(expected.length).toBeGreaterThan(0)
        const before = (yield* balanceOf(id)).used
        const answer = yield* call("/api/v1/clipapp-ads/export?format=csv&ad_format=video&country=US", keyHeader(api_key))
        expect(answer.status).toBe(200)
        expect(answer.headers.get("content-type")).toBe("text/csv; charset=utf-8")
        const rows = expected.map((ad) =>
          csvOf([
            ad.id, ad.library, ad.advertiser.id, ad.advertiser.name, ad.advertiser.domain, ad.headline, ad.body, ad.description,
            ad.cta?.text, ad.landing?.url, ad.landing?.domain, ad.status, ad.format, ad.countries.join(" "), ad.languages.join(" "),
            ad.publisher_platforms.join(" "), ad.first_seen, ad.last_seen, ad.days_running, ad.engagement?.likes,
            ad.engagement?.comments, ad.engagement?.shares, ad.engagement?.views, ad.impressions?.lower, ad.impressions?.upper,
            ad.spend?.lower, ad.spend?.upper, ad.spend?.currency, ad.niche, ad.media[0]?.url
          ])
        )
        expect(answer.body).toBe(header + rows.join(""))
        expect((yield* balanceOf(id)).used - before).toBe(Math.max(1, Math.ceil(expected.length / 100)))
      }))

    it.effect("credits run out mid-file: the pages paid for, then the 429 envelope as the NDJSON file's last line", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "pro" })
        const expected = yield* walk(api_key, "/api/v1/adlibrary")
        // Two credits: the call's own (page 1) and page 2.
        const { api_key: key, id: poor } = yield* account({ plan: "pro", patch: { monthly_limit: 2 } })
        const answer = yield* call("/api/v1/adlibrary/export", keyHeader(key))
        expect(answer.status).toBe(200)
        const lines = answer.body.split("\n").slice(0, -1)
        expect(lines.slice(0, 200)).toEqual(expected.slice(0, 200).map((ad) => JSON.stringify(ad)))
        expect(lines.length).toBe(201)
        expect(JSON.parse(lines[200]!)).toEqual({
          success: false,
          error: "No API credits remaining. Buy an add-on pack or wait until next monthly reset.",
          credits: { used: 2, limit: 2, remaining: 0, addon_remaining: 0, total_remaining: 0 },
          purchase: { url: expect.any(String) }
        })
        expect((yield* balanceOf(poor)).total_remaining).toBe(0)
      }))

    it.effect("a filter the search refuses is its 400 (G11), before any file; the credit is kept", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "pro" })
        const answer = yield* call("/api/v1/pinboard-ads/export?format=xlsx", keyHeader(api_key))
        expect(answer.status).toBe(400)
        expect(JSON.parse(answer.body).success).toBe(false)
        const limit = yield* call("/api/v1/pinboard-ads/export?limit=10", keyHeader(api_key))
        expect(limit.status).toBe(400)
        expect(JSON.parse(limit.body)).toEqual({ success: false, error: expect.stringContaining("limit") })
        expect((yield* balanceOf(id)).used).toBe(2)
      }))

    it.effect("the un-versioned alias /api/adlibrary/export is the same metered route (S3)", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "pro" })
        const versioned = yield* call("/api/v1/adlibrary/export?format=csv&status=active", keyHeader(api_key))
        const alias = yield* call("/api/adlibrary/export?format=csv&status=active", keyHeader(api_key))
        expect(alias.status).toBe(200)
        expect(alias.body).toBe(versioned.body)
        const pages = Math.max(1, Math.ceil((versioned.body.split("\r\n").length - 2) / 100))
        expect((yield* balanceOf(id)).used).toBe(2 * pages)
      }))

    it.effect("no key is 401 and costs nothing (G1)", () =>
      Effect.gen(function*() {
        const answer = yield* call("/api/v1/adlibrary/export")
        expect(answer.status).toBe(401)
        expect(JSON.parse(answer.body)).toEqual({ success: false, error: "Unauthorized" })
      }))
  })
})

describe("bulk export at its per-call maximum", () => {
  layer(loadedSmallWorldServer({ env: { EXPORT_MAX_ROWS: "150" } }), { timeout: 120_000 })((it) => {
    it.effect("a search with more matches than EXPORT_MAX_ROWS: exactly the first 150, two pages charged", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "pro" })
        const expected = (yield* walk(api_key, "/api/v1/adlibrary")).slice(0, 150)
        const before = (yield* balanceOf(id)).used
        const answer = yield* call("/api/v1/adlibrary/export", keyHeader(api_key))
        expect(answer.status).toBe(200)
        expect(answer.body).toBe(expected.map((ad) => `${JSON.stringify(ad)}\n`).join(""))
        expect((yield* balanceOf(id)).used - before).toBe(2)
      }))

    it.effect("a search under the maximum is whole", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "pro" })
        const expected = yield* walk(api_key, "/api/v1/clipapp-ads")
        expect(expected.length).toBeLessThan(150)
        const answer = yield* call("/api/v1/clipapp-ads/export", keyHeader(api_key))
        expect(answer.body.split("\n").length - 1).toBe(expected.length)
      }))
  })
})
