import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ad as fixtureAd, advertisers as fixtureAdvertisers } from "./fixtures/world.js"
import { ingestAll, loadedSmallWorldServer, smallWorld as demo } from "./support/AdWorld.js"
import { account, balanceOf, call, keyHeader } from "./support/TestServer.js"

type Region = { region: string; impressions: { lower: number; upper: number | null } | null }
type DemoAd = {
  external_id: string
  library: string
  status: string
  format: string
  first_seen: string
  last_seen: string
  days_running: number
  headline: string | null
  description: string | null
  advertiser_external_id: string
  store_external_id: string | null
  search: { advertiser_verified: boolean; display_url: string; regions: Array<Region> } | null
}
const demoAds = Array.from(demo.records.ads()) as Array<DemoAd>
const demoStores = Array.from(demo.records.stores()) as Array<{ external_id: string; domain: string }>
const demoAdvertisers = Array.from(demo.records.advertisers()) as Array<
  { platform: string; external_id: string; name: string; domain: string; verified: boolean }
>

const prefix = "/api/v1/store/search-ads"
/** The search creatives of a demo store, newest first (no two share a first_seen: checked below). */
const creativesOf = (storeId: string) =>
  demoAds
    .filter((ad) => ad.library === "search" && ad.store_external_id === storeId)
    .sort((a, b) => b.first_seen.localeCompare(a.first_seen))

// The demo store with the most search creatives; one with none.
const storeCounts = demoStores.map((store) => ({ store, n: creativesOf(store.external_id).length }))
const store = storeCounts.sort((a, b) => b.n - a.n)[0]!.store
const creatives = creativesOf(store.external_id)
const otherStore = storeCounts.find(({ n, store: s }) => n > 0 && s !== store)!.store
const quietStores = storeCounts.filter(({ n }) => n === 0).map(({ store: s }) => s)

const get = (key: string, path: string) => Effect.map(call(path, keyHeader(key)), (a) => ({ ...a, json: JSON.parse(a.body) }))
const query = (params: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()
const byStoreId = { store_id: store.external_id }
const byDomain = { domain: store.domain }

/** Every page of the list, with the answers' totals; `calls` counts the requests made. */
const walk = (key: string, params: Record<string, string | number>, pageSize: number) =>
  Effect.gen(function*() {
    const items: Array<{ id: string }> = []
    const totals = new Set<number>()
    for (let page = 1; ; page++) {
      const answer = yield* get(key, `${prefix}?${query({ ...params, page, page_size: pageSize })}`)
      expect(answer.status).toBe(200)
      expect(Object.keys(answer.json)).toEqual(["success", "data", "total", "page", "page_size"])
      expect(answer.json).toMatchObject({ success: true, page, page_size: pageSize })
      totals.add(answer.json.total)
      items.push(...answer.json.data)
      if (answer.json.data.length < pageSize) return { items, totals: [...totals], calls: page }
    }
  })

/** Items grouped by a key, in first-seen order. */
const groupBy = <A>(items: ReadonlyArray<A>, key: (a: A) => string) => {
  const groups = new Map<string, Array<A>>()
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item])
  return [...groups]
}
const regionsOf = (ads: ReadonlyArray<DemoAd>) => ads.flatMap((ad) => ad.search!.regions.map((r) => r.region))
const countsOf = (values: ReadonlyArray<string>, key: string) =>
  groupBy(values, (v) => v).map(([value, all]) => ({ [key]: value, count: all.length }))
    .sort((a, b) => b.count - a.count || String(a[key]).localeCompare(String(b[key])))

