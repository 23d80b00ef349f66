import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import * as Statement from "@effect/sql/Statement"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { AdIntelApi } from "../src/app/Api.js"
import { Ingest } from "../src/ingest/Ingest.js"
import { ShopRollups } from "../src/shop/search/ShopRollups.js"
import { type SuggestionType, suggestionTypes } from "../src/shop/search/Api.js"
import { ShopSearch, SuggestionReach } from "../src/shop/search/ShopSearch.js"
import { recordsOf, smallWorld, SmallWorldDatabase, subtreeOf, sumOver, type WorldRecord } from "./support/AdWorld.js"
import { account, balanceOf, call, keyHeader, signIn, TestServer, testServer } from "./support/TestServer.js"

/**
 * Trending, search and suggestions of the short-video shop against brute-force answers from the
 * small world's records (TestClock at 0: "today" is 1970-01-01, its metrics end 1969-12-31).
 */
type Rec = WorldRecord
const all = (entity: string) => recordsOf(entity as keyof typeof smallWorld.records)
const categories = all("shop-categories")
const products = all("shop-products")
const shops = all("shop-shops")
const creators = all("shop-creators")

const subtree = subtreeOf
const dayBefore = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10)
const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Trending by brute force: both windows summed from the series, growth, highest first. */
const trendingOf = (region: string, metric: string, days: number, categoryId?: string) => {
  const to = "1969-12-31"
  const from = dayBefore(to, days - 1)
  const [previousFrom, previousTo] = [dayBefore(from, days), dayBefore(from, 1)]
  const inside = categoryId === undefined ? undefined : subtree(region, categoryId)
  return products
    .filter((p) => p.region === region && (inside === undefined || inside.has(p.category_external_id)))
    .map((p) => ({ id: p.external_id, current: sumOver("product", p, metric, from, to), previous: sumOver("product", p, metric, previousFrom, previousTo) }))
    .filter((p): p is { id: string; current: number; previous: number } => (p.current ?? 0) > 0 && (p.previous ?? 0) > 0)
    .map((p) => ({ ...p, growth: (p.current - p.previous) / p.previous }))
    .sort((a, b) => b.growth - a.growth || b.current - a.current || byteOrder(a.id, b.id))
}

/** pg_trgm's trigrams of a text: each word (letters and digits), lowercased, padded. */
const trigrams = (text: string) => {
  const found = new Set<string>()
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w !== "")) {
    const padded = `  ${word} `
    for (let i = 0; i + 3 <= padded.length; i++) found.add(padded.slice(i, i + 3))
  }
  return found
}
/** The share of the query's trigrams a title holds: at least its word similarity. */
const shared = (q: string, title: string) => {
  const wanted = trigrams(q)
  const held = trigrams(title)
  return [...wanted].filter((t) => held.has(t)).length / wanted.size
}

const separators = ` !"#$%&'()*+,./:;<=>?@[\\]^_\`{|}~-`
const letterOrDigit = (c: string) => /[\p{L}\p{N}]/u.test(c)
/** Whether a string starts with the prefix, has a later word starting with it, or neither. */
const classOf = (text: string, prefix: string): "start" | "later" | null => {
  const [t, p] = [text.toLowerCase(), prefix.toLowerCase()]
  if (t.startsWith(p)) return "start"
  if (![...p].some(letterOrDigit)) return null
  for (let i = 1; i < t.length; i++) {
    if (t.startsWith(p, i) && (!letterOrDigit(p[0]!) || separators.includes(t[i - 1]!))) return "later"
  }
  return null
}
/** Each type's strings with their popularity. */
const strings: Record<SuggestionType, (region: string) => Array<{ text: string; id: string; popularity: number | null }>> = {
  products: (region) => products.filter((r) => r.region === region).map((r) => ({ text: r.title, id: r.external_id, popularity: r.reviews })),
  shops: (region) => shops.filter((r) => r.region === region).map((r) => ({ text: r.name, id: r.external_id, popularity: r.followers })),
  creators: (region) => creators.filter((r) => r.region === region).map((r) => ({ text: r.handle, id: r.external_id, popularity: r.followers })),
  categories: (region) =>
    categories.filter((r) => r.region === region).map((r) => ({
      text: r.name,
      id: r.external_id,
      popularity: sumOver("category", r, "gmv", "1969-12-02", "1969-12-31")
    }))
}
/** Most popular first, ties by id in byte order (a missing popularity last). */
const popularFirst = (a: { popularity: number | null; id: string }, b: { popularity: number | null; id: string }) =>
  (b.popularity ?? -Infinity) - (a.popularity ?? -Infinity) || byteOrder(a.id, b.id)
