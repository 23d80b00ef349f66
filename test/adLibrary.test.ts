import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { Ingest } from "../src/ingest/Ingest.js"
import { ad as fixtureAd } from "./fixtures/world.js"
import { loadedSmallWorldServer, smallWorld } from "./support/AdWorld.js"
import { account, balanceOf, call, keyHeader } from "./support/TestServer.js"

type DemoAd = {
  external_id: string
  library: string
  first_seen: string
  status: string
  format: string
  countries: Array<string>
  days_running: number
  niche: string
  landing: { domain: string } | null
  advertiser_external_id: string
  engagement: { likes: number | null } | null
  cta: { type: string } | null
  body: string | null
  variant_group: string | null
}
const demoAds = Array.from(smallWorld.records.ads()) as Array<DemoAd>

const get = (key: string, path: string) => Effect.map(call(path, keyHeader(key)), (a) => ({ ...a, json: JSON.parse(a.body) }))
const query = (params: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()

/** Every page of a search, by tokens: the ids in the order they came. */
const walk = (key: string, path: string, first: Record<string, string | number>, between?: (page: number) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const ids: Array<string> = []
    let answer = yield* get(key, `${path}?${query(first)}`)
    for (let page = 1; ; page++) {
      expect(answer.status).toBe(200)
      ids.push(...answer.json.data.map((ad: { id: string }) => ad.id))
      if (!answer.json.has_more) {
        expect(answer.json.scroll_token).toBeNull()
        return ids
      }
      if (between) yield* between(page)
      answer = yield* get(key, `${path}?${query({ scroll_token: answer.json.scroll_token })}`)
    }
  })

const byOldest = (a: { first_seen: string }, b: { first_seen: string }) => Date.parse(a.first_seen) - Date.parse(b.first_seen)

