import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { Ingest } from "../src/ingest/Ingest.js"
import { adIdsShown, maxLanderFavorites } from "../src/ads/landers/Api.js"
import { landers as fixtureLanders } from "./fixtures/world.js"
import { ingestAll, loadedSmallWorldServer, recordsOf, type WorldRecord } from "./support/AdWorld.js"
import { account, balanceOf, call, keyHeader } from "./support/TestServer.js"

/**
 * The lander library (issue 20, INTERPRETATIONS L1) through HTTP against the small world: every
 * filter and sort checked against a brute-force pass over the generated records, the ads that
 * link to each lander, favorites with their cap under concurrency, metering, errors.
 */

const DAY = 86_400_000
const ads = recordsOf("ads")
const records: Array<WorldRecord> = [...recordsOf("landers"), ...fixtureLanders]

const iso = (instant: string | null | undefined) => (instant == null ? null : new Date(instant).toISOString().replace(/\.\d{3}Z$/, "Z"))
const linked = (lander: WorldRecord) =>
  ads
    .map((ad, index) => ({ ad, index }))
    .filter(({ ad }) => ad.lander_external_id === lander.external_id)
    .sort((a, b) => b.ad.first_seen.localeCompare(a.ad.first_seen) || b.index - a.index)

/** Brute force: a lander as explore shows it. */
const viewOf = (l: WorldRecord) => {
  const mine = linked(l)
  return {
    id: l.external_id,
    url: l.url,
    final_url: l.final_url ?? l.url,
    domain: l.domain,
    type: l.page_type,
    title: l.title ?? null,
    headline: l.headline ?? null,
    niche: l.niche ?? null,
    platform: l.platform ?? null,
    countries: l.countries ?? [],
    languages: l.languages ?? [],
    price: l.offer_price ?? null,
    currency: l.currency ?? null,
    screenshot_url: l.screenshot_url ?? null,
    store_id: l.store_external_id ?? null,
    first_seen: iso(l.first_seen),
    last_seen: iso(l.last_seen),
    days_running: l.first_seen == null || l.last_seen == null ? null : Math.floor((Date.parse(l.last_seen) - Date.parse(l.first_seen)) / DAY),
    ads: { count: mine.length, ids: mine.slice(0, adIdsShown).map(({ ad }) => ad.external_id) }
  }
}
const views = records.map((l) => ({ view: viewOf(l), record: l }))
type Entry = (typeof views)[number]

const time = (instant: string | null) => (instant === null ? null : Date.parse(instant))
/** `desc nulls last, then by id`, as the service breaks ties. */
const descending = (key: (e: Entry) => number | null) => (a: Entry, b: Entry) => {
  const x = key(a)
  const y = key(b)
  if (x !== y) return x === null ? 1 : y === null ? -1 : y - x
  return a.view.id < b.view.id ? -1 : 1
}
const sorts = {
  newest: descending((e) => time(e.view.first_seen)),
  most_ads: descending((e) => e.view.ads.count),
  longest_running: descending((e) => (e.view.first_seen === null || e.view.last_seen === null ? null : time(e.view.last_seen)! - time(e.view.first_seen)!))
}

const post = (key: string, path: string, body: unknown) =>
  Effect.map(
    call(path, { method: "POST", headers: { "X-API-Key": key, "content-type": "application/json" }, body: JSON.stringify(body) }),
    (a) => ({ ...a, json: JSON.parse(a.body) })
  )
const explore = (key: string, body: Record<string, unknown>) => post(key, "/api/v1/landers/explore", body)
const toggle = (key: string, id: unknown) => post(key, "/api/v1/landers/favorites/toggle", { id })
const favorites = (key: string, query = "") => Effect.map(call(`/api/v1/landers/favorites${query}`, keyHeader(key)), (a) => ({ ...a, json: JSON.parse(a.body) }))

/** Every page of explore, checking P2's shape on each. */
const walk = (key: string, body: Record<string, unknown>, pageSize = 7) =>
  Effect.gen(function*() {
    const items: Array<Record<string, unknown>> = []
    for (let page = 1; ; page++) {
      const answer = yield* explore(key, { ...body, page, page_size: pageSize })
      expect(answer.status, answer.body).toBe(200)
      expect(Object.keys(answer.json)).toEqual(["success", "data", "total", "page", "page_size"])
      expect(answer.json).toMatchObject({ success: true, page, page_size: pageSize })
      items.push(...answer.json.data)
      if (answer.json.data.length < pageSize) {
        expect(answer.json.total).toBe(items.length)
        return items
      }
    }
  })