const DAY = 86_400_000
const mondayOf = (instant: string) => {
  const d = new Date(instant)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - ((d.getUTCDay() + 6) % 7))
}
/** Brute force: every week from the first shown to the last, the creatives shown in it. */
const weeksOf = (ads: ReadonlyArray<Pick<DemoAd, "first_seen" | "last_seen">>) => {
  const first = mondayOf(ads.map((a) => a.first_seen).sort()[0]!)
  const last = mondayOf(ads.map((a) => a.last_seen).sort().at(-1)!)
  const weeks = []
  for (let week = first; week <= last; week += 7 * DAY) {
    weeks.push({
      week: new Date(week).toISOString().slice(0, 10),
      active: ads.filter((a) => Date.parse(a.first_seen) < week + 7 * DAY && Date.parse(a.last_seen) >= week).length
    })
  }
  return weeks
}

const expectedCreative = (ad: DemoAd) => ({
  id: ad.external_id,
  headline: ad.headline,
  description: ad.description,
  display_url: ad.search!.display_url,
  advertiser_verified: ad.search!.advertiser_verified,
  first_shown: ad.first_seen,
  last_shown: ad.last_seen,
  days_running: ad.days_running,
  regions: ad.search!.regions
})

const error = (status: number, message: string) => [status, JSON.stringify({ success: false, error: message })]