describe("ad library searches", () => {
  layer(loadedSmallWorldServer(), { timeout: 60_000 })((it) => {

    it.effect("a first page: newest first, the library's ads only, a token for more; 1 credit", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const answer = yield* get(api_key, "/api/v1/adlibrary?limit=5")
        expect(answer.status).toBe(200)
        expect(answer.headers.get("content-type")).toContain("application/json")
        const social = demoAds.filter((a) => a.library === "social")
        const newest = [...social].sort((a, b) => byOldest(b, a)).slice(0, 5).map((a) => a.external_id)
        expect(answer.json.data.map((a: { id: string }) => a.id)).toEqual(newest)
        expect(answer.json).toMatchObject({ success: true, has_more: true })
        expect(typeof answer.json.scroll_token).toBe("string")
        expect(Object.keys(answer.json)).toEqual(["success", "data", "scroll_token", "has_more"])
        expect((yield* balanceOf(id)).used).toBe(1)
      }))

    it.effect("every library route keeps to its library; the alias /api/adlibrary is the same metered route (S3)", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        for (const [path, library] of [["/api/v1/adlibrary", "social"], ["/api/adlibrary", "social"], ["/api/v1/pinboard-ads", "pinboard"], ["/api/v1/clipapp-ads", "clipapp"], ["/api/v1/search-ads", "search"]] as const) {
          const ids = yield* walk(api_key, path, { limit: 50 })
          expect(ids.sort()).toEqual(demoAds.filter((a) => a.library === library).map((a) => a.external_id).sort())
        }
        expect((yield* balanceOf(id)).used).toBeGreaterThan(5)
      }))

    it.effect("filters and sorts agree with a brute-force pass over the generated records", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const social = demoAds.filter((a) => a.library === "social")
        const some = social[3]!
        const cases: Array<[Record<string, string | number>, (a: DemoAd) => boolean]> = [
          [{ country: "US,GB" }, (a) => a.countries.some((c) => c === "US" || c === "GB")],
          [{ format: "video", status: "active" }, (a) => a.format === "video" && a.status === "active"],
          [{ min_days_running: 10, max_days_running: 30 }, (a) => a.days_running >= 10 && a.days_running <= 30],
          [{ niche: some.niche, domain: some.landing!.domain }, (a) => a.niche === some.niche && a.landing?.domain === some.landing!.domain],
          [{ advertiser_id: some.advertiser_external_id }, (a) => a.advertiser_external_id === some.advertiser_external_id],
          [{ min_likes: 500 }, (a) => (a.engagement?.likes ?? -1) >= 500],
          [{ cta: some.cta!.type }, (a) => a.cta?.type === some.cta!.type],
          [{ first_seen_from: some.first_seen.slice(0, 10), first_seen_to: some.first_seen.slice(0, 10) }, (a) => a.first_seen.slice(0, 10) === some.first_seen.slice(0, 10)]
        ]
        for (const [filters, keep] of cases) {
          const expected = social.filter(keep).sort(byOldest).map((a) => a.external_id)
          expect(expected.length, JSON.stringify(filters)).toBeGreaterThan(0)
          const ids = yield* walk(api_key, "/api/v1/adlibrary", { ...filters, sort: "oldest", limit: 4 })
          expect([filters, ids]).toEqual([filters, expected])
        }
      }))

    it.effect("keyword search ranks by relevance; every hit holds the words", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const sql = yield* SqlClient.SqlClient
        // a word of some social ad's copy: the longest of its body
        const body = demoAds.find((a) => a.library === "social" && a.body !== null)!.body!
        const word = body.split(/[^A-Za-z]+/).sort((a, b) => b.length - a.length)[0]!
        const answer = yield* get(api_key, `/api/v1/adlibrary?q=${word}&limit=50`)
        expect(answer.status).toBe(200)
        const expected = yield* sql<{ external_id: string }>`
          select external_id from ads where library = 'social' and search_vector @@ websearch_to_tsquery('english', ${word})
          order by ts_rank(search_vector, websearch_to_tsquery('english', ${word})) desc, id desc limit 50`
        expect(expected.length).toBeGreaterThan(0)
        expect(answer.json.data.map((a: { id: string }) => a.id)).toEqual(expected.map((r) => r.external_id))
      }))

    it.effect("a walk by tokens returns every matching ad once, in order, while new ads are ingested", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const ingest = yield* Ingest
        const before = demoAds.filter((a) => a.library === "social" && a.countries.includes("US")).sort((a, b) => byOldest(b, a))
        const ids = yield* walk(api_key, "/api/v1/adlibrary", { country: "US", limit: 6 }, (page) =>
          Effect.asVoid(ingest.records("ads", Stream.make(
            // one newer than everything, one in the middle of the walk, one older than everything
            fixtureAd(`new-${page}-a`, { first_seen: "1970-02-01T00:00:00Z", last_seen: "1970-02-01T00:00:00Z", start_date: null }),
            fixtureAd(`new-${page}-b`, { first_seen: before[Math.floor(before.length / 2)]!.first_seen, last_seen: "1970-01-01T00:00:00Z", start_date: null }),
            fixtureAd(`new-${page}-c`, { first_seen: "1960-01-01T00:00:00Z", last_seen: "1960-01-02T00:00:00Z", start_date: null })
          ))))
        expect(new Set(ids).size).toBe(ids.length)
        expect(ids.filter((id) => !id.startsWith("new-"))).toEqual(before.map((a) => a.external_id))
        // what was ingested behind the cursor (older than the page being read) is found too
        expect(ids.filter((id) => id.endsWith("-c")).length).toBeGreaterThan(0)
      }), { timeout: 30_000 })
  })
})

