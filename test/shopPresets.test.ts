import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Clock, Effect, Layer, TestClock } from "effect"
import { maxPresets } from "../src/shop/presets/Api.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, balanceOf, call, keyHeader, signIn, testServer } from "./support/TestServer.js"

const v1 = "/api/v1/clipapp-shop"
const legacyPrefix = "/api/clipapp-shop"
const scopes = ["categories", "shops", "creators", "videos", "products"] as const
type Scope = (typeof scopes)[number]

type Auth = Record<string, string>
const key = (apiKey: string): Auth => keyHeader(apiKey).headers

const parsed = (answer: { status: number; body: string; headers: Headers }) => ({ ...answer, json: JSON.parse(answer.body) })
const postTo = (auth: Auth, path: string, body: unknown) =>
  Effect.map(
    call(path, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body)
    }),
    parsed
  )
const post = (auth: Auth, suffix: "save" | "update" | "delete", body: unknown, prefix = v1) =>
  postTo(auth, `${prefix}/filter-presets/${suffix}`, body)
const list = (auth: Auth, params: Record<string, string | number> = {}, prefix = v1) => {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()
  return Effect.map(call(`${prefix}/filter-presets${query === "" ? "" : `?${query}`}`, { headers: auth }), parsed)
}
const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

interface Preset {
  id: string
  name: string
  scope: Scope
  filters: Record<string, unknown>
  created_at: string
  updated_at: string
}
const preset = (id: string, name: string, scope: Scope, filters: Record<string, unknown>, created_at: string, updated_at = created_at): Preset => ({
  id,
  name,
  scope,
  filters,
  created_at,
  updated_at
})

const saved = (data: Preset) => [200, JSON.stringify({ success: true, data })]
const error = (status: number, message: string) => [status, JSON.stringify({ success: false, error: message })]
const answerOf = (answer: { status: number; body: string }) => [answer.status, answer.body]
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
/** A well-formed id no preset has. */
const unknownId = "00000000-0000-4000-8000-000000000000"

/** The daily search quota, read through the metered route (itself 1 credit). */
const dailySearchesLeft = (apiKey: string) =>
  Effect.map(call(`${v1}/credits`, keyHeader(apiKey)), (answer) => JSON.parse(answer.body).credits_remaining as number)

/** Saves and answers the preset, failing the test on anything but a 200. */
const saveOk = (auth: Auth, name: string, scope: Scope, filters: Record<string, unknown> = {}) =>
  Effect.map(post(auth, "save", { name, scope, filters }), (answer) => {
    expect([name, answer.status, answer.body]).toEqual([name, 200, expect.any(String)])
    return answer.json.data as Preset
  })