describe("store search ads", () => {
  layer(loadedSmallWorldServer(), { timeout: 60_000 })((it) => {
    it("the small world holds what the tests below stand on", () => {
      expect(creatives.length).toBeGreaterThan(10)
      expect(new Set(creatives.map((ad) => ad.first_seen)).size).toBe(creatives.length)
      expect(quietStores.length).toBeGreaterThan(1)
    })

    it.effect("the list: newest first, every page walked, by store_id and by domain alike; 1 credit a call", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const expected = creatives.map((ad) => ad.external_id)
        const byId = yield* walk(api_key, byStoreId, 5)
        expect(byId.items.map((ad) => ad.id)).toEqual(expected)
        expect(byId.totals).toEqual([creatives.length])
        const byName = yield* walk(api_key, byDomain, 5)
        expect(byName.items).toEqual(byId.items)
        // the default page is 20, and a page holds up to 100
        const first = yield* get(api_key, `${prefix}?${query(byStoreId)}`)
        expect(first.json).toMatchObject({ total: creatives.length, page: 1, page_size: 20 })
        expect(first.json.data).toEqual(byId.items.slice(0, 20))
        const whole = yield* get(api_key, `${prefix}?${query({ ...byDomain, page_size: 100 })}`)
        expect(whole.json.data).toEqual(byId.items)
        expect((yield* balanceOf(id)).used).toBe(byId.calls + byName.calls + 2)
      }))

    it.effect("the list's items are the ad view of the other routes", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const answer = yield* get(api_key, `${prefix}?${query({ ...byStoreId, page_size: 100 })}`)
        for (const [item, ad] of answer.json.data.map((item: unknown, i: number) => [item, creatives[i]!] as const)) {
          expect(item).toMatchObject({
            id: ad.external_id,
            library: "search",
            status: ad.status,
            format: ad.format,
            first_seen: ad.first_seen,
            last_seen: ad.last_seen,
            days_running: ad.days_running,
            headline: ad.headline,
            advertiser: { id: ad.advertiser_external_id },
            store_id: store.external_id,
            search: ad.search
          })
        }
        // the same view as the search-engine ad search shows
        const searched = yield* get(api_key, "/api/v1/search-ads?limit=50")
        const shared = searched.json.data.filter((ad: { store_id: string }) => ad.store_id === store.external_id)
        expect(shared.length).toBeGreaterThan(0)
        for (const ad of shared) expect(answer.json.data.find((item: { id: string }) => item.id === ad.id)).toEqual(ad)
      }))

    it.effect("filters: status, region, first_seen days; count agrees with the list", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const day = creatives[Math.floor(creatives.length / 2)]!.first_seen.slice(0, 10)
        const cases: Array<[Record<string, string>, (ad: DemoAd) => boolean]> = [
          [{ status: "inactive" }, (ad) => ad.status === "inactive"],
          [{ status: "active" }, (ad) => ad.status === "active"],
          [{ region: "US" }, (ad) => ad.search!.regions.some((r) => r.region === "US")],
          [{ region: "GB", status: "inactive" }, (ad) => ad.status === "inactive" && ad.search!.regions.some((r) => r.region === "GB")],
          [{ first_seen_from: day }, (ad) => ad.first_seen.slice(0, 10) >= day],
          [{ first_seen_to: day }, (ad) => ad.first_seen.slice(0, 10) <= day],
          [{ first_seen_from: day, first_seen_to: day }, (ad) => ad.first_seen.slice(0, 10) === day],
          [{ region: "JP" }, () => false]
        ]
        for (const [filters, keep] of cases) {
          const expected = creatives.filter(keep)
          if (filters.region !== "JP") expect([filters, expected.length]).not.toEqual([filters, 0])
          const { items, totals } = yield* walk(api_key, { ...byStoreId, ...filters }, 4)
          expect([filters, items.map((ad) => ad.id), totals]).toEqual([filters, expected.map((ad) => ad.external_id), [expected.length]])
          const counted = yield* get(api_key, `${prefix}/count?${query({ ...byDomain, ...filters })}`)
          expect([filters, counted.json]).toEqual([filters, {
            success: true,
            total: expected.length,
            active: expected.filter((ad) => ad.status === "active").length
          }])
        }
      }))

    it.effect("count, overview and advertiser against a brute-force pass over the generated records", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const active = creatives.filter((ad) => ad.status === "active").length
        for (const selector of [byStoreId, byDomain]) {
          const count = yield* get(api_key, `${prefix}/count?${query(selector)}`)
          expect([count.status, count.json]).toEqual([200, { success: true, total: creatives.length, active }])

          const overview = yield* get(api_key, `${prefix}/overview?${query(selector)}`)
          expect(overview.status).toBe(200)
          expect(overview.json).toEqual({
            success: true,
            total: creatives.length,
            active,
            first_shown: creatives.map((ad) => ad.first_seen).sort()[0],
            last_shown: creatives.map((ad) => ad.last_seen).sort().at(-1),
            by_format: countsOf(creatives.map((ad) => ad.format), "format"),
            by_region: countsOf(regionsOf(creatives), "region"),
            active_over_time: weeksOf(creatives)
          })
          expect(overview.json.active_over_time.length).toBeGreaterThan(4)

          const advertiser = yield* get(api_key, `${prefix}/advertiser?${query(selector)}`)
          const owners = groupBy(creatives, (ad) => ad.advertiser_external_id)
            .sort(([a, x], [b, y]) => y.length - x.length || a.localeCompare(b))
          expect(advertiser.json).toEqual({
            success: true,
            data: owners.map(([owner, ads]) => {
              const profile = demoAdvertisers.find((adv) => adv.platform === "search" && adv.external_id === owner)!
              return {
                id: owner,
                name: profile.name,
                domain: profile.domain,
                verified: profile.verified,
                creatives: ads.length,
                active: ads.filter((ad) => ad.status === "active").length,
                first_shown: ads.map((ad) => ad.first_seen).sort()[0],
                last_shown: ads.map((ad) => ad.last_seen).sort().at(-1),
                regions: [...new Set(regionsOf(ads))].sort()
              }
            })
          })
        }
        expect((yield* balanceOf(id)).used).toBe(6)
      }))

    it.effect("detail and creative: one creative of the store, by store_id and by domain", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const list = yield* get(api_key, `${prefix}?${query({ ...byStoreId, page_size: 100 })}`)
        let calls = 1
        for (const [i, ad] of creatives.entries()) {
          const selector = i % 2 === 0 ? byStoreId : byDomain
          const creative = yield* get(api_key, `${prefix}/creative?${query({ ...selector, id: ad.external_id })}`)
          expect([creative.status, creative.json]).toEqual([200, { success: true, data: expectedCreative(ad) }])
          const detail = yield* get(api_key, `${prefix}/detail?${query({ ...selector, id: ad.external_id })}`)
          expect([detail.status, detail.json]).toEqual([200, { success: true, data: list.json.data[i] }])
          calls += 2
        }
        // impression ranges, absent ones included, come through as generated
        expect(creatives.flatMap((ad) => ad.search!.regions).some((r) => r.impressions === null)).toBe(true)
        expect((yield* balanceOf(id)).used).toBe(calls)
      }))

    it.effect("a store without search creatives: empty answers, not 404", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const quiet = { store_id: quietStores[0]!.external_id }
        expect((yield* get(api_key, `${prefix}?${query(quiet)}`)).json).toEqual({ success: true, data: [], total: 0, page: 1, page_size: 20 })
        expect((yield* get(api_key, `${prefix}/count?${query(quiet)}`)).json).toEqual({ success: true, total: 0, active: 0 })
        expect((yield* get(api_key, `${prefix}/overview?${query(quiet)}`)).json).toEqual({
          success: true,
          total: 0,
          active: 0,
          first_shown: null,
          last_shown: null,
          by_format: [],
          by_region: [],
          active_over_time: []
        })
        expect((yield* get(api_key, `${prefix}/advertiser?${query(quiet)}`)).json).toEqual({ success: true, data: [] })
      }))

    it.effect("several advertisers: most creatives first, regions merged; at most 104 weeks, the latest", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const target = quietStores[1]!
        const searchAd = (externalId: string, advertiser: string, first_seen: string, last_seen: string, regions: ReadonlyArray<string>) =>
          fixtureAd(externalId, {
            library: "search",
            advertiser_external_id: advertiser,
            status: "inactive",
            first_seen,
            last_seen,
            start_date: null,
            format: "text",
            media: [],
            body: null,
            cta: null,
            lander_external_id: null,
            store_external_id: target.external_id,
            impressions: null,
            spend: null,
            engagement: null,
            ai_tags: null,
            search: {
              advertiser_verified: false,
              display_url: `${target.domain}/sale`,
              regions: regions.map((region) => ({ region, impressions: { lower: 1_000, upper: 4_999 } }))
            }
          })
        const added = [
          searchAd("sx-1", "adv-9", "1960-01-06T10:00:00Z", "1969-12-20T10:00:00Z", ["US", "GB"]),
          searchAd("sx-2", "adv-9", "1968-03-01T00:00:00Z", "1968-04-01T00:00:00Z", ["CA"]),
          // first seen with sx-2: the later imported (the higher id) comes first
          searchAd("sx-3", "adv-10", "1968-03-01T00:00:00Z", "1969-07-01T00:00:00Z", ["US"])
        ]
        // adv-9 is a fixture reference the world loaded with; adv-10 bids too
        yield* ingestAll("advertisers", [{ ...fixtureAdvertisers[1]!, external_id: "adv-10", name: "Other Bidder", verified: true, domain: "bidder.example" }])
        // one import at a time: a batch's rows get their ids in no particular order
        for (const ad of added) yield* ingestAll("ads", [ad])

        const answer = yield* get(api_key, `${prefix}/advertiser?${query({ domain: target.domain })}`)
        expect(answer.json).toEqual({
          success: true,
          data: [
            {
              id: "adv-9",
              name: "GlowLab Inc.",
              domain: null,
              verified: false,
              creatives: 2,
              active: 0,
              first_shown: "1960-01-06T10:00:00Z",
              last_shown: "1969-12-20T10:00:00Z",
              regions: ["CA", "GB", "US"]
            },
            {
              id: "adv-10",
              name: "Other Bidder",
              domain: "bidder.example",
              verified: true,
              creatives: 1,
              active: 0,
              first_shown: "1968-03-01T00:00:00Z",
              last_shown: "1969-07-01T00:00:00Z",
              regions: ["US"]
            }
          ]
        })

        const list = yield* get(api_key, `${prefix}?${query({ store_id: target.external_id })}`)
        expect([list.json.total, list.json.data.map((ad: { id: string }) => ad.id)]).toEqual([3, ["sx-3", "sx-2", "sx-1"]])

        const overview = yield* get(api_key, `${prefix}/overview?${query({ store_id: target.external_id })}`)
        const weeks = weeksOf(added)
        expect(weeks.length).toBeGreaterThan(104)
        expect(overview.json).toMatchObject({
          total: 3,
          first_shown: "1960-01-06T10:00:00Z",
          last_shown: "1969-12-20T10:00:00Z",
          by_format: [{ format: "text", count: 3 }],
          by_region: [{ region: "US", count: 2 }, { region: "CA", count: 1 }, { region: "GB", count: 1 }]
        })
        expect(overview.json.active_over_time).toEqual(weeks.slice(-104))
        expect(overview.json.active_over_time.at(-1)).toEqual({ week: "1969-12-15", active: 1 })
      }))

    it.effect("404: an unknown store, a creative of another store or library; the credit is kept (G4)", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const foreign = creativesOf(otherStore.external_id)[0]!.external_id
        const social = demoAds.find((ad) => ad.library === "social" && ad.store_external_id === store.external_id)!.external_id
        const cases: Array<[string, string]> = [
          [`${prefix}?store_id=store-nope`, "Store not found"],
          [`${prefix}?domain=nope.example`, "Store not found"],
          [`${prefix}/count?store_id=store-nope`, "Store not found"],
          [`${prefix}/overview?domain=nope.example`, "Store not found"],
          [`${prefix}/advertiser?store_id=store-nope`, "Store not found"],
          [`${prefix}/detail?store_id=store-nope&id=${creatives[0]!.external_id}`, "Store not found"],
          [`${prefix}/detail?${query({ ...byStoreId, id: foreign })}`, "Creative not found"],
          [`${prefix}/creative?${query({ ...byDomain, id: foreign })}`, "Creative not found"],
          [`${prefix}/detail?${query({ ...byStoreId, id: social })}`, "Creative not found"],
          [`${prefix}/creative?${query({ ...byStoreId, id: "search-nope" })}`, "Creative not found"]
        ]
        for (const [path, message] of cases) {
          const answer = yield* call(path, keyHeader(api_key))
          expect([path, answer.status, answer.body]).toEqual([path, ...error(404, message)])
          expect(answer.headers.get("content-type")).toContain("application/json")
        }
        expect((yield* balanceOf(id)).used).toBe(cases.length)
      }))

    it.effect("400: the store named by neither or both, bad values, unknown parameters; the credit is kept (G4, G11)", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const s = `store_id=${store.external_id}`
        const cases: Array<[string, string]> = [
          [prefix, "store_id or domain is missing"],
          [`${prefix}/overview`, "store_id or domain is missing"],
          [`${prefix}?${s}&domain=${store.domain}`, "domain: send store_id or domain, not both"],
          [`${prefix}/advertiser?${s}&domain=${store.domain}`, "domain: send store_id or domain, not both"],
          [`${prefix}?domain=GlowLab.example`, "domain: must be a lowercase domain name such as shop.example.com"],
          [`${prefix}/count?domain=https://glowlab.example/`, "domain: must be a lowercase domain name such as shop.example.com"],
          [`${prefix}?store_id=`, "store_id: must be 1 to 200 letters, digits or . _ : @ / -"],
          [`${prefix}?${s}&page_size=101`, "page_size: must be an integer from 1 to 100"],
          [`${prefix}?${s}&page_size=0`, "page_size: must be an integer from 1 to 100"],
          [`${prefix}?${s}&page=0`, "page: must be an integer from 1 to 10000"],
          [`${prefix}?${s}&page=two`, "page: must be an integer from 1 to 10000"],
          [`${prefix}?${s}&page=501`, "page: at most 500 for page_size 20; narrow the list with status, region or first_seen_from/first_seen_to"],
          [`${prefix}?${s}&colour=red`, "colour: unknown parameter"],
          [`${prefix}/count?${s}&page=1`, "page: unknown parameter"],
          [`${prefix}/overview?${s}&status=active`, "status: unknown parameter"],
          [`${prefix}?${s}&status=paused`, "status: must be one of active, inactive"],
          [`${prefix}?${s}&region=usa`, "region: must be an ISO 3166-1 alpha-2 country code such as US"],
          [`${prefix}?${s}&first_seen_from=1969-02-30`, "first_seen_from: must be a date YYYY-MM-DD from 1900-01-01 to 2999-12-31"],
          [`${prefix}/count?${s}&first_seen_from=1969-12-01&first_seen_to=1969-11-01`, "first_seen_from: must not be after first_seen_to"],
          [`${prefix}/detail?${s}`, "id is missing"],
          [`${prefix}/creative?${s}&id=not%20an%20id`, "id: must be 1 to 200 letters, digits or . _ : @ / -"]
        ]
        for (const [path, message] of cases) {
          const answer = yield* call(path, keyHeader(api_key))
          expect([path, answer.status, answer.body]).toEqual([path, ...error(400, message)])
        }
        expect((yield* balanceOf(id)).used).toBe(cases.length)
        // the key itself may come in the query string (spec: Authentication)
        const keyed = yield* call(`${prefix}/count?${s}&api_key=${api_key}`)
        expect([keyed.status, JSON.parse(keyed.body).total]).toEqual([200, creatives.length])
        expect((yield* balanceOf(id)).used).toBe(cases.length + 1)
      }))

    it.effect("paging stops at page × page_size = 10,000", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const at = (page: number, page_size: number) => get(api_key, `${prefix}?${query({ ...byStoreId, page, page_size })}`)
        for (const [page, size] of [[500, 20], [100, 100], [10_000, 1]] as const) {
          const answer = yield* at(page, size)
          expect([page, size, answer.status, answer.json]).toEqual([page, size, 200, { success: true, data: [], total: creatives.length, page, page_size: size }])
        }
        const last = yield* at(creatives.length, 1)
        expect(last.json.data.map((ad: { id: string }) => ad.id)).toEqual([creatives.at(-1)!.external_id])
        for (const [page, size, message] of [
          [501, 20, "page: at most 500 for page_size 20"],
          [101, 100, "page: at most 100 for page_size 100"],
          [3_334, 3, "page: at most 3333 for page_size 3"]
        ] as const) {
          const answer = yield* at(page, size)
          expect([answer.status, answer.json]).toEqual([400, {
            success: false,
            error: `${message}; narrow the list with status, region or first_seen_from/first_seen_to`
          }])
        }
        expect((yield* at(10_001, 1)).json.error).toBe("page: must be an integer from 1 to 10000")
        expect((yield* balanceOf(id)).used).toBe(8)
      }))

    it.effect("every route is in the OpenAPI document, with a summary and described parameters", () =>
      Effect.gen(function*() {
        const spec = JSON.parse((yield* call("/openapi.json")).body)
        for (const path of [prefix, `${prefix}/count`, `${prefix}/detail`, `${prefix}/overview`, `${prefix}/advertiser`, `${prefix}/creative`]) {
          const operation = spec.paths[path]?.get
          expect([path, typeof operation?.summary]).toEqual([path, "string"])
          expect(operation.security.length).toBe(3)
          const parameters: Array<{ name: string; in: string; description?: string }> = operation.parameters
          expect(parameters.map((p) => p.name)).toEqual(expect.arrayContaining(["store_id", "domain", "api_key"]))
          for (const parameter of parameters) {
            // our own words, not the schema's generated "a string matching the pattern ..."
            const described = typeof parameter.description === "string" && parameter.description !== "" && !parameter.description.startsWith("a string")
            expect([path, parameter.name, described]).toEqual([path, parameter.name, true])
          }
          expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "404", "429", "500"]))
        }
      }))
  })
})