describe("ad library: bad input and tokens", () => {
  layer(loadedSmallWorldServer(), { timeout: 60_000 })((it) => {

    it.effect("a bad filter is a 400 naming it, and keeps the credit (G4, G11)", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const cases: Array<[string, string]> = [
          ["/api/v1/adlibrary?colour=red", "colour: unknown parameter"],
          ["/api/v1/adlibrary?limit=51", "limit: must be an integer from 1 to 50"],
          ["/api/v1/adlibrary?limit=0", "limit: must be an integer from 1 to 50"],
          ["/api/v1/adlibrary?limit=ten", "limit: must be an integer from 1 to 50"],
          ["/api/v1/adlibrary?sort=relevance", "sort: relevance needs q"],
          ["/api/v1/adlibrary?sort=random", "sort: must be one of relevance, newest, oldest, longest_running, most_engagement"],
          ["/api/v1/search-ads?sort=most_engagement", "sort: must be one of relevance, newest, oldest, longest_running"],
          ["/api/v1/adlibrary?min_views=10", "min_views: unknown parameter"],
          ["/api/v1/adlibrary?country=usa", "country.0: must be an ISO 3166-1 alpha-2 country code such as US"],
          ["/api/v1/adlibrary?format=image,hologram", "format.1: must be one of image, video, carousel, text, dpa"],
          ["/api/v1/adlibrary?first_seen_from=2026-02-30", "first_seen_from: must be a date YYYY-MM-DD from 1900-01-01 to 2999-12-31"],
          ["/api/v1/adlibrary?min_likes=-1", "min_likes: must be an integer from 0 to 1000000000000"],
          ["/api/v1/adlibrary?q=", "q: must be a non-empty text of at most 500 characters"],
          [`/api/v1/adlibrary?country=${Array.from({ length: 51 }, () => "US").join(",")}`, "country: must list at most 50 values"],
          ["/api/v1/clipapp-ads?scroll_token=abc", "scroll_token: invalid or altered token; start again without it"]
        ]
        for (const [path, error] of cases) {
          const answer = yield* call(path, keyHeader(api_key))
          expect([path, answer.status, answer.body]).toEqual([path, 400, JSON.stringify({ success: false, error })])
        }
        expect((yield* balanceOf(id)).used).toBe(cases.length)
      }))

    it.effect("a token is signed, belongs to its search, and carries the filters and limit", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const first = yield* get(api_key, "/api/v1/adlibrary?country=US&limit=3")
        const token: string = first.json.scroll_token
        const [payload, signature] = token.split(".") as [string, string]
        const state = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"))
        // the token alone gives the next page, with the same filters and page size
        const second = yield* get(api_key, `/api/v1/adlibrary?scroll_token=${token}`)
        expect(second.status).toBe(200)
        expect(second.json.data).toHaveLength(3)
        expect(second.json.data.every((a: { countries: Array<string> }) => a.countries.includes("US"))).toBe(true)
        // the same filters sent again are fine; other ones are another search
        expect((yield* get(api_key, `/api/v1/adlibrary?country=US&scroll_token=${token}`)).json.data).toEqual(second.json.data)
        const other = yield* call(`/api/v1/adlibrary?country=GB&scroll_token=${token}`, keyHeader(api_key))
        expect([other.status, JSON.parse(other.body).error]).toEqual([400, "scroll_token: the filters sent differ from the token's; send the token alone, or start a new search without it"])
        // altered: a wider page size, or another country, under the old signature
        for (const change of [{ limit: 50 }, { filters: { country: ["GB"] } }]) {
          const forged = `${Buffer.from(JSON.stringify({ ...state, ...change })).toString("base64url")}.${signature}`
          const answer = yield* call(`/api/v1/adlibrary?scroll_token=${forged}`, keyHeader(api_key))
          expect([answer.status, answer.body]).toEqual([400, `{"success":false,"error":"scroll_token: invalid or altered token; start again without it"}`])
        }
        // another library's route
        const foreign = yield* call(`/api/v1/pinboard-ads?scroll_token=${token}`, keyHeader(api_key))
        expect([foreign.status, foreign.body]).toEqual([400, `{"success":false,"error":"scroll_token: this token continues another search (social)"}`])
      }))

    it.effect("GET /api/v1/clipapp-ads/{id}: the ad with its variants, lander and store; 404 and G10", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const sql = yield* SqlClient.SqlClient
        const [grouped] = yield* sql<{ external_id: string; variant_group: string }>`
          select external_id, variant_group from ads where library = 'clipapp' and variant_group is not null order by id limit 1`
        const answer = yield* get(api_key, `/api/v1/clipapp-ads/${grouped!.external_id}`)
        expect(answer.status).toBe(200)
        const generated = demoAds.find((a) => a.external_id === grouped!.external_id)!
        expect(answer.json.data).toMatchObject({
          id: generated.external_id,
          library: "clipapp",
          first_seen: generated.first_seen,
          days_running: generated.days_running,
          countries: generated.countries,
          advertiser: { id: generated.advertiser_external_id },
          variant_group: grouped!.variant_group,
          lander: { domain: generated.landing!.domain }
        })
        const siblings = demoAds.filter((a) => a.variant_group === grouped!.variant_group && a.library === "clipapp" && a.external_id !== generated.external_id)
        expect(answer.json.data.variants).toEqual(siblings.sort((a, b) => byOldest(b, a)).map((a) => a.external_id))

        const missing = yield* call("/api/v1/clipapp-ads/nope-404", keyHeader(api_key))
        expect([missing.status, missing.body]).toEqual([404, `{"success":false,"error":"Ad not found"}`])
        const social = yield* call(`/api/v1/clipapp-ads/${demoAds.find((a) => a.library === "social")!.external_id}`, keyHeader(api_key))
        expect(social.status).toBe(404)
        const bad = yield* call("/api/v1/clipapp-ads/bad.id", keyHeader(api_key))
        expect([bad.status, bad.body]).toEqual([400, `{"success":false,"error":"Invalid id"}`])
        expect((yield* balanceOf(id)).used).toBe(4)
      }))

    it.effect("documents each library's filters in OpenAPI with types and ranges; only the engagement it shows", () =>
      Effect.gen(function*() {
        const doc = JSON.parse((yield* call("/openapi.json")).body)
        const params = (path: string) =>
          Object.fromEntries((doc.paths[path].get.parameters as Array<{ name: string; schema: unknown }>).map((p) => [p.name, p.schema]))
        const social = params("/api/v1/adlibrary")
        expect(social.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 50 })
        expect(social.min_likes).toMatchObject({ type: "integer", minimum: 0 })
        expect(social.format).toMatchObject({ type: "array", items: { enum: ["image", "video", "carousel", "text", "dpa"] }, maxItems: 50 })
        expect(social.first_seen_from).toMatchObject({ type: "string", format: "date" })
        expect(social.sort).toMatchObject({ enum: ["relevance", "newest", "oldest", "longest_running", "most_engagement"] })
        const engagement = (p: Record<string, unknown>) => Object.keys(p).filter((name) => /^(min|max)_(likes|comments|shares|views)$/.test(name)).sort()
        expect(engagement(social)).toEqual(["max_comments", "max_likes", "max_shares", "min_comments", "min_likes", "min_shares"])
        expect(engagement(params("/api/v1/pinboard-ads"))).toEqual(["max_comments", "max_likes", "min_comments", "min_likes"])
        expect(engagement(params("/api/v1/clipapp-ads"))).toHaveLength(8)
        expect(engagement(params("/api/v1/search-ads"))).toEqual([])
        expect(params("/api/v1/search-ads").sort).toMatchObject({ enum: ["relevance", "newest", "oldest", "longest_running"] })
        // The alias is the same route at a second path: not documented twice (issue 27).
        expect(doc.paths["/api/adlibrary"]).toBeUndefined()
      }))

    it.effect("limit 50 is the most one page holds, and the default is 20", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        expect((yield* get(api_key, "/api/v1/adlibrary")).json.data).toHaveLength(20)
        expect((yield* get(api_key, "/api/v1/adlibrary?limit=50")).json.data).toHaveLength(50)
      }))
  })
})