/** Suggestions by brute force: per class, the types take turns, each its next most popular string. */
const suggestionsOf = (region: string, prefix: string, types: ReadonlyArray<SuggestionType> = suggestionTypes, limit = 10) => {
  const lists = (which: "start" | "later") =>
    suggestionTypes.filter((type) => types.includes(type)).map((type) => {
      const seen = new Set<string>()
      return strings[type](region)
        .filter((s) => classOf(s.text, prefix) === which)
        .sort(popularFirst)
        .filter((s) => !seen.has(s.text.toLowerCase()) && seen.add(s.text.toLowerCase()) !== undefined)
        .slice(0, limit)
        .map((s) => ({ text: s.text, type, id: s.id }))
    })
  const merged: Array<{ text: string; type: SuggestionType; id: string }> = []
  for (const perType of [lists("start"), lists("later")]) {
    for (let rank = 0; rank < limit; rank++) for (const list of perType) if (list[rank]) merged.push(list[rank]!)
  }
  return merged.slice(0, limit)
}

/** US titles' words of four letters or more, the commonest first. */
const titleWords = (() => {
  const words = new Map<string, number>()
  for (const p of products.filter((p) => p.region === "US")) {
    for (const w of new Set<string>(p.title.toLowerCase().split(/[^a-z]+/))) if (w.length >= 4) words.set(w, (words.get(w) ?? 0) + 1)
  }
  return [...words].sort((a, b) => b[1] - a[1] || byteOrder(a[0], b[0]))
})()

const get = (key: string, path: string) => Effect.map(call(path, keyHeader(key)), (a) => ({ ...a, json: JSON.parse(a.body) }))
const prefix = "/api/v1/clipapp-shop"
const query = (params: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()
const ids = (json: { data: Array<{ id: string }> }) => json.data.map((r) => r.id)
/** Whether a statement reads the catalog's own tables (not the strings summed ahead). */
const readsCatalog = (text: string) => /\bshop_(products|shops|creators|categories)\b/.test(text)
/** An effect's answer and the text of each statement it ran. */
const textsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const statements: Array<string> = []
    return effect.pipe(
      Statement.withTransformer((statement) => Effect.sync(() => (statements.push(statement.compile()[0]), statement))),
      Effect.map((answer) => ({ answer, statements }))
    )
  })
const close = (a: number, b: number) => Math.abs(a - b) < 0.01

