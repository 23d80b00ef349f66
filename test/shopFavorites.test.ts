import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Clock, Effect, Stream, TestClock } from "effect"
import { Ingest } from "../src/ingest/Ingest.js"
import { maxFavorites } from "../src/shop/favorites/Api.js"
import { loadedSmallWorldServer, smallWorld } from "./support/AdWorld.js"
import { account, balanceOf, call, keyHeader, signIn } from "./support/TestServer.js"

type Type = "product" | "shop" | "creator" | "video" | "category"
type Entity = { type: Type; id: string; region: string; name: string | null }

const entitiesOf = (type: Type, entity: string, name: string): Array<Entity> =>
  Array.from(smallWorld.records[entity as "shop-products"]() as Iterable<Record<string, any>>).map((r) => ({
    type,
    id: r.external_id,
    region: r.region,
    name: r[name] ?? null
  }))

const world: Record<Type, Array<Entity>> = {
  product: entitiesOf("product", "shop-products", "title"),
  shop: entitiesOf("shop", "shop-shops", "name"),
  creator: entitiesOf("creator", "shop-creators", "handle"),
  video: entitiesOf("video", "shop-videos", "description"),
  category: entitiesOf("category", "shop-categories", "name")
}
const types = Object.keys(world) as Array<Type>
const products = world.product
// The last shop gets a twin in the other region (the ambiguity test); the others stay unique.
const twinShop = world.shop.at(-1)!

const v1 = "/api/v1/clipapp-shop"
const legacyPrefix = "/api/clipapp-shop"

type Auth = Record<string, string>
const key = (apiKey: string): Auth => keyHeader(apiKey).headers

const parsed = (answer: { status: number; body: string; headers: Headers }) => ({ ...answer, json: JSON.parse(answer.body) })
const post = (auth: Auth, suffix: string, body: unknown, prefix = v1) =>
  Effect.map(
    call(`${prefix}/favorites/${suffix}`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body)
    }),
    parsed
  )
const list = (auth: Auth, params: Record<string, string | number> = {}, prefix = v1) => {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()
  return Effect.map(call(`${prefix}/favorites${query === "" ? "" : `?${query}`}`, { headers: auth }), parsed)
}
const target = (entity: Entity) => ({ type: entity.type, id: entity.id })
const item = (entity: Entity, at: string) => ({ type: entity.type, id: entity.id, region: entity.region, name: entity.name, favorited_at: at })
const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

const ok = (favorited: unknown) => [200, JSON.stringify({ success: true, favorited })]
const error = (status: number, message: string) => [status, JSON.stringify({ success: false, error: message })]
const answerOf = (answer: { status: number; body: string }) => [answer.status, answer.body]

/** The daily search quota, read through the metered route (itself 1 credit). */
const dailySearchesLeft = (apiKey: string) =>
  Effect.map(call(`${v1}/credits`, keyHeader(apiKey)), (answer) => JSON.parse(answer.body).credits_remaining as number)

