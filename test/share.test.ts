import { describe, expect, it, layer } from "@effect/vitest"
import { TrustProxy } from "../src/platform/Forwarded.js"
import { artifacts, hasChromium, launchChromium } from "./support/Chromium.js"
import { Clock, Effect, Layer, Option, TestClock } from "effect"
import * as path from "node:path"
import { account, balanceOf, call, TestServer } from "./support/TestServer.js"
import { AdSearch } from "../src/ads/library/AdSearch.js"
import { ShareLinks } from "../src/ads/workspace/ShareLinks.js"
import { Workspace } from "../src/ads/workspace/Workspace.js"
import { redactUrl } from "../src/app/Server.js"
import { seedDemoWorkspace } from "../src/demo/WorkspaceDemo.js"
import { answerOf, boardOf, brands, failure, folderOf, get, keyAuth, post, saved, v1, workspaceServer } from "./support/Workspace.js"

/**
 * The public view of a shared board, `/share/<token>` (issue 19; INTERPRETATIONS W3): no key,
 * no session, no credit; JSON for `Accept: application/json`, a server-rendered page otherwise
 * (in real headless Chromium, phone width included); private, unindexed answers; limited per
 * client address (X-Forwarded-For here: TRUST_PROXY is on); revoked or expired is a 404.
 */

const viewsPerMinute = 5
const json = { accept: "application/json" }
let nextAddress = 1
/** A client address of its own for each caller, so one test's views never count against another's. */
const address = () => ({ "x-forwarded-for": `198.51.100.${nextAddress++}` })

const view = (token: string, headers: Record<string, string>, query = "") => call(`/share/${token}${query}`, { headers })

/** A board with two brands and three saved ads (one with a note the owner keeps to itself), and a link to it. */
const sharedBoard = (name = "Hooks that work") =>
  Effect.gen(function*() {
    const created = yield* account()
    const auth = keyAuth(created.api_key)
    const folder = yield* folderOf(auth, "Shared")
    const board = yield* boardOf(auth, folder, name)
    for (const brand of [brands.glow, brands.fit]) yield* post(auth, `${v1}/add-to-board`, { board_id: board, brand_id: brand.id })
    for (const ad_id of ["ws-a1", "ws-a2", "ws-a4"]) yield* post(auth, `${saved}/save`, { ad_id, board_id: board })
    yield* post(auth, `${saved}/annotate`, { ad_id: "ws-a1", note: "private thought", tags: ["secret-tag"] })
    const link = (yield* post(auth, `${v1}/create-share-link`, { board_id: board })).json.share_link
    return { ...created, auth, board, link }
  })