describe("short-video shop filter presets", () => {
  layer(testServer({ config: { rateLimitPerMinute: 100_000 } }).pipe(Layer.provideMerge(TestDatabase)))((it) => {
    it.effect("save, list, update and delete round trip with exact bodies; 1 credit a call, the daily search quota untouched", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const auth = key(api_key)
        const before = yield* dailySearchesLeft(api_key)
        const created = yield* now
        // Texts are kept trimmed and lists as arrays, in the order sent: what explore's body takes.
        const save = yield* post(auth, "save", {
          name: "  Cheap phone cases ",
          scope: "products",
          filters: { keyword: "  phone case ", max_price: 20.5, min_price: 5, launched_from: "2024-01-01", country: "GB" }
        })
        expect(save.status).toBe(200)
        expect(save.headers.get("content-type")).toContain("application/json")
        const presetId = save.json.data.id as string
        expect(presetId).toMatch(uuid)
        const first = preset(presetId, "Cheap phone cases", "products", {
          keyword: "phone case",
          max_price: 20.5,
          min_price: 5,
          launched_from: "2024-01-01",
          country: "GB"
        }, created)
        expect(answerOf(save)).toEqual(saved(first))
        const listed = yield* list(auth)
        expect(answerOf(listed)).toEqual([200, JSON.stringify({ success: true, data: [first], total: 1, page: 1, page_size: 20 })])

        yield* TestClock.adjust("1 minute")
        const renamedAt = yield* now
        const renamed = preset(presetId, "Phone cases", "products", first.filters, created, renamedAt)
        expect(answerOf(yield* post(auth, "update", { id: presetId, name: "Phone cases " }))).toEqual(saved(renamed))

        yield* TestClock.adjust("1 minute")
        const refilteredAt = yield* now
        // New filters replace the old ones whole.
        const refiltered = preset(presetId, "Phone cases", "products", { shop_id: "shop-7", sort: "price", order: "asc" }, created, refilteredAt)
        expect(answerOf(yield* post(auth, "update", { id: presetId, filters: { shop_id: "shop-7", sort: "price", order: "asc" } }))).toEqual(
          saved(refiltered)
        )

        yield* TestClock.adjust("1 minute")
        const bothAt = yield* now
        const both = preset(presetId, "Empty", "products", {}, created, bothAt)
        expect(answerOf(yield* post(auth, "update", { id: presetId, name: "Empty", filters: {} }))).toEqual(saved(both))
        expect((yield* list(auth)).body).toBe(JSON.stringify({ success: true, data: [both], total: 1, page: 1, page_size: 20 }))

        const deleted = yield* post(auth, "delete", { id: presetId })
        expect(answerOf(deleted)).toEqual([200, JSON.stringify({ success: true })])
        expect((yield* list(auth)).body).toBe(JSON.stringify({ success: true, data: [], total: 0, page: 1, page_size: 20 }))
        expect(answerOf(yield* post(auth, "delete", { id: presetId }))).toEqual(error(404, "Preset not found"))
        expect(answerOf(yield* post(auth, "update", { id: presetId, name: "Back" }))).toEqual(error(404, "Preset not found"))
        expect(answerOf(yield* post(auth, "update", { id: unknownId, filters: {} }))).toEqual(error(404, "Preset not found"))

        expect(yield* dailySearchesLeft(api_key)).toBe(before)
        // two credits reads; save, list, 3 updates, list, delete, list, 3 failed calls (G4 keeps their credit)
        expect((yield* balanceOf(id)).used).toBe(2 + 1 + 1 + 3 + 1 + 1 + 1 + 3)
      }))

    it.effect("a preset of each scope replays as the body of that scope's explore (200; an empty world matches nothing)", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const auth = key(api_key)
        const sent: Record<Scope, Record<string, unknown>> = {
          categories: { keyword: "toys", level: "1,2", country: "GB" },
          shops: { shop_type: ["brand", "retailer"], min_rating: 4, min_gmv: 100.5, sort: "followers", order: "asc" },
          creators: { min_followers: 1000, max_engagement_rate: 0.5, date_from: "2024-01-01", date_to: "2024-01-31" },
          videos: { is_ad: true, creator_id: "creator-1", published_from: "2024-02-01", min_views: 10, keyword: " unboxing " },
          products: { category_id: "cat-1", shop_id: "shop-1", min_commission_rate: 0.1, launched_to: "2024-03-01", sort: "price" }
        }
        // What is kept: the JSON-body form, lists as arrays and texts trimmed.
        const kept: Record<Scope, Record<string, unknown>> = {
          ...sent,
          categories: { keyword: "toys", level: ["1", "2"], country: "GB" },
          videos: { ...sent.videos, keyword: "unboxing" }
        }
        for (const scope of scopes) {
          const saved = yield* saveOk(auth, `My ${scope}`, scope, sent[scope])
          expect([scope, saved.filters]).toEqual([scope, kept[scope]])
          const replayed = yield* postTo(auth, `${v1}/${scope}/explore`, saved.filters)
          expect([scope, replayed.status, replayed.json.success, replayed.json.total]).toEqual([scope, 200, true, 0])
        }
      }))

    it.effect("names are unique per account and scope, whatever their case: 409; the same name elsewhere is fine", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const auth = key(api_key)
        const other = key((yield* account()).api_key)
        yield* saveOk(auth, "Top sellers", "products", { min_units: 100 })
        const conflicts: Array<[string, string]> = [
          ["Top sellers", "Top sellers"],
          ["top SELLERS", "top SELLERS"],
          ["  Top sellers\t", "Top sellers"],
          ["TOP SELLERS", "TOP SELLERS"]
        ]
        for (const [name, shown] of conflicts) {
          const answer = yield* post(auth, "save", { name, scope: "products", filters: { min_units: 5 } })
          expect([name, ...answerOf(answer)]).toEqual([name, ...error(409, `A preset named ${shown} already exists for products`)])
        }
        // The first is kept as it was.
        expect((yield* list(auth)).json.data.map((p: Preset) => [p.name, p.filters])).toEqual([["Top sellers", { min_units: 100 }]])
        // Another scope, another account: another name.
        yield* saveOk(auth, "top sellers", "shops")
        yield* saveOk(other, "Top sellers", "products")
        expect((yield* list(auth)).json.total).toBe(2)
        expect((yield* balanceOf(id)).used).toBe(1 + conflicts.length + 1 + 1 + 1)
      }))

    it.effect("a rename onto a taken name is a 409; a preset may change its own name's case", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const auth = key(api_key)
        const a = yield* saveOk(auth, "Alpha", "creators")
        const b = yield* saveOk(auth, "Beta", "creators")
        yield* saveOk(auth, "Gamma", "videos")
        expect(answerOf(yield* post(auth, "update", { id: b.id, name: "alpha" }))).toEqual(
          error(409, "A preset named alpha already exists for creators")
        )
        // Also when the filters change with it: nothing is written.
        expect(answerOf(yield* post(auth, "update", { id: b.id, name: "ALPHA", filters: { min_followers: 5 } }))).toEqual(
          error(409, "A preset named ALPHA already exists for creators")
        )
        // A name taken in another scope is free in this one.
        expect((yield* post(auth, "update", { id: b.id, name: "gamma" })).json.data.name).toBe("gamma")
        expect((yield* post(auth, "update", { id: a.id, name: "ALPHA" })).json.data.name).toBe("ALPHA")
        expect((yield* post(auth, "update", { id: a.id, name: "ALPHA" })).status).toBe(200)
        // Written at one instant: the later write first.
        const listed = (yield* list(auth, { scope: "creators" })).json.data as Array<Preset>
        expect(listed.map((p) => [p.name, p.filters])).toEqual([["ALPHA", {}], ["gamma", {}]])
        expect((yield* post(auth, "update", { id: b.id, filters: { min_followers: 1 } })).status).toBe(200)
        expect((yield* list(auth, { scope: "creators" })).json.data.map((p: Preset) => p.name)).toEqual(["gamma", "ALPHA"])
      }))

    it.effect("presets are per account: another account's are not listed and are not found by update or delete", () =>
      Effect.gen(function*() {
        const mine = key((yield* account()).api_key)
        const theirs = yield* account()
        const p = yield* saveOk(mine, "Mine", "shops", { min_followers: 10 })
        expect((yield* list(key(theirs.api_key))).json).toEqual({ success: true, data: [], total: 0, page: 1, page_size: 20 })
        expect(answerOf(yield* post(key(theirs.api_key), "update", { id: p.id, name: "Theirs" }))).toEqual(error(404, "Preset not found"))
        expect(answerOf(yield* post(key(theirs.api_key), "update", { id: p.id, filters: {} }))).toEqual(error(404, "Preset not found"))
        expect(answerOf(yield* post(key(theirs.api_key), "delete", { id: p.id }))).toEqual(error(404, "Preset not found"))
        expect((yield* list(mine)).json.data).toEqual([p])
        // The 404s kept their credits (G4).
        expect((yield* balanceOf(theirs.id)).used).toBe(4)
      }))

    it.effect("bad input is a 400 naming the field (G11), filters under `filters.`; the credit is kept (G4)", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const auth = key(api_key)
        const existing = yield* saveOk(auth, "Existing", "videos", { is_ad: false })
        const long = "x".repeat(101)
        const nameMessage = "name: must be a non-empty text of at most 100 characters"
        const saves: Array<[unknown, string]> = [
          [{ name: "x", scope: "brands", filters: {} }, "scope: must be one of categories, shops, creators, videos, products"],
          [{ name: "x", filters: {} }, "scope is missing"],
          [{ scope: "shops", filters: {} }, "name is missing"],
          [{ name: "x", scope: "shops" }, "filters is missing"],
          [{ name: "", scope: "shops", filters: {} }, nameMessage],
          [{ name: "   ", scope: "shops", filters: {} }, nameMessage],
          [{ name: long, scope: "shops", filters: {} }, nameMessage],
          [{ name: 7, scope: "shops", filters: {} }, nameMessage],
          [{ name: "x", scope: "shops", filters: [] }, "filters: must be an object of explore parameters"],
          [{ name: "x", scope: "shops", filters: "min_rating=4" }, "filters: must be an object of explore parameters"],
          [{ name: "x", scope: "shops", filters: {}, colour: "red" }, "colour: unknown parameter"],
          [{ name: "x", scope: "products", filters: { min_price: "cheap" } }, "filters.min_price: must be a number from 0 to 1000000000000"],
          [{ name: "x", scope: "products", filters: { min_price: -1 } }, "filters.min_price: must be a number from 0 to 1000000000000"],
          [{ name: "x", scope: "shops", filters: { min_rating: 6 } }, "filters.min_rating: must be a number from 0 to 5"],
          [{ name: "x", scope: "shops", filters: { shop_type: ["brand", "mall"] } }, "filters.shop_type.1: must be one of brand, retailer, cross-border"],
          [{ name: "x", scope: "videos", filters: { is_ad: "yes" } }, "filters.is_ad: must be true or false"],
          [{ name: "x", scope: "videos", filters: { published_from: "2024-02-30" } }, "filters.published_from: must be a date YYYY-MM-DD from 1900-01-01 to 2999-12-31"],
          [{ name: "x", scope: "products", filters: { country: "gb" } }, "filters.country: must be an ISO 3166-1 alpha-2 country code such as US"],
          [{ name: "x", scope: "products", filters: { sort: "views_growthh" } }, expect.stringMatching(/^filters\.sort: must be one of gmv, /)],
          [{ name: "x", scope: "products", filters: { colour: "red" } }, "filters.colour: unknown parameter"],
          // A filter of another scope is unknown to this one.
          [{ name: "x", scope: "videos", filters: { min_price: 5 } }, "filters.min_price: unknown parameter"],
          // Paging belongs to the explore call, not to the preset.
          [{ name: "x", scope: "products", filters: { keyword: "mug", page: 2 } }, "filters.page: unknown parameter"],
          [{ name: "x", scope: "products", filters: { page_size: 50 } }, "filters.page_size: unknown parameter"],
          [{ name: "x", scope: "products", filters: { api_key } }, "filters.api_key: unknown parameter"],
          ["{ not json", "Malformed request body: expected JSON"]
        ]
        for (const [body, message] of saves) {
          const answer = yield* post(auth, "save", body)
          expect([body, answer.status, answer.json]).toEqual([body, 400, { success: false, error: message }])
        }
        const updates: Array<[unknown, string]> = [
          [{ id: "42", name: "x" }, "id: must be a preset id (a UUID)"],
          [{ name: "x" }, "id is missing"],
          [{ id: existing.id }, "name or filters is missing"],
          [{ id: existing.id, name: "" }, nameMessage],
          [{ id: existing.id, scope: "shops" }, "scope: unknown parameter"],
          // Checked against the preset's own scope.
          [{ id: existing.id, filters: { min_price: 5 } }, "filters.min_price: unknown parameter"],
          [{ id: existing.id, filters: { duration: 5 } }, "filters.duration: unknown parameter"],
          [{ id: existing.id, filters: { max_duration: 86_401 } }, "filters.max_duration: must be an integer from 0 to 86400"]
        ]
        for (const [body, message] of updates) {
          expect([body, ...answerOf(yield* post(auth, "update", body))]).toEqual([body, ...error(400, message)])
        }
        const deletes: Array<[unknown, string]> = [
          [{}, "id is missing"],
          [{ id: "not-a-uuid" }, "id: must be a preset id (a UUID)"],
          [{ id: existing.id, name: "Existing" }, "name: unknown parameter"]
        ]
        for (const [body, message] of deletes) {
          expect([body, ...answerOf(yield* post(auth, "delete", body))]).toEqual([body, ...error(400, message)])
        }
        const queries: Array<[Record<string, string | number>, string]> = [
          [{ scope: "brands" }, "scope: must be one of categories, shops, creators, videos, products"],
          [{ page: 0 }, "page: must be an integer from 1 to 200"],
          [{ page: 201 }, "page: must be an integer from 1 to 200"],
          [{ page_size: 101 }, "page_size: must be an integer from 1 to 100"],
          [{ name: "Existing" }, "name: unknown parameter"]
        ]
        for (const [params, message] of queries) {
          expect([params, ...answerOf(yield* list(auth, params))]).toEqual([params, ...error(400, message)])
        }
        // Nothing was written by any of them.
        expect((yield* list(auth)).json.data).toEqual([existing])
        // The key may come in the query string, as on every metered route.
        expect((yield* list({}, { api_key, scope: "videos" })).json.total).toBe(1)
        expect((yield* balanceOf(id)).used).toBe(1 + saves.length + updates.length + deletes.length + queries.length + 2)
      }))

    it.effect(`at most ${maxPresets} presets per account, exactly, with saves in flight; a taken name, exactly once`, () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const { api_key, id } = yield* account()
        const auth = key(api_key)
        const filler = maxPresets - 5
        yield* sql`
          insert into shop_presets (account_id, scope, name, name_key, filters, created_at, updated_at)
          select ${id}::uuid, 'products', 'Filler ' || n, 'filler ' || n, '{}'::json, to_timestamp(0), to_timestamp(0)
            from generate_series(1, ${filler}) n`
        // Ten saves of one name at once: one wins, nine are told it is taken.
        const same = yield* Effect.forEach(
          Array.from({ length: 10 }, () => ({ name: "Race", scope: "shops", filters: {} })),
          (body) => post(auth, "save", body),
          { concurrency: "unbounded" }
        )
        expect(same.map((a) => a.status).sort()).toEqual([200, ...Array(9).fill(409)])
        // Then the last four places, with ten saves in flight.
        const answers = yield* Effect.forEach(
          Array.from({ length: 10 }, (_, i) => ({ name: `Fresh ${i}`, scope: "creators", filters: { min_followers: i } })),
          (body) => post(auth, "save", body),
          { concurrency: "unbounded" }
        )
        expect(answers.map((a) => a.status).sort()).toEqual([...Array(4).fill(200), ...Array(6).fill(400)])
        const full = error(400, `Presets are limited to ${maxPresets} per account`)
        for (const answer of answers.filter((a) => a.status === 400)) expect(answerOf(answer)).toEqual(full)
        expect((yield* list(auth, { page_size: 1 })).json.total).toBe(maxPresets)
        // At the cap: a new one is refused; a taken name is still told so; updates work.
        expect(answerOf(yield* post(auth, "save", { name: "One more", scope: "videos", filters: {} }))).toEqual(full)
        expect(answerOf(yield* post(auth, "save", { name: "race", scope: "shops", filters: {} }))).toEqual(
          error(409, "A preset named race already exists for shops")
        )
        const race = (yield* list(auth, { scope: "shops" })).json.data[0] as Preset
        expect((yield* post(auth, "update", { id: race.id, name: "Race won", filters: { min_rating: 1 } })).status).toBe(200)
        // The last page holds the last of them.
        expect((yield* list(auth, { page: 200, page_size: 1 })).json.data.length).toBe(1)
        // Deleting one makes room for one.
        expect((yield* post(auth, "delete", { id: race.id })).status).toBe(200)
        expect((yield* post(auth, "save", { name: "One more", scope: "videos", filters: {} })).status).toBe(200)
        expect(answerOf(yield* post(auth, "save", { name: "Two more", scope: "videos", filters: {} }))).toEqual(full)
        expect((yield* list(auth, { page_size: 1 })).json.total).toBe(maxPresets)
      }), { timeout: 60_000 })

    it.effect("the list: most recently updated first, paged (P2), filtered by scope", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account()
        const auth = key(api_key)
        // 8 presets a second apart, the scopes interleaved
        const made: Array<Preset> = []
        for (let i = 0; i < 8; i++) {
          made.unshift(yield* saveOk(auth, `Preset ${i}`, scopes[(i * 3) % scopes.length]!))
          yield* TestClock.adjust("1 second")
        }
        // Updating one brings it first; its creation date stays.
        const touched = made[5]!
        const updated = (yield* post(auth, "update", { id: touched.id, filters: { country: "US" } })).json.data as Preset
        expect(updated).toEqual({ ...touched, filters: { country: "US" }, updated_at: yield* now })
        const order = [updated, ...made.filter((p) => p.id !== touched.id)]
        const pages: Array<Preset> = []
        for (let page = 1; page <= 3; page++) {
          const answer = yield* list(auth, { page, page_size: 3 })
          expect(Object.keys(answer.json)).toEqual(["success", "data", "total", "page", "page_size"])
          expect(answer.json).toMatchObject({ success: true, total: 8, page, page_size: 3 })
          pages.push(...answer.json.data)
        }
        expect(pages).toEqual(order)
        expect((yield* list(auth, { page: 4, page_size: 3 })).json).toEqual({ success: true, data: [], total: 8, page: 4, page_size: 3 })
        expect((yield* list(auth, { page_size: 100 })).json.data).toEqual(order)
        for (const scope of scopes) {
          const ofScope = order.filter((p) => p.scope === scope)
          const answer = yield* list(auth, { scope, page: 1, page_size: 1 })
          expect([scope, answer.json]).toEqual([scope, { success: true, data: ofScope.slice(0, 1), total: ofScope.length, page: 1, page_size: 1 }])
          const all = yield* list(auth, { scope })
          expect([scope, all.json.data]).toEqual([scope, ofScope])
        }
      }))

    it.effect("legacy session paths (S4): the same presets under the browser session, no credit; 401 without a session", () =>
      Effect.gen(function*() {
        const email = `presets-${Date.now()}@example.com`
        const password = "presets password 1"
        const created = yield* account({ email, password })
        const session = yield* signIn(email, password)
        const at = yield* now
        const save = yield* post(session, "save", { name: "From the dashboard", scope: "videos", filters: { min_views: 1000 } }, legacyPrefix)
        const p = preset(save.json.data.id, "From the dashboard", "videos", { min_views: 1000 }, at)
        expect(answerOf(save)).toEqual(saved(p))
        expect(answerOf(yield* post(session, "save", { name: "from the DASHBOARD", scope: "videos", filters: {} }, legacyPrefix))).toEqual(
          error(409, "A preset named from the DASHBOARD already exists for videos")
        )
        const renamed = { ...p, name: "Renamed" }
        expect(answerOf(yield* post(session, "update", { id: p.id, name: "Renamed" }, legacyPrefix))).toEqual(saved(renamed))
        expect(answerOf(yield* post(session, "save", { name: "x", scope: "videos", filters: { page: 1 } }, legacyPrefix))).toEqual(
          error(400, "filters.page: unknown parameter")
        )
        const listed = yield* list(session, {}, legacyPrefix)
        expect(listed.body).toBe(JSON.stringify({ success: true, data: [renamed], total: 1, page: 1, page_size: 20 }))
        expect((yield* balanceOf(created.id)).used).toBe(0)
        // The key side sees the same presets.
        expect((yield* list(key(created.api_key))).json.data).toEqual([renamed])
        // A state change needs this service's Origin, as every session POST does.
        expect(answerOf(yield* post({ cookie: session.cookie }, "delete", { id: p.id }, legacyPrefix))).toEqual(
          error(403, "Cross-site request refused: Origin header missing")
        )
        for (const auth of [{}, key(created.api_key)]) {
          expect(answerOf(yield* list(auth, {}, legacyPrefix))).toEqual(error(401, "Unauthorized"))
          for (const route of ["save", "update", "delete"] as const) {
            expect([route, ...answerOf(yield* post(auth, route, { id: p.id }, legacyPrefix))]).toEqual([route, ...error(401, "Unauthorized")])
          }
        }
        expect(answerOf(yield* post(session, "delete", { id: p.id }, legacyPrefix))).toEqual([200, JSON.stringify({ success: true })])
        expect(answerOf(yield* post(session, "delete", { id: p.id }, legacyPrefix))).toEqual(error(404, "Preset not found"))
        expect((yield* list(session, {}, legacyPrefix)).json.total).toBe(0)
        // Only the one keyed list cost a credit.
        expect((yield* balanceOf(created.id)).used).toBe(1)
      }))

    it.effect("a presets path with a verb it does not register is the shop's metered 404 (G9)", () =>
      Effect.gen(function*() {
        const { api_key, id } = yield* account()
        const getSave = yield* call(`${v1}/filter-presets/save`, keyHeader(api_key))
        expect(answerOf(getSave)).toEqual(error(404, `Unknown shop endpoint: GET ${v1}/filter-presets/save`))
        const postList = yield* call(`${v1}/filter-presets`, { method: "POST", ...keyHeader(api_key) })
        expect(answerOf(postList)).toEqual(error(404, `Unknown shop endpoint: POST ${v1}/filter-presets`))
        expect((yield* balanceOf(id)).used).toBe(2)
      }))

    it.effect("every route is in the OpenAPI document once, at its v1 path, with a summary, described fields and the answers it can give", () =>
      Effect.gen(function*() {
        const spec = JSON.parse((yield* call("/openapi.json")).body)
        const resolve = (schema: any): any => schema?.$ref ? spec.components.schemas[schema.$ref.split("/").at(-1)] : schema
        const routes = [["get", "filter-presets"], ["post", "filter-presets/save"], ["post", "filter-presets/update"], ["post", "filter-presets/delete"]] as const
        for (const [method, suffix] of routes) {
          const operation = spec.paths[`${v1}/${suffix}`]?.[method]
          expect([suffix, typeof operation?.summary]).toEqual([suffix, "string"])
          expect(operation.security.length).toBe(3)
          // A save names no preset (no 404); a delete cannot conflict (no 409); the list takes no body (no 413).
          const statuses = {
            "filter-presets": ["200", "400", "401", "403", "429", "431", "500"],
            "filter-presets/save": ["200", "400", "401", "403", "409", "413", "429", "431", "500"],
            "filter-presets/update": ["200", "400", "401", "403", "404", "409", "413", "429", "431", "500"],
            "filter-presets/delete": ["200", "400", "401", "403", "404", "413", "429", "431", "500"]
          }[suffix]
          expect([suffix, Object.keys(operation.responses)]).toEqual([suffix, statuses])
          expect(spec.paths[`${legacyPrefix}/${suffix}`]).toBeUndefined()
          const fields: Array<[string, any]> = method === "get"
            ? operation.parameters.map((p: any) => [p.name, p])
            : Object.entries(resolve(operation.requestBody.content["application/json"].schema).properties)
          for (const [name, field] of fields) {
            const description = field.description ?? resolve(field.schema ?? field)?.description
            const described = typeof description === "string" && description !== "" && !description.startsWith("a string")
            expect([suffix, name, described]).toEqual([suffix, name, true])
          }
        }
      }))
  })
})