describe("short-video shop trending, search and suggestions", () => {
  layer(
    Layer.mergeAll(testServer({ config: { rateLimitPerMinute: 100_000 } }), ShopSearch.Default).pipe(
      Layer.provideMerge(Ingest.Default),
      Layer.provideMerge(SmallWorldDatabase)
    )
  )((it) => {
    it.effect("trending ranks products by growth over the last days against the days before, as a brute-force pass does", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const top = categories.find((c) => c.region === "US" && c.level === 1 && products.some((p) => subtree("US", c.external_id).has(p.category_external_id)))!
        const cases: Array<[Record<string, string | number>, ReturnType<typeof trendingOf>]> = [
          [{ page_size: 100 }, trendingOf("US", "gmv", 7)],
          [{ metric: "units", days: 3, page_size: 100 }, trendingOf("US", "units", 3)],
          [{ metric: "views", days: 5, country: "GB", page_size: 100 }, trendingOf("GB", "views", 5)],
          [{ category_id: top.external_id, days: 6, page_size: 100 }, trendingOf("US", "gmv", 6, top.external_id)],
          [{ days: 1, metric: "units", page_size: 100 }, trendingOf("US", "units", 1)]
        ]
        for (const [params, expected] of cases) {
          expect(expected.length).toBeGreaterThan(2)
          const answer = yield* get(api_key, `${prefix}/trending?${query(params)}`)
          expect([params, answer.status, answer.json.total]).toEqual([params, 200, expected.length])
          expect(ids(answer.json)).toEqual(expected.map((e) => e.id))
          for (const [row, e] of answer.json.data.map((row: Rec, i: number) => [row, expected[i]!] as const)) {
            expect(row.growth).toBeCloseTo(e.growth, 3)
            expect([close(row.current, e.current), close(row.previous, e.previous)]).toEqual([true, true])
          }
        }
        // The items are the products-explore view, its period the window.
        const first = (yield* get(api_key, `${prefix}/trending?days=7`)).json.data[0]
        expect(first.period.date_from).toBe("1969-12-25")
        expect(first.period.date_to).toBe("1969-12-31")
        expect(first.period.metrics.gmv_growth).toBeCloseTo(first.growth, 4)
        const explored = (yield* get(api_key, `${prefix}/products/explore?${query({ date_from: "1969-12-25", date_to: "1969-12-31", keyword: first.title, page_size: 100 })}`))
          .json.data.find((r: Rec) => r.id === first.id)
        expect(Object.keys(first).sort()).toEqual([...Object.keys(explored), "growth", "current", "previous"].sort())
        expect({ ...first, growth: undefined, current: undefined, previous: undefined }).toEqual({ ...explored, growth: undefined, current: undefined, previous: undefined })
        // Fourteen days back, the window before holds no data: nothing trends.
        expect((yield* get(api_key, `${prefix}/trending?days=14`)).json).toEqual({ success: true, data: [], total: 0, page: 1, page_size: 20 })
      }))

    it.effect("trending pages (P2) up to page × page_size = 10,000, the total on every page", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const expected = trendingOf("US", "gmv", 7).map((e) => e.id)
        const second = yield* get(api_key, `${prefix}/trending?page=2&page_size=3`)
        expect(second.json).toMatchObject({ total: expected.length, page: 2, page_size: 3 })
        expect(ids(second.json)).toEqual(expected.slice(3, 6))
        const last = yield* get(api_key, `${prefix}/trending?page=100&page_size=100`)
        expect(last.json).toEqual({ success: true, data: [], total: expected.length, page: 100, page_size: 100 })
        const defaults = yield* get(api_key, `${prefix}/trending`)
        expect([defaults.json.page, defaults.json.page_size, defaults.json.data.length]).toEqual([1, 20, Math.min(20, expected.length)])
      }))

    it.effect("search finds products by the words of their title, best match first, the exact title first of all", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const us = products.filter((p) => p.region === "US")
        // The commonest word of US titles, and one in a single title.
        for (const [word] of [titleWords[0]!, titleWords.find(([, n]) => n === 1)!]) {
          const answer = yield* get(api_key, `${prefix}/search?q=${word.toUpperCase()}&page_size=100`)
          expect(answer.status).toBe(200)
          const holding = us.filter((p) => new RegExp(`\\b${word}\\b`, "i").test(p.title)).map((p) => p.external_id)
          expect(ids(answer.json)).toEqual(expect.arrayContaining(holding))
          expect(answer.json.total).toBe(answer.json.data.length)
          for (const row of answer.json.data) {
            expect([row.title, shared(word, row.title) >= 0.6]).toEqual([row.title, true])
            expect(row.relevance).toBeGreaterThan(0)
            expect(row.relevance).toBeLessThanOrEqual(1)
          }
          const relevance = answer.json.data.map((r: Rec) => r.relevance)
          expect(relevance).toEqual([...relevance].sort((a, b) => b - a))
        }
        // A product's exact title: that product first (of equal titles, the most reviewed), relevance 1.
        for (const product of [us[0]!, us[us.length - 1]!]) {
          const answer = yield* get(api_key, `${prefix}/search?q=${encodeURIComponent(product.title)}`)
          const same = us.filter((p) => p.title.toLowerCase() === product.title.toLowerCase())
            .sort((a, b) => b.reviews - a.reviews || byteOrder(a.external_id, b.external_id))
          expect(answer.json.data[0]).toMatchObject({ id: same[0]!.external_id, title: same[0]!.title, relevance: 1 })
          for (const row of answer.json.data.slice(0, same.length)) expect(row.title.toLowerCase()).toBe(product.title.toLowerCase())
          for (const row of answer.json.data.slice(same.length)) expect(row.relevance).toBeLessThan(1)
          for (const row of answer.json.data) expect(shared(product.title, row.title)).toBeGreaterThanOrEqual(0.6)
        }
        // A misspelt word finds the titles holding the word.
        const long = titleWords.find(([w]) => w.length >= 6)![0]
        const typo = `${long.slice(0, -1)}${long.endsWith("x") ? "y" : "x"}`
        const misspelt = ids((yield* get(api_key, `${prefix}/search?q=${typo}&page_size=100`)).json)
        expect(misspelt).toEqual(expect.arrayContaining(us.filter((p) => p.title.toLowerCase().includes(long)).map((p) => p.external_id)))
        // Words in another order still find the title.
        const two = us.find((p) => p.title.split(" ").length >= 3)!
        const [a, b] = two.title.split(" ")
        expect(ids((yield* get(api_key, `${prefix}/search?q=${encodeURIComponent(`${b} ${a}`)}&page_size=100`)).json)).toContain(two.external_id)
        // In GB, only GB products; nothing matches gibberish.
        const gb = yield* get(api_key, `${prefix}/search?q=${encodeURIComponent(titleWords[0]![0])}&country=GB&page_size=100`)
        for (const row of gb.json.data) expect(row.region).toBe("GB")
        expect((yield* get(api_key, `${prefix}/search?q=qqxxzz`)).json).toEqual({ success: true, data: [], total: 0, page: 1, page_size: 20 })
        // The view is explore's, its period the 30 days up to yesterday.
        const one = (yield* get(api_key, `${prefix}/search?q=${encodeURIComponent(us[0]!.title)}`)).json.data[0]
        const explored = (yield* get(api_key, `${prefix}/products/explore?keyword=${encodeURIComponent(one.title)}&page_size=100`)).json.data
          .find((r: Rec) => r.id === one.id)
        expect({ ...one, relevance: undefined }).toEqual({ ...explored, relevance: undefined })
      }))

    it.effect("search pages (P2): pages are slices of one order, the total on every page, up to page × page_size = 10,000", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const word = titleWords[0]![0]
        const everything = (yield* get(api_key, `${prefix}/search?q=${word}&page_size=100`)).json
        expect(everything.total).toBeGreaterThan(3)
        const second = (yield* get(api_key, `${prefix}/search?q=${word}&page=2&page_size=2`)).json
        expect(second).toMatchObject({ total: everything.total, page: 2, page_size: 2 })
        expect(ids(second)).toEqual(ids(everything).slice(2, 4))
        const far = yield* get(api_key, `${prefix}/search?q=${word}&page=10000&page_size=1`)
        expect(far.json).toEqual({ success: true, data: [], total: everything.total, page: 10000, page_size: 1 })
      }))

    it.effect("suggestions complete a prefix from every type's strings as a brute-force pass does", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const product = products.find((p) => p.region === "US" && p.title.includes(" "))!
        const laterWord = product.title.split(" ")[1]!
        const prefixes = [
          "s", "se", "b", "P", "@", "@its", "(", "(b", "-", "zzz",
          product.title.slice(0, 4), laterWord.slice(0, 3), shops[0]!.name.slice(0, 3), creators[0]!.handle.slice(0, 4),
          creators[0]!.handle.slice(1, 4), categories[0]!.name.slice(0, 2), categories.find((c) => c.level === 3)!.name
        ]
        for (const country of ["US", "GB"]) {
          for (const typed of prefixes) {
            const expected = suggestionsOf(country, typed)
            const answer = yield* get(api_key, `${prefix}/suggestions?${query({ prefix: typed, country })}`)
            expect([country, typed, answer.status, answer.json]).toEqual([country, typed, 200, { success: true, data: expected }])
          }
        }
        // Enough strings for these to mean something.
        expect(suggestionsOf("US", "s").length).toBe(10)
        expect(new Set(prefixes.flatMap((typed) => suggestionsOf("US", typed).map((s) => s.type))).size).toBe(4)
        expect(prefixes.filter((typed) => suggestionsOf("US", typed).some((s) => classOf(s.text, typed) === "later")).length).toBeGreaterThan(3)
      }))

    it.effect("suggestions: types, limit and case", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const cases: Array<[Record<string, string | number>, ReturnType<typeof suggestionsOf>]> = [
          [{ prefix: "s", types: "shops,creators" }, suggestionsOf("US", "s", ["shops", "creators"])],
          [{ prefix: "s", types: "categories" }, suggestionsOf("US", "s", ["categories"])],
          [{ prefix: "s", limit: 3 }, suggestionsOf("US", "s", suggestionTypes, 3)],
          [{ prefix: "s", limit: 20 }, suggestionsOf("US", "s", suggestionTypes, 20)],
          [{ prefix: "s", limit: 1, types: "products" }, suggestionsOf("US", "s", ["products"], 1)],
          [{ prefix: "SE", limit: 20 }, suggestionsOf("US", "se", suggestionTypes, 20)]
        ]
        for (const [params, expected] of cases) {
          const answer = yield* get(api_key, `${prefix}/suggestions?${query(params)}`)
          expect([params, answer.json]).toEqual([params, { success: true, data: expected }])
        }
        expect((yield* get(api_key, `${prefix}/suggestions?prefix=s&limit=20`)).json.data.length).toBe(20)
        expect((yield* get(api_key, `${prefix}/suggestions?prefix=s&types=shops&types=creators`)).json.data)
          .toEqual(suggestionsOf("US", "s", ["shops", "creators"]))
        const lower = (yield* get(api_key, `${prefix}/suggestions?prefix=se`)).json
        expect((yield* get(api_key, `${prefix}/suggestions?prefix=Se`)).json).toEqual(lower)
        expect((yield* get(api_key, `${prefix}/suggestions?prefix=SE`)).json).toEqual(lower)
      }))

    it.effect("suggestions are the same from the strings summed ahead as from the catalog, by its most popular rows or by its indexes", () =>
      Effect.gen(function*() {
        const { id } = yield* account({ plan: "premium" })
        const search = yield* ShopSearch
        const sql = yield* SqlClient.SqlClient
        const prefixes = ["s", "se", "b", "@its", "(b", "(", creators[3]!.handle.slice(1, 3), products[5]!.title.slice(0, 3), "zzz"]
        const ask = (typed: string, limit: number) => textsOf(search.suggestions(id, { prefix: typed, country: "US", limit }))
        // The demo load summed them ahead: a statement per class reads them, and nothing else.
        for (const typed of prefixes) {
          for (const limit of [1, 10, 20]) {
            const { answer, statements } = yield* ask(typed, limit)
            expect([typed, limit, answer.data]).toEqual([typed, limit, suggestionsOf("US", typed, suggestionTypes, limit)])
            expect([typed, limit, statements.filter(readsCatalog)]).toEqual([typed, limit, []])
            expect([typed, limit, statements.filter((text) => text.includes("shop_suggestion")).length]).toBeOneOf([[typed, limit, 1], [typed, limit, 2]])
          }
        }
        // Until they are computed again, the catalog answers alike, whichever way it is read.
        yield* sql`delete from shop_rollup_state where entity = 'suggestions'`
        for (const typed of prefixes) {
          for (const reach of [{ depth: 1, take: 1 }, { depth: 3, take: 2 }, { depth: 10, take: 5 }, { depth: 100, take: 1 }, { depth: 2_000, take: 100 }]) {
            for (const limit of [1, 10, 20]) {
              const { answer, statements } = yield* ask(typed, limit).pipe(Effect.provideService(SuggestionReach, reach))
              expect([typed, reach, limit, answer.data]).toEqual([typed, reach, limit, suggestionsOf("US", typed, suggestionTypes, limit)])
              expect(statements.filter((text) => text.includes("shop_suggestion"))).toEqual([])
              expect(statements.filter(readsCatalog).length).toBeGreaterThan(0)
            }
          }
        }
        expect(yield* Effect.flatMap(ShopRollups, (rollups) => rollups.refreshStale)).toBe(1)
        expect((yield* ask("se", 10)).statements.filter(readsCatalog)).toEqual([])
      }).pipe(Effect.provide(ShopRollups.Default)))

    it.effect("the strings summed ahead are each type's distinct strings of a region, each as its most popular record", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const held = yield* sql<{ region: string; type: string; text: string; external_id: string }>`
          select region, type, text, external_id from shop_suggestions order by region, type, lower(text)`
        const expected = ["US", "GB"].flatMap((region) =>
          suggestionTypes.flatMap((type) => {
            const firsts = new Map<string, { text: string; id: string; popularity: number | null }>()
            for (const s of [...strings[type](region)].sort(popularFirst)) if (!firsts.has(s.text.toLowerCase())) firsts.set(s.text.toLowerCase(), s)
            return [...firsts.values()].map((s) => ({ region, type, text: s.text, external_id: s.id }))
          })
        )
        const key = (r: { region: string; type: string; text: string }) => `${r.region} ${r.type} ${r.text.toLowerCase()}`
        expect(held.map(key).sort(byteOrder)).toEqual(expected.map(key).sort(byteOrder))
        expect(new Set(held.map((r) => `${key(r)} ${r.external_id}`))).toEqual(new Set(expected.map((r) => `${key(r)} ${r.external_id}`)))
        expect(held.length).toBeLessThan(products.length + shops.length + creators.length + categories.length)
      }))

    it.effect("bad input is a 400 naming the field, and keeps the credit (G4, G11)", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "basic" })
        const cases: Array<[string, string]> = [
          [`${prefix}/search`, "q is missing"],
          [`${prefix}/search?q=`, "q: must be a non-empty text of at most 200 characters"],
          [`${prefix}/search?q=${"a".repeat(201)}`, "q: must be a non-empty text of at most 200 characters"],
          [`${prefix}/search?q=mat&colour=red`, "colour: unknown parameter"],
          [`${prefix}/search?q=mat&page=0`, "page: must be an integer from 1 to 10000"],
          [`${prefix}/search?q=mat&page_size=101`, "page_size: must be an integer from 1 to 100"],
          [`${prefix}/search?q=mat&page=101&page_size=100`, "page: at most 100 for page_size 100; narrow the search with its filters"],
          [`${prefix}/search?q=mat&country=usa`, "country: must be an ISO 3166-1 alpha-2 country code such as US"],
          [`${prefix}/trending?metric=likes`, "metric: must be one of gmv, units, views"],
          [`${prefix}/trending?days=0`, "days: must be an integer from 1 to 90"],
          [`${prefix}/trending?days=91`, "days: must be an integer from 1 to 90"],
          [`${prefix}/trending?page=501`, "page: at most 500 for page_size 20; narrow the search with its filters"],
          [`${prefix}/trending?category_id=a%20b`, "category_id: must be 1 to 200 letters, digits or . _ : @ / -"],
          [`${prefix}/trending?sort=gmv`, "sort: unknown parameter"],
          [`${prefix}/suggestions`, "prefix is missing"],
          [`${prefix}/suggestions?prefix=%20%20`, "prefix: must be a non-empty text of at most 50 characters"],
          [`${prefix}/suggestions?prefix=${"a".repeat(51)}`, "prefix: must be a non-empty text of at most 50 characters"],
          [`${prefix}/suggestions?prefix=s&types=videos`, "types.0: must be one of products, shops, creators, categories"],
          [`${prefix}/suggestions?prefix=s&limit=0`, "limit: must be an integer from 1 to 20"],
          [`${prefix}/suggestions?prefix=s&limit=21`, "limit: must be an integer from 1 to 20"],
          [`${prefix}/suggestions?prefix=s&q=s`, "q: unknown parameter"]
        ]
        for (const [path, error] of cases) {
          const answer = yield* call(path, keyHeader(api_key))
          expect([path, answer.status, answer.body]).toEqual([path, 400, JSON.stringify({ success: false, error })])
        }
        // The limits themselves are fine.
        for (const path of [`search?q=${"a".repeat(200)}&page=100&page_size=100`, "trending?days=90&page=500", `suggestions?prefix=${"a".repeat(50)}&limit=20`, "suggestions?prefix=a&limit=1"]) {
          expect([path, (yield* call(`${prefix}/${path}`, keyHeader(api_key))).status]).toEqual([path, 200])
        }
        expect((yield* balanceOf(id)).used).toBe(cases.length + 4)
      }))

    it.effect("each call costs 1 credit and no daily search (G7 names explore and count only)", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account({ plan: "basic", patch: { daily_search_limit: 1 } })
        for (const path of ["trending", "search?q=mat", "suggestions?prefix=s", "trending?metric=views", "search?q=set", "suggestions?prefix=b"]) {
          expect([path, (yield* call(`${prefix}/${path}`, keyHeader(api_key))).status]).toEqual([path, 200])
        }
        expect((yield* balanceOf(id)).used).toBe(6)
        expect((yield* get(api_key, `${prefix}/credits`)).json.credits_remaining).toBe(1)
        const answer = yield* call(`${prefix}/suggestions?prefix=s`, keyHeader(api_key))
        expect(answer.headers.get("ratelimit-policy")).toBe(`"minute";q=100000;w=60`)
      }))

    it.effect("the legacy dashboard paths answer the same under a browser session, without credit; 401 without one (S4)", () =>
      Effect.gen(function*() {
        const email = "shop-search-legacy@example.com"
        const password = "shop search password"
        const created = yield* account({ email, password, plan: "basic" })
        const session = yield* signIn(email, password)
        for (const path of ["trending?metric=units&days=3", "search?q=mat", "suggestions?prefix=s&limit=20"]) {
          const legacy = yield* call(`/api/clipapp-shop/${path}`, { headers: session })
          const keyed = yield* call(`${prefix}/${path}`, keyHeader(created.api_key))
          expect([path, legacy.status, JSON.parse(legacy.body)]).toEqual([path, 200, JSON.parse(keyed.body)])
          const anonymous = yield* call(`/api/clipapp-shop/${path}`)
          expect([path, anonymous.status, anonymous.body]).toEqual([path, 401, `{"success":false,"error":"Unauthorized"}`])
        }
        expect((yield* balanceOf(created.id)).used).toBe(3)
      }))

    it.effect("an import shows in suggestions at once, read from the catalog until the strings are summed ahead again", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const sql = yield* SqlClient.SqlClient
        const ingest = yield* Ingest
        const model = products.find((p) => p.region === "US")!
        const added = { ...model, external_id: "prod-quokka-1", title: "Quokka Quilt Deluxe", reviews: 0 }
        const state = sql`select count(*)::int as n from shop_rollup_state where entity = 'suggestions'`
        expect((yield* state)[0]!.n).toBe(1)
        expect((yield* ingest.records("shop-products", Stream.make(added))).accepted).toBe(1)
        expect((yield* state)[0]!.n).toBe(0)
        const expected = { success: true, data: [{ text: "Quokka Quilt Deluxe", type: "products", id: "prod-quokka-1" }] }
        for (const typed of ["quok", "quilt d"]) expect((yield* get(api_key, `${prefix}/suggestions?prefix=${encodeURIComponent(typed)}`)).json).toEqual(expected)
        expect(yield* Effect.flatMap(ShopRollups, (rollups) => rollups.refreshStale)).toBe(1)
        expect((yield* state)[0]!.n).toBe(1)
        for (const typed of ["quok", "quilt d"]) expect((yield* get(api_key, `${prefix}/suggestions?prefix=${encodeURIComponent(typed)}`)).json).toEqual(expected)
        const held = yield* sql`select region, type, text, external_id, popularity::int from shop_suggestions where external_id = 'prod-quokka-1'`
        expect(held).toEqual([{ region: "US", type: "products", text: "Quokka Quilt Deluxe", external_id: "prod-quokka-1", popularity: 0 }])
      }).pipe(Effect.provide(ShopRollups.Default)))

    it.effect("the answers decode through the client derived from the contract", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "premium" })
        const { url } = yield* TestServer
        const client = yield* HttpApiClient.make(AdIntelApi, {
          baseUrl: url,
          transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("x-api-key", api_key))
        })
        const trending = yield* client.shopSearch.trending({ urlParams: { metric: "units", days: 3 } })
        expect(trending.data.map((r) => r.id)).toEqual(trendingOf("US", "units", 3).slice(0, 20).map((e) => e.id))
        const found = yield* client.shopSearch.search({ urlParams: { q: titleWords[0]![0], page_size: 5 } })
        expect(found.data.length).toBe(5)
        const suggested = yield* client.shopSearch.suggestions({ urlParams: { prefix: "se", types: ["products", "categories"], limit: 5 } })
        expect(suggested.data).toEqual(suggestionsOf("US", "se", ["products", "categories"], 5))
      }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

    it.effect("the three routes are in the OpenAPI document once, at their v1 paths, with a summary and described parameters", () =>
      Effect.gen(function*() {
        const spec = JSON.parse((yield* call("/openapi.json")).body)
        for (const suffix of ["trending", "search", "suggestions"]) {
          const operation = spec.paths[`${prefix}/${suffix}`]?.get
          expect([suffix, typeof operation?.summary]).toEqual([suffix, "string"])
          expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "429", "500"]))
          for (const p of operation.parameters) {
            const description = p.description ?? p.schema?.description
            expect([suffix, p.name, typeof description === "string" && description !== ""]).toEqual([suffix, p.name, true])
          }
          expect(spec.paths[`/api/clipapp-shop/${suffix}`]).toBeUndefined()
        }
      }))
  })
})