describe("the public share view (/share/<token>)", () => {
  it("keeps share tokens out of the access log, as API keys", () => {
    expect(redactUrl("/share/AbC_-123?page=2")).toBe("/share/[REDACTED]?page=2")
    expect(redactUrl("/share/AbC?api_key=adi_x")).toBe("/share/[REDACTED]?api_key=[REDACTED]")
    expect(redactUrl("/api/v1/brands/share-links?board_id=x")).toBe("/api/v1/brands/share-links?board_id=x")
  })

  layer(workspaceServer({ config: { trustProxy: TrustProxy.hops(1) }, env: { SHARE_VIEWS_PER_MINUTE: String(viewsPerMinute) } }))((it) => {
    it.effect("JSON for Accept: application/json: the board, its brands and a page of its ads; no key, no credit, private and unindexed", () =>
      Effect.gen(function*() {
        const owner = yield* sharedBoard()
        const used = (yield* balanceOf(owner.id)).used
        const answer = yield* view(owner.link.token, { ...json, ...address() })
        expect(answer.status).toBe(200)
        expect(answer.headers.get("content-type")).toContain("application/json")
        expect(answer.headers.get("cache-control")).toBe("private, no-store")
        expect(answer.headers.get("x-robots-tag")).toBe("noindex")
        // Not metered: no quota headers, no credit.
        expect(answer.headers.get("ratelimit")).toBe(null)
        expect((yield* balanceOf(owner.id)).used).toBe(used)

        // What the owner sees of the board, less what is the owner's own (notes, tags, other boards).
        const brandsOf = (yield* get(owner.auth, `${v1}/board-brands`, { board_id: owner.board })).json.data
        const adsOf = (yield* get(owner.auth, `${v1}/board-ads`, { board_id: owner.board })).json.data
        const expected = {
          success: true,
          board: { name: "Hooks that work", brands_count: 2, ads_count: 3, expires_at: owner.link.expires_at },
          brands: brandsOf,
          data: adsOf.map(({ board_ids: _b, note: _n, tags: _t, ...ad }: any) => ad),
          total: 3,
          page: 1,
          page_size: 20
        }
        expect(answer.body).toBe(JSON.stringify(expected))
        expect(answer.body).not.toContain("private thought")
        expect(answer.body).not.toContain("secret-tag")
        expect(answer.body).not.toContain(owner.board)

        // Paged and sorted like the owner's board contents.
        const paged = yield* view(owner.link.token, { ...json, ...address() }, "?sort=days_running&page=2&page_size=2")
        expect(JSON.parse(paged.body)).toMatchObject({ total: 3, page: 2, page_size: 2, data: [{ id: "ws-a4" }] })
        expect(answerOf({ ...(yield* view(owner.link.token, { ...json, ...address() }, "?page=0")), json: null })).toEqual(
          failure(400, "page: must be an integer from 1 to 100000")
        )
      }))

    it.effect("an HTML page otherwise, read-only and closed to framing and scripts", () =>
      Effect.gen(function*() {
        const owner = yield* sharedBoard("<Best> & \"boldest\"")
        for (const accept of [{}, { accept: "text/html,application/xhtml+xml,*/*;q=0.8" }, { accept: "*/*" }] as ReadonlyArray<Record<string, string>>) {
          const page = yield* view(owner.link.token, { ...accept, ...address() })
          expect(page.status).toBe(200)
          expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
          expect(page.headers.get("cache-control")).toBe("private, no-store")
          expect(page.headers.get("x-robots-tag")).toBe("noindex")
          expect(page.headers.get("content-security-policy")).toContain("default-src 'none'")
          expect(page.headers.get("x-frame-options")).toBe("DENY")
          expect(page.body).toContain(`<h1 id="board-name">&lt;Best&gt; &amp; &quot;boldest&quot;</h1>`)
          expect(page.body).toContain(`2 brands · 3 saved ads · this link works until ${owner.link.expires_at.slice(0, 10)}`)
          expect(page.body).not.toContain("private thought")
          expect(page.body).not.toContain("<script")
        }
      }))

    it.effect("revoked, expired, unknown and malformed tokens are a 404 (JSON or page), and so is a deleted board's link", () =>
      Effect.gen(function*() {
        const owner = yield* sharedBoard()
        const gone = failure(404, "Share link not found")
        const revoked = (yield* post(owner.auth, `${v1}/create-share-link`, { board_id: owner.board })).json.share_link
        expect((yield* view(revoked.token, { ...json, ...address() })).status).toBe(200)
        yield* post(owner.auth, `${v1}/revoke-share-link`, { share_link_id: revoked.id })
        const notFound = (answer: { status: number; body: string }) => [answer.status, answer.body]
        expect(notFound(yield* view(revoked.token, { ...json, ...address() }))).toEqual([...gone])
        const page = yield* view(revoked.token, address())
        expect([page.status, page.headers.get("content-type"), page.headers.get("cache-control")]).toEqual([404, "text/html; charset=utf-8", "private, no-store"])
        expect(page.body).toContain("This link is not valid: it may have expired or been revoked.")
        for (const token of ["A".repeat(43), "short", "x".repeat(100), "a.b"]) {
          expect([token.slice(0, 8), ...notFound(yield* view(token, { ...json, ...address() }))]).toEqual([token.slice(0, 8), ...gone])
        }

        // A link of a week works for a week, to the millisecond.
        const week = (yield* post(owner.auth, `${v1}/create-share-link`, { board_id: owner.board, expires_in_days: 7 })).json.share_link
        yield* TestClock.adjust("7 days")
        expect((yield* Clock.currentTimeMillis) >= Date.parse(week.expires_at)).toBe(true)
        expect(notFound(yield* view(week.token, { ...json, ...address() }))).toEqual([...gone])
        // The 30-day one still works, then stops.
        expect((yield* view(owner.link.token, { ...json, ...address() })).status).toBe(200)
        yield* TestClock.adjust("23 days")
        expect(notFound(yield* view(owner.link.token, { ...json, ...address() }))).toEqual([...gone])
        // An expired link is no live link: not listed, not revocable.
        expect((yield* get(owner.auth, `${v1}/share-links`)).json.total).toBe(0)
        expect(answerOf(yield* post(owner.auth, `${v1}/revoke-share-link`, { share_link_id: week.id }))).toEqual(gone)

        const again = (yield* post(owner.auth, `${v1}/create-share-link`, { board_id: owner.board })).json.share_link
        expect((yield* view(again.token, { ...json, ...address() })).status).toBe(200)
        yield* post(owner.auth, `${v1}/delete-board`, { board_id: owner.board })
        expect(notFound(yield* view(again.token, { ...json, ...address() }))).toEqual([...gone])
      }))

    it.effect("limited per client address: the views past the limit in a minute are a 429 with Retry-After; other addresses go on", () =>
      Effect.gen(function*() {
        const owner = yield* sharedBoard()
        const busy = address()
        // Misses count too: guessing tokens is as slow as reading boards.
        expect((yield* view("B".repeat(43), { ...json, ...busy })).status).toBe(404)
        for (let i = 1; i < viewsPerMinute; i++) expect((yield* view(owner.link.token, { ...json, ...busy })).status).toBe(200)
        const now = yield* Clock.currentTimeMillis
        const retry = Math.max(1, Math.ceil((Math.floor(now / 60_000) * 60_000 + 60_000 - now) / 1000))
        const limited = yield* view(owner.link.token, { ...json, ...busy })
        expect([limited.status, limited.body]).toEqual([429, JSON.stringify({ success: false, error: `Too many views. Try again in ${retry} seconds.` })])
        expect(limited.headers.get("retry-after")).toBe(String(retry))
        expect(limited.headers.get("cache-control")).toBe("private, no-store")
        const limitedPage = yield* view(owner.link.token, busy)
        expect([limitedPage.status, limitedPage.headers.get("retry-after")]).toEqual([429, String(retry)])
        expect(limitedPage.body).toContain(`Too many views. Try again in ${retry} seconds.`)
        // The client is the address the proxy appended (TRUST_PROXY=true: one hop), the right-most:
        // a forged entry to its left is no fresh allowance (issue 28).
        expect((yield* view(owner.link.token, { ...json, "x-forwarded-for": `10.0.0.1, ${busy["x-forwarded-for"]}` })).status).toBe(429)
        expect((yield* view(owner.link.token, { ...json, ...address() })).status).toBe(200)
        // The next minute, a fresh allowance.
        yield* TestClock.adjust(`${retry} seconds`)
        expect((yield* view(owner.link.token, { ...json, ...busy })).status).toBe(200)
      }))

    it.effect("the demo account's workspace: folders, boards, saved ads with notes, and one shared board; made once", () =>
      Effect.gen(function*() {
        const demo = yield* account()
        const auth = keyAuth(demo.api_key)
        const services = Layer.mergeAll(Workspace.Default, ShareLinks.Default, AdSearch.Default)
        const shared = yield* Effect.provide(seedDemoWorkspace(demo.id), services)
        expect(Option.getOrThrow(shared)).toMatch(/^\/share\/[A-Za-z0-9_-]{43}$/)
        const tree = (yield* get(auth, `${v1}/folders-with-boards`)).json.data
        expect(tree.map((f: any) => [f.name, f.boards.map((b: any) => b.name)])).toEqual([
          ["Competitors", ["Category leaders", "Challengers"]],
          ["Inspiration", ["Hooks that work", "Long runners"]],
          ["Saved ads", ["Saved ads"]]
        ])
        // Every board holds something (the fixture library has three brands and a few ads).
        expect(tree[0].boards[0].brands_count).toBeGreaterThan(0)
        for (const board of tree.flatMap((f: any) => f.boards).slice(2)) expect([board.name, board.ads_count > 0]).toEqual([board.name, true])
        const hooks = (yield* get(auth, `${v1}/board-ads`, { board_id: tree[1].boards[0].id })).json.data
        expect(hooks.every((ad: any) => ad.note?.startsWith("Opens with") && ad.tags.includes("hook"))).toBe(true)
        const view = yield* call(Option.getOrThrow(shared), { headers: { ...json, ...address() } })
        expect(JSON.parse(view.body).board).toMatchObject({ name: "Hooks that work", ads_count: hooks.length })
        // A second start changes nothing.
        const before = (yield* get(auth, `${v1}/folders-with-boards`)).body
        expect(yield* Effect.provide(seedDemoWorkspace(demo.id), services)).toEqual(Option.none())
        expect((yield* get(auth, `${v1}/folders-with-boards`)).body).toBe(before)
      }))

    it.scoped.skipIf(!hasChromium)("the page in headless Chromium: the board, its brands and ads, pages; nothing overflows a 390 px phone", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const longName = `Competitor${"X".repeat(90)}`
        const owner = yield* sharedBoard(longName)
        const browser = yield* launchChromium
        const run = <A>(f: () => Promise<A>) => Effect.promise(f)
        const context = yield* run(() => browser.newContext({ viewport: { width: 390, height: 844 } }))
        const page = yield* run(() => context.newPage())
        const response = yield* run(() => page.goto(`${url}/share/${owner.link.token}?page_size=2`))
        expect(response?.status()).toBe(200)
        expect(yield* run(() => page.textContent("#board-name"))).toBe(longName)
        expect(yield* run(() => page.textContent("#board-summary"))).toBe(`2 brands · 3 saved ads · this link works until ${owner.link.expires_at.slice(0, 10)}`)
        expect(yield* run(() => page.locator("#brands li").count())).toBe(2)
        expect(yield* run(() => page.locator("article.ad").count())).toBe(2)
        expect(yield* run(() => page.locator("article.ad h3").allTextContents())).toEqual(["Fourth wall", "Second wind"])
        yield* run(() => page.screenshot({ path: path.join(artifacts(), "share-page-phone.png"), fullPage: true }))
        expect(yield* run(() => page.evaluate("document.documentElement.scrollWidth"))).toBeLessThanOrEqual(390)

        // The next page, by its link.
        yield* run(() => Promise.all([page.waitForURL(/page=2/), page.click("#older")]))
        expect(yield* run(() => page.locator("article.ad h3").allTextContents())).toEqual(["First light"])
        expect(yield* run(() => page.isVisible("#newer"))).toBe(true)
        yield* run(() => page.setViewportSize({ width: 1280, height: 900 }))
        yield* run(() => page.screenshot({ path: path.join(artifacts(), "share-page-desktop.png"), fullPage: true }))
      }), 60_000)
  })
})