const idsOf = (entries: ReadonlyArray<Entry>) => entries.map((e) => e.view.id)
const dayOf = (instant: string | null) => (instant === null ? null : instant.slice(0, 10))

describe("landers", () => {
  layer(loadedSmallWorldServer())((it) => {
    it.effect("explore: every lander with the ads that link to it and its final URL, newest first by default", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const items = yield* walk(api_key, {})
        const expected = [...views].sort(sorts.newest)
        expect(items).toEqual(expected.map((e) => e.view))
        // Every ad of the world that names a lander is counted on it.
        expect(items.reduce((n, l: any) => n + l.ads.count, 0)).toBe(ads.filter((a) => a.lander_external_id != null).length)
        expect(items.some((l: any) => l.final_url !== l.url)).toBe(true)
        // One credit per call (G2).
        expect((yield* balanceOf(id)).used).toBe(Math.ceil((items.length + 1) / 7))
      }))

    it.effect("explore: each filter against a brute-force pass over the records", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const pick = <A>(values: ReadonlyArray<A>, i: number) => values[i % values.length]!
        const some = (field: string) => [...new Set(records.map((r) => r[field]).filter((v) => v != null))] as Array<any>
        const countries = [...new Set(records.flatMap((r) => r.countries ?? []))]
        const languages = [...new Set(records.flatMap((r) => r.languages ?? []))]
        const firstSeen = records.map((r) => dayOf(iso(r.first_seen))).filter((d): d is string => d !== null).sort()
        const lastSeen = records.map((r) => dayOf(iso(r.last_seen))).filter((d): d is string => d !== null).sort()
        const counts = views.map((e) => e.view.ads.count).sort((a, b) => a - b)
        const prices = records.map((r) => r.offer_price).filter((p) => p != null).sort((a, b) => a - b)
        const median = <A>(values: ReadonlyArray<A>) => values[Math.floor(values.length / 2)]!
        const cases: Array<[Record<string, unknown>, (e: Entry) => boolean]> = [
          [{ type: ["quiz", "vsl"] }, (e) => ["quiz", "vsl"].includes(e.view.type)],
          [{ type: "presell,collection" }, (e) => ["presell", "collection"].includes(e.view.type)],
          [{ niche: [pick(some("niche"), 1)] }, (e) => e.view.niche === pick(some("niche"), 1)],
          [{ domain: [pick(some("domain"), 2)] }, (e) => e.view.domain === pick(some("domain"), 2)],
          [{ platform: ["Shopify"] }, (e) => e.view.platform === "shopify"],
          [{ platform: ["wordpress", "webflow"] }, (e) => ["wordpress", "webflow"].includes(e.view.platform!)],
          [{ country: [countries[1], countries[2]] }, (e) => e.view.countries.some((c: string) => [countries[1], countries[2]].includes(c))],
          [{ language: languages.filter((l) => l !== "en") }, (e) => e.view.languages.some((l: string) => l !== "en")],
          [{ first_seen_from: median(firstSeen) }, (e) => dayOf(e.view.first_seen) !== null && dayOf(e.view.first_seen)! >= median(firstSeen)],
          [{ first_seen_to: median(firstSeen) }, (e) => dayOf(e.view.first_seen) !== null && dayOf(e.view.first_seen)! <= median(firstSeen)],
          [{ last_seen_from: median(lastSeen), last_seen_to: lastSeen[lastSeen.length - 3] }, (e) => {
            const d = dayOf(e.view.last_seen)
            return d !== null && d >= median(lastSeen) && d <= lastSeen[lastSeen.length - 3]!
          }],
          [{ min_ads: median(counts) }, (e) => e.view.ads.count >= median(counts)],
          [{ min_ads: 1, max_ads: median(counts) }, (e) => e.view.ads.count >= 1 && e.view.ads.count <= median(counts)],
          [{ min_price: median(prices) }, (e) => e.view.price !== null && e.view.price >= median(prices)],
          [{ min_price: prices[0], max_price: median(prices), currency: "USD" }, (e) =>
            e.view.price !== null && e.view.price >= prices[0] && e.view.price <= median(prices) && e.view.currency === "USD"],
          [{ q: "quiz" }, (e) => /\bquiz/i.test([e.record.title, e.record.headline, e.record.text].join(" "))]
        ]
        for (const [filters, keep] of cases) {
          const expected = views.filter(keep)
          expect(expected.length, JSON.stringify(filters)).toBeGreaterThan(0)
          expect(expected.length, JSON.stringify(filters)).toBeLessThan(views.length)
          const items = yield* walk(api_key, { ...filters, sort: "newest" })
          expect(items.map((l) => l.id), JSON.stringify(filters)).toEqual(idsOf(expected.sort(sorts.newest)))
        }
      }))

    it.effect("explore: the sorts, against the brute-force orders; relevance puts title matches first", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        for (const sort of ["newest", "most_ads", "longest_running"] as const) {
          const items = yield* walk(api_key, { sort }, 9)
          expect(items.map((l) => l.id), sort).toEqual(idsOf([...views].sort(sorts[sort])))
        }
        // Relevance: the title weighs most, then the headline, then the page's text (three landers of a word of their own).
        const sql = yield* SqlClient.SqlClient
        const own = (id: string, fields: Record<string, string>) => ({ ...fixtureLanders[0], external_id: id, url: `https://rank.example/${id}`, domain: "rank.example", ...fields })
        yield* ingestAll("landers", [
          own("rank-text", { text: "Our zanzibarite lamp ships free." }),
          own("rank-title", { title: "The zanzibarite lamp" }),
          own("rank-headline", { headline: "Zanzibarite glow all night" })
        ])
        const ranked = yield* walk(api_key, { q: "zanzibarite" }).pipe(Effect.ensuring(Effect.orDie(sql`delete from landers where domain = 'rank.example'`)))
        expect(ranked.map((l) => l.id)).toEqual(["rank-title", "rank-headline", "rank-text"])
      }))

    it.effect("explore: an import of ads moves the ad counts of the landers they leave and join", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const [from, to] = [...views].sort(sorts.most_ads).map((e) => e.view).filter((v) => v.ads.count > 0)
        const moved = ads.find((a) => a.lander_external_id === from!.id)!
        const countOf = (id: string) =>
          Effect.map(explore(api_key, { domain: [views.find((e) => e.view.id === id)!.view.domain], page_size: 100 }), (a) =>
            (a.json.data as Array<any>).find((l) => l.id === id).ads)
        yield* ingestAll("ads", [{ ...moved, lander_external_id: to!.id, first_seen: "1969-12-31T12:00:00Z", last_seen: "1969-12-31T12:00:00Z", days_running: 0 }])
        expect((yield* countOf(from!.id)).count).toBe(from!.ads.count - 1)
        const joined = yield* countOf(to!.id)
        expect(joined).toEqual({ count: to!.ads.count + 1, ids: [moved.external_id, ...to!.ads.ids.slice(0, adIdsShown - 1)] })
        // Sent again unchanged: nothing moves.
        yield* ingestAll("ads", [{ ...moved, lander_external_id: to!.id, first_seen: "1969-12-31T12:00:00Z", last_seen: "1969-12-31T12:00:00Z", days_running: 0 }])
        expect((yield* countOf(to!.id)).count).toBe(to!.ads.count + 1)
        yield* ingestAll("ads", [moved])
        expect((yield* countOf(from!.id)).count).toBe(from!.ads.count)
        expect((yield* countOf(to!.id))).toEqual(to!.ads)
      }))

    it.effect("import: a lander's new fields through NDJSON, a bad type refused naming the field, and explore finds it", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const { api_key } = yield* account()
        const lines = [
          { ...fixtureLanders[0], external_id: "ndjson-vsl", url: "https://vsl.example/watch", domain: "vsl.example", page_type: "vsl", headline: "Watch the quokkaberry story", text: "Quokkaberry jam, made slowly.", niche: "home", countries: ["NZ"], languages: ["en", "mi"] },
          { ...fixtureLanders[0], external_id: "ndjson-bad", url: "https://vsl.example/bad", domain: "vsl.example", page_type: "blog" }
        ]
        const report = yield* Effect.flatMap(Ingest, (ingest) =>
          ingest.lines("landers", Stream.make(new TextEncoder().encode(lines.map((l) => JSON.stringify(l)).join("\n")))))
        expect(report).toEqual({
          accepted: 1,
          rejected: 1,
          errors: [{ line: 2, error: "page_type: must be one of product, listicle, advertorial, quiz, vsl, presell, collection, home" }]
        })
        const found = yield* explore(api_key, { q: "quokkaberry", type: ["vsl"], country: ["NZ"], language: ["mi"] }).pipe(
          Effect.ensuring(Effect.orDie(sql`delete from landers where domain = 'vsl.example'`))
        )
        expect(found.json.data).toEqual([{
          id: "ndjson-vsl", url: "https://vsl.example/watch", final_url: "https://vsl.example/watch", domain: "vsl.example", type: "vsl",
          title: fixtureLanders[0]!.title, headline: "Watch the quokkaberry story", niche: "home", platform: null, countries: ["NZ"], languages: ["en", "mi"],
          price: 29, currency: "USD", screenshot_url: null, store_id: "store-1", first_seen: null, last_seen: null, days_running: null,
          ads: { count: 0, ids: [] }
        }])
      }))

    it.effect("explore: a lander imported again with new values is filtered and counted by them, not by its old ones", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const record = records.find((l) => l.niche != null && l.platform != null && l.offer_price != null)!
        const old = { domain: [record.domain], niche: [record.niche], platform: [record.platform], country: record.countries ?? [] }
        const niche = record.niche === "home" ? "Fitness" : "Home"
        const changed = { ...record, niche, platform: "Quokkashop", offer_price: 777, countries: ["NZ"], page_type: "quiz" }
        const matches = (filters: Record<string, unknown>) =>
          Effect.map(explore(api_key, { ...filters, page_size: 100 }), (a) => (expect(a.status, a.body).toBe(200), {
            found: (a.json.data as Array<{ id: string }>).some((l) => l.id === record.external_id),
            total: a.json.total as number
          }))
        expect((yield* matches(old)).found).toBe(true)
        yield* ingestAll("landers", [changed])
        const now = { domain: [record.domain], niche: [niche.toLowerCase()], platform: ["QUOKKASHOP"], country: ["NZ"], type: ["quiz"], min_price: 777, max_price: 777 }
        expect(yield* matches(now)).toEqual({ found: true, total: 1 })
        expect((yield* matches(old)).found).toBe(false)
        yield* ingestAll("landers", [record])
        expect((yield* matches(old)).found).toBe(true)
        expect(yield* matches(now)).toEqual({ found: false, total: 0 })
      }))

    it.effect("explore: bad input is a 400 naming the field, keeps its credit and changes nothing", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const cases: Array<[unknown, string]> = [
          [{ sort: "relevance" }, "sort: relevance needs q"],
          [{ sort: "best" }, "sort: must be one of relevance, newest, most_ads, longest_running"],
          [{ type: ["blog"] }, "type.0: must be one of product, listicle, advertorial, quiz, vsl, presell, collection, home"],
          [{ min_ads: -1 }, "min_ads: must be an integer from 0 to 1000000000"],
          [{ min_ads: 5, max_ads: 2 }, "min_ads: must not be greater than max_ads"],
          [{ min_price: 50, max_price: 10 }, "min_price: must not be greater than max_price"],
          [{ first_seen_from: "1969-12-01", first_seen_to: "1969-11-01" }, "first_seen_from: must not be greater than first_seen_to"],
          [{ country: ["usa"] }, "country.0: must be an ISO 3166-1 alpha-2 country code such as US"],
          [{ page_size: 101 }, "page_size: must be an integer from 1 to 100"],
          [{ page: 101, page_size: 100 }, "page: at most 100 for page_size 100; narrow the search with its filters"],
          [{ colour: "red" }, "colour: unknown parameter"]
        ]
        for (const [body, error] of cases) {
          const answer = yield* explore(api_key, body as Record<string, unknown>)
          expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: JSON.stringify({ success: false, error }) })
        }
        expect((yield* balanceOf(id)).used).toBe(cases.length)
      }))

    it.effect("favorites: toggle and list exact to L1, per account; an unknown lander is a 404", () =>
      Effect.gen(function*() {
        const mine = yield* account()
        const theirs = yield* account()
        const [first, second] = [views[3]!.view, views[5]!.view]
        expect((yield* toggle(mine.api_key, first.id)).body).toBe(JSON.stringify({ success: true, favorited: true }))
        expect((yield* toggle(mine.api_key, second.id)).body).toBe(JSON.stringify({ success: true, favorited: true }))
        const list = yield* favorites(mine.api_key)
        expect(list.status).toBe(200)
        expect(Object.keys(list.json)).toEqual(["success", "data", "total", "page", "page_size"])
        expect(list.json).toMatchObject({ success: true, total: 2, page: 1, page_size: 20 })
        expect(list.json.data.map(({ favorited_at, ...lander }: any) => lander)).toEqual([second, first])
        expect(list.json.data[0].favorited_at).toBe("1970-01-01T00:00:00.000Z")
        expect((yield* favorites(mine.api_key, "?page=2&page_size=1")).json.data.map((l: any) => l.id)).toEqual([first.id])
        expect((yield* favorites(theirs.api_key)).json).toEqual({ success: true, data: [], total: 0, page: 1, page_size: 20 })
        expect((yield* toggle(mine.api_key, first.id)).body).toBe(JSON.stringify({ success: true, favorited: false }))
        expect((yield* favorites(mine.api_key)).json.data.map((l: any) => l.id)).toEqual([second.id])
        const unknown = yield* toggle(mine.api_key, "lander-nope")
        expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 404, body: JSON.stringify({ success: false, error: "Lander not found" }) })
        for (const [body, error] of [[{}, "id is missing"], [{ id: "a b" }, "id: must be 1 to 200 letters, digits or . _ : @ / -"]] as const) {
          const answer = yield* post(mine.api_key, "/api/v1/landers/favorites/toggle", body)
          expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: JSON.stringify({ success: false, error }) })
        }
        const bad = yield* favorites(mine.api_key, "?page_size=0")
        expect({ status: bad.status, body: bad.body }).toEqual({ status: 400, body: JSON.stringify({ success: false, error: "page_size: must be an integer from 1 to 100" }) })
        expect((yield* balanceOf(mine.id)).used).toBe(10)
      }))

    it.effect(`favorites: at most ${maxLanderFavorites} per account, exactly, with two toggles in flight`, () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const { api_key, id } = yield* account()
        // Landers nobody else uses, favorited straight in the table, up to one below the cap.
        yield* sql`
          insert into landers (external_id, url, domain, page_type, search_vector, fetched_at, source, method, content_hash)
          select 'cap-' || n, 'https://cap.example/' || n, 'cap.example', 'home', ''::tsvector, to_timestamp(0), 'test', 'manual', 'x'
            from generate_series(1, ${maxLanderFavorites - 1}) n`
        // With the rows the import writes beside a lander (IngestRepo.landerRows).
        yield* sql`insert into lander_ad_counts (lander_id, external_id) select id, external_id from landers where external_id like 'cap-%'`
        yield* sql`
          insert into lander_facets (lander_id, page_type, domain, countries, languages)
          select id, page_type, domain, countries, languages from landers where external_id like 'cap-%'`
        yield* sql`
          insert into lander_favorites (account_id, lander_id, created_at)
          select ${id}::uuid, id, to_timestamp(0) from landers where external_id like 'cap-%'`
        const full = JSON.stringify({ success: false, error: `Lander favorites are limited to ${maxLanderFavorites} per account` })
        const [a, b] = yield* Effect.all([toggle(api_key, views[0]!.view.id), toggle(api_key, views[1]!.view.id)], { concurrency: 2 })
        expect([a.status, b.status].sort()).toEqual([200, 400])
        expect([a, b].find((x) => x.status === 400)!.body).toBe(full)
        expect([a, b].find((x) => x.status === 200)!.body).toBe(JSON.stringify({ success: true, favorited: true }))
        expect((yield* favorites(api_key, "?page_size=1")).json.total).toBe(maxLanderFavorites)
        // At the cap: another is refused; removing one makes room for one.
        expect((yield* toggle(api_key, views[2]!.view.id)).body).toBe(full)
        expect((yield* toggle(api_key, "cap-1")).body).toBe(JSON.stringify({ success: true, favorited: false }))
        expect((yield* toggle(api_key, views[2]!.view.id)).body).toBe(JSON.stringify({ success: true, favorited: true }))
        expect((yield* favorites(api_key, "?page_size=1")).json.total).toBe(maxLanderFavorites)
        yield* sql`delete from landers where external_id like 'cap-%'`
        expect((yield* favorites(api_key, "?page_size=1")).json.total).toBe(2)
      }), { timeout: 60_000 })

    it.effect("metered like every route: no key 401, free plan 403, both free of charge; a failure is a 500 with the credit back", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const answer = yield* call("/api/v1/landers/explore", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
        expect(answer.status).toBe(401)
        const free = yield* account({ plan: "free" })
        expect((yield* explore(free.api_key, {})).status).toBe(403)
        expect((yield* balanceOf(free.id)).used).toBe(0)
        const { api_key, id } = yield* account()
        const ok = yield* explore(api_key, { page_size: 1 })
        expect(ok.headers.get("ratelimit-policy")).toMatch(/^"minute";q=\d+;w=60$/)
        yield* sql`alter table lander_favorites rename to lander_favorites_away`
        const failed = yield* favorites(api_key).pipe(Effect.ensuring(Effect.orDie(sql`alter table lander_favorites_away rename to lander_favorites`)))
        expect({ status: failed.status, body: failed.body }).toEqual({ status: 500, body: JSON.stringify({ success: false, error: "Internal server error" }) })
        expect((yield* balanceOf(id)).used).toBe(1)
      }))
  })
})