describe("short-video shop favorites", () => {
  layer(loadedSmallWorldServer())((it) => {
    it.effect("the small world holds what the tests below stand on: several entities of each type, unique ids, two regions", () =>
      Effect.gen(function*() {
        for (const type of types) expect([type, world[type].length > 3]).toEqual([type, true])
        for (const type of types) expect(new Set(world[type].map((e) => e.id)).size).toBe(world[type].length)
        expect(new Set(products.map((p) => p.region))).toEqual(new Set(["US", "GB"]))
      }))

    it.effect("toggle twice flips the favorite and the list follows; 1 credit a call, the daily search quota untouched", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const auth = key(api_key)
        const before = yield* dailySearchesLeft(api_key)
        const product = products[0]!
        const on = yield* post(auth, "toggle", target(product))
        expect(answerOf(on)).toEqual(ok(true))
        expect(on.headers.get("content-type")).toContain("application/json")
        const listed = yield* list(auth)
        expect(listed.status).toBe(200)
        expect(listed.body).toBe(JSON.stringify({ success: true, data: [item(product, yield* now)], total: 1, page: 1, page_size: 20 }))
        expect(answerOf(yield* post(auth, "toggle", target(product)))).toEqual(ok(false))
        expect((yield* list(auth)).json).toEqual({ success: true, data: [], total: 0, page: 1, page_size: 20 })
        expect(yield* dailySearchesLeft(api_key)).toBe(before)
        // two credits reads, two toggles, two lists
        expect((yield* balanceOf(id)).used).toBe(6)
      }))

    it.effect("add twice keeps one favorite and its first date; remove of an absent favorite is fine", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const auth = key(api_key)
        const product = products[1]!
        expect(answerOf(yield* post(auth, "add", target(product)))).toEqual(ok(true))
        const first = yield* now
        yield* TestClock.adjust("1 minute")
        expect(answerOf(yield* post(auth, "add", target(product)))).toEqual(ok(true))
        expect((yield* list(auth)).json).toEqual({ success: true, data: [item(product, first)], total: 1, page: 1, page_size: 20 })
        expect(answerOf(yield* post(auth, "remove", target(product)))).toEqual(ok(false))
        expect(answerOf(yield* post(auth, "remove", target(product)))).toEqual(ok(false))
        expect(answerOf(yield* post(auth, "remove", target(products[2]!)))).toEqual(ok(false))
        expect((yield* list(auth)).json.total).toBe(0)
      }))

    it.effect("check: one id answers a boolean; up to 100 ids answer each id's state, an id naming no entity false", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const auth = key(api_key)
        const [a, b, c] = [products[3]!, products[4]!, products[5]!]
        expect(answerOf(yield* post(auth, "check", target(a)))).toEqual(ok(false))
        yield* post(auth, "add", target(a))
        yield* post(auth, "add", target(c))
        expect(answerOf(yield* post(auth, "check", target(a)))).toEqual(ok(true))
        expect(answerOf(yield* post(auth, "check", { ...target(a), region: a.region }))).toEqual(ok(true))
        const many = yield* post(auth, "check", { type: "product", ids: [b.id, a.id, "product-none", c.id, a.id] })
        expect(answerOf(many)).toEqual(ok({ [b.id]: false, [a.id]: true, "product-none": false, [c.id]: true }))
        // Region narrows every id: another region's products are not found there.
        const other = a.region === "US" ? "GB" : "US"
        expect((yield* post(auth, "check", { type: "product", ids: [a.id], region: other })).json.favorited).toEqual({ [a.id]: false })
        // Another type's ids name no entity of this one.
        expect((yield* post(auth, "check", { type: "shop", ids: [a.id] })).json.favorited).toEqual({ [a.id]: false })
        const hundred = Array.from({ length: 100 }, (_, i) => products[i % products.length]!.id)
        expect((yield* post(auth, "check", { type: "product", ids: hundred })).status).toBe(200)
        const tooMany = [...hundred, "one-more"]
        expect(answerOf(yield* post(auth, "check", { type: "product", ids: tooMany }))).toEqual(error(400, "ids: must have 1 to 100 items"))
        expect(answerOf(yield* post(auth, "check", { type: "product", ids: [] }))).toEqual(error(400, "ids: must have 1 to 100 items"))
        expect(answerOf(yield* post(auth, "check", { type: "product", id: a.id, ids: [a.id] }))).toEqual(error(400, "ids: send id or ids, not both"))
        expect(answerOf(yield* post(auth, "check", { type: "product" }))).toEqual(error(400, "id is missing"))
        expect(answerOf(yield* post(auth, "check", { type: "product", ids: ["ok", "not ok"] }))).toEqual(
          error(400, "ids.1: must be 1 to 200 letters, digits or . _ : @ / -")
        )
      }))

    it.effect("every entity type can be favorited, listed with its region and name, checked and removed", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const auth = key(api_key)
        const at = yield* now
        for (const type of types) {
          const entity = world[type][1]!
          expect([type, ...answerOf(yield* post(auth, "add", target(entity)))]).toEqual([type, ...ok(true)])
          expect([type, ...answerOf(yield* post(auth, "check", target(entity)))]).toEqual([type, ...ok(true)])
        }
        const all = yield* list(auth)
        expect(all.json.total).toBe(types.length)
        // made at one instant: the later first
        expect(all.json.data).toEqual([...types].reverse().map((type) => item(world[type][1]!, at)))
        // a video's name is its description; a creator's, its handle
        expect(all.json.data.find((f: Entity) => f.type === "creator").name).toMatch(/^@/)
        for (const type of types) {
          expect((yield* list(auth, { type })).json.data).toEqual([item(world[type][1]!, at)])
          expect(answerOf(yield* post(auth, "remove", target(world[type][1]!)))).toEqual(ok(false))
        }
        expect((yield* list(auth)).json.total).toBe(0)
      }))

    it.effect("an unknown entity is a 404 naming its type, on every route; the credit is kept (G4)", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const auth = key(api_key)
        const names: Record<Type, string> = { product: "Product", shop: "Shop", creator: "Creator", video: "Video", category: "Category" }
        let calls = 0
        for (const type of types) {
          for (const route of ["toggle", "add", "remove", "check"]) {
            const answer = yield* post(auth, route, { type, id: "no-such-entity" })
            calls++
            expect([type, route, ...answerOf(answer)]).toEqual([type, route, ...error(404, `${names[type]} not found`)])
          }
        }
        // A known id in a region where it does not exist is not found either.
        const product = products[0]!
        const elsewhere = yield* post(auth, "add", { ...target(product), region: product.region === "US" ? "GB" : "US" })
        calls++
        expect(answerOf(elsewhere)).toEqual(error(404, "Product not found"))
        expect((yield* list(auth)).json.total).toBe(0)
        expect((yield* balanceOf(id)).used).toBe(calls + 1)
      }))

    it.effect("an id in several regions needs its region: 400 without it, one favorite per region with it", () =>
      Effect.gen(function*() {
        const other = twinShop.region === "US" ? "GB" : "US"
        const report = yield* Effect.flatMap(Ingest, (ingest) =>
          ingest.records("shop-shops", Stream.make({
            region: other,
            external_id: twinShop.id,
            name: "Twin Shop Elsewhere",
            shop_type: "retailer",
            fetched_at: "1970-01-01T00:00:00Z",
            source: "test",
            method: "manual"
          })))
        expect(report.rejected).toBe(0)
        const regions = [twinShop.region, other].sort().join(", ")
        const { api_key } = yield* account()
        const auth = key(api_key)
        const ambiguous = error(400, `region is missing: ${twinShop.id} exists in several regions (${regions})`)
        for (const route of ["toggle", "add", "remove", "check"]) {
          expect([route, ...answerOf(yield* post(auth, route, target(twinShop)))]).toEqual([route, ...ambiguous])
        }
        expect(answerOf(yield* post(auth, "check", { type: "shop", ids: [world.shop[0]!.id, twinShop.id] }))).toEqual(ambiguous)
        expect(answerOf(yield* post(auth, "add", { ...target(twinShop), region: other }))).toEqual(ok(true))
        const at = yield* now
        expect((yield* list(auth)).json.data).toEqual([{ type: "shop", id: twinShop.id, region: other, name: "Twin Shop Elsewhere", favorited_at: at }])
        expect(answerOf(yield* post(auth, "check", { type: "shop", ids: [twinShop.id], region: other }))).toEqual(ok({ [twinShop.id]: true }))
        expect(answerOf(yield* post(auth, "check", { ...target(twinShop), region: twinShop.region }))).toEqual(ok(false))
        expect(answerOf(yield* post(auth, "add", { ...target(twinShop), region: twinShop.region }))).toEqual(ok(true))
        expect((yield* list(auth, { type: "shop" })).json.total).toBe(2)
      }))

    it.effect("bad input is a 400 naming the field (G11), body and query alike; the credit is kept (G4)", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const auth = key(api_key)
        const cases: Array<[string, unknown, string]> = [
          ["toggle", { type: "brand", id: "x" }, "type: must be one of product, shop, creator, video, category"],
          ["add", { id: "product-1" }, "type is missing"],
          ["add", { type: "product" }, "id is missing"],
          ["remove", { type: "product", id: "product-1", colour: "red" }, "colour: unknown parameter"],
          ["toggle", { type: "product", id: "product 1" }, "id: must be 1 to 200 letters, digits or . _ : @ / -"],
          ["toggle", { type: "product", id: 7 }, "id: must be 1 to 200 letters, digits or . _ : @ / -"],
          ["add", { type: "product", id: "product-1", region: "us" }, "region: must be an ISO 3166-1 alpha-2 country code such as US"],
          ["check", { type: "product", id: "product-1", api_key }, "api_key: unknown parameter"],
          ["add", "{ not json", "Malformed request body: expected JSON"]
        ]
        for (const [route, body, message] of cases) {
          expect([route, body, ...answerOf(yield* post(auth, route, body))]).toEqual([route, body, ...error(400, message)])
        }
        const queries: Array<[Record<string, string | number>, string]> = [
          [{ type: "brand" }, "type: must be one of product, shop, creator, video, category"],
          [{ page: 0 }, "page: must be an integer from 1 to 10000"],
          [{ page: "two" }, "page: must be an integer from 1 to 10000"],
          [{ page_size: 101 }, "page_size: must be an integer from 1 to 100"],
          [{ sort: "oldest" }, "sort: unknown parameter"]
        ]
        for (const [params, message] of queries) {
          expect([params, ...answerOf(yield* list(auth, params))]).toEqual([params, ...error(400, message)])
        }
        // The key may come in the query string, as on every metered route.
        expect((yield* list({}, { api_key, type: "video" })).json).toEqual({ success: true, data: [], total: 0, page: 1, page_size: 20 })
        expect((yield* balanceOf(id)).used).toBe(cases.length + queries.length + 1)
      }))

    it.effect("the list: newest first, paged (P2), filtered by type", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const auth = key(api_key)
        // 7 products, 4 creators and 3 videos, one a second apart, interleaved
        const made: Array<ReturnType<typeof item>> = []
        const plan = [...products.slice(10, 17), ...world.creator.slice(5, 9), ...world.video.slice(5, 8)]
        for (let i = 0; i < plan.length; i++) {
          const picked = plan[(i * 5) % plan.length]!
          expect((yield* post(auth, "add", target(picked))).status).toBe(200)
          made.unshift(item(picked, yield* now))
          yield* TestClock.adjust("1 second")
        }
        expect(new Set(made.map((m) => m.id)).size).toBe(plan.length)
        const pages = []
        for (let page = 1; page <= 4; page++) {
          const answer = yield* list(auth, { page, page_size: 4 })
          expect(Object.keys(answer.json)).toEqual(["success", "data", "total", "page", "page_size"])
          expect(answer.json).toMatchObject({ success: true, total: plan.length, page, page_size: 4 })
          pages.push(...answer.json.data)
        }
        expect(pages).toEqual(made)
        expect((yield* list(auth, { page: 5, page_size: 4 })).json).toEqual({ success: true, data: [], total: plan.length, page: 5, page_size: 4 })
        expect((yield* list(auth, { page_size: 100 })).json.data).toEqual(made)
        for (const type of ["product", "creator", "video", "shop"] as const) {
          const answer = yield* list(auth, { type, page_size: 2, page: 2 })
          const ofType = made.filter((m) => m.type === type)
          expect([type, answer.json]).toEqual([type, { success: true, data: ofType.slice(2, 4), total: ofType.length, page: 2, page_size: 2 }])
        }
      }))

    it.effect("favorites are per account: another account sees none and cannot remove them", () =>
      Effect.gen(function*() {
        const mine = key((yield* account()).api_key)
        const theirs = key((yield* account()).api_key)
        const product = products[20]!
        yield* post(mine, "add", target(product))
        expect((yield* list(theirs)).json.total).toBe(0)
        expect(answerOf(yield* post(theirs, "check", target(product)))).toEqual(ok(false))
        expect(answerOf(yield* post(theirs, "remove", target(product)))).toEqual(ok(false))
        expect(answerOf(yield* post(theirs, "toggle", target(product)))).toEqual(ok(true))
        expect(answerOf(yield* post(mine, "check", target(product)))).toEqual(ok(true))
        expect(answerOf(yield* post(theirs, "toggle", target(product)))).toEqual(ok(false))
        expect((yield* list(mine)).json.total).toBe(1)
      }))

    it.effect(`at most ${maxFavorites} favorites per account, exactly, with adds in flight; a deleted entity takes its favorites along`, () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const { api_key, id } = yield* account()
        const auth = key(api_key)
        const filler = maxFavorites - 10
        // Categories nobody else uses, favorited straight in the table.
        yield* sql`
          insert into shop_categories (region, external_id, name, level, fetched_at, source, method, content_hash)
          select 'US', 'cap-' || n, 'Cap ' || n, 1, '1970-01-01T00:00:00Z', 'test', 'manual', 'x' from generate_series(1, ${filler}) n`
        yield* sql`
          insert into shop_favorites (account_id, entity_type, category_id, created_at)
          select ${id}::uuid, 'category', id, to_timestamp(0) from shop_categories where external_id like 'cap-%'`
        const candidates = products.slice(30, 50)
        const answers = yield* Effect.forEach(candidates, (p) => post(auth, "add", target(p)), { concurrency: "unbounded" })
        const statuses = answers.map((a) => a.status).sort()
        expect(statuses).toEqual([...Array(10).fill(200), ...Array(10).fill(400)])
        const full = error(400, `Favorites are limited to ${maxFavorites} per account`)
        for (const answer of answers.filter((a) => a.status === 400)) expect(answerOf(answer)).toEqual(full)
        expect((yield* list(auth, { page_size: 1 })).json.total).toBe(maxFavorites)
        // At the cap: a new one is refused, by add and by toggle; one already there is fine.
        const fresh = products[60]!
        expect(answerOf(yield* post(auth, "add", target(fresh)))).toEqual(full)
        expect(answerOf(yield* post(auth, "toggle", target(fresh)))).toEqual(full)
        expect(answerOf(yield* post(auth, "add", { type: "category", id: "cap-1" }))).toEqual(ok(true))
        expect(answerOf(yield* post(auth, "check", target(fresh)))).toEqual(ok(false))
        // Removing one makes room for one.
        expect(answerOf(yield* post(auth, "toggle", { type: "category", id: "cap-1" }))).toEqual(ok(false))
        expect(answerOf(yield* post(auth, "toggle", target(fresh)))).toEqual(ok(true))
        expect((yield* list(auth, { page_size: 1 })).json.total).toBe(maxFavorites)
        // A category leaves the catalog: its favorites go with it.
        yield* sql`delete from shop_categories where external_id in ('cap-2', 'cap-3')`
        expect((yield* list(auth, { type: "category", page_size: 1 })).json.total).toBe(filler - 3)
        expect(answerOf(yield* post(auth, "add", { type: "category", id: "cap-2" }))).toEqual(error(404, "Category not found"))
        yield* sql`delete from shop_categories where external_id like 'cap-%'`
      }), { timeout: 60_000 })

    it.effect("legacy session paths (S4): the same favorites under the browser session, no credit; 401 without a session", () =>
      Effect.gen(function*() {
        const email = "favorites-legacy@example.com"
        const password = "favorites password 1"
        const created = yield* account({ email, password })
        const session = yield* signIn(email, password)
        const product = products[7]!
        expect(answerOf(yield* post(session, "toggle", target(product), legacyPrefix))).toEqual(ok(true))
        expect(answerOf(yield* post(session, "add", target(world.video[2]!), legacyPrefix))).toEqual(ok(true))
        expect(answerOf(yield* post(session, "check", { type: "product", ids: [product.id] }, legacyPrefix))).toEqual(ok({ [product.id]: true }))
        expect(answerOf(yield* post(session, "remove", target(world.video[2]!), legacyPrefix))).toEqual(ok(false))
        const listed = yield* list(session, {}, legacyPrefix)
        expect(listed.json).toEqual({ success: true, data: [item(product, yield* now)], total: 1, page: 1, page_size: 20 })
        expect(answerOf(yield* post(session, "add", { type: "product", id: "nope" }, legacyPrefix))).toEqual(error(404, "Product not found"))
        expect(answerOf(yield* post(session, "add", { type: "brand", id: "x" }, legacyPrefix))).toEqual(
          error(400, "type: must be one of product, shop, creator, video, category")
        )
        expect((yield* balanceOf(created.id)).used).toBe(0)
        // The key side sees the same favorites.
        expect((yield* list(key(created.api_key))).json.data).toEqual(listed.json.data)
        for (const auth of [{}, key(created.api_key)]) {
          expect(answerOf(yield* list(auth, {}, legacyPrefix))).toEqual(error(401, "Unauthorized"))
          expect(answerOf(yield* post(auth, "toggle", target(product), legacyPrefix))).toEqual(error(401, "Unauthorized"))
        }
        expect(answerOf(yield* list({}))).toEqual(error(401, "Unauthorized"))
        expect((yield* balanceOf(created.id)).used).toBe(1)
      }))

    it.effect("a favorites path with a verb it does not register is the shop's metered 404 (G9)", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const getToggle = yield* call(`${v1}/favorites/toggle`, keyHeader(api_key))
        expect(answerOf(getToggle)).toEqual(error(404, `Unknown shop endpoint: GET ${v1}/favorites/toggle`))
        const deleteAll = yield* call(`${v1}/favorites`, { method: "DELETE", ...keyHeader(api_key) })
        expect(answerOf(deleteAll)).toEqual(error(404, `Unknown shop endpoint: DELETE ${v1}/favorites`))
        expect((yield* balanceOf(id)).used).toBe(2)
      }))

    it.effect("every route is in the OpenAPI document once, at its v1 path, with a summary, described fields and the answers it can give", () =>
      Effect.gen(function*() {
        const spec = JSON.parse((yield* call("/openapi.json")).body)
        const resolve = (schema: any): any => schema?.$ref ? spec.components.schemas[schema.$ref.split("/").at(-1)] : schema
        const routes = [["get", "favorites"], ["post", "favorites/toggle"], ["post", "favorites/add"], ["post", "favorites/remove"], ["post", "favorites/check"]] as const
        for (const [method, suffix] of routes) {
          const operation = spec.paths[`${v1}/${suffix}`]?.[method]
          expect([suffix, typeof operation?.summary]).toEqual([suffix, "string"])
          expect(operation.security.length).toBe(3)
          // Only the list names no record: it cannot answer 404.
          const statuses = suffix === "favorites" ? ["200", "400", "401", "403", "429", "431", "500"] : ["200", "400", "401", "403", "404", "413", "429", "431", "500"]
          expect([suffix, Object.keys(operation.responses)]).toEqual([suffix, statuses])
          expect(spec.paths[`${legacyPrefix}/${suffix}`]).toBeUndefined()
          const fields: Array<[string, any]> = method === "get"
            ? operation.parameters.map((p: any) => [p.name, p])
            : Object.entries(resolve(operation.requestBody.content["application/json"].schema).properties)
          expect(fields.length).toBeGreaterThan(1)
          for (const [name, field] of fields) {
            const description = field.description ?? resolve(field.schema ?? field)?.description
            const described = typeof description === "string" && description !== "" && !description.startsWith("a string")
            expect([suffix, name, described]).toEqual([suffix, name, true])
          }
        }
      }))
  })
})
