import { SqlClient } from "@effect/sql"
import { Accounts } from "../src/access/accounts/Accounts.js"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ProbeApiLive } from "./support/ProbeApi.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, balanceOf, call, keyHeader, signIn, testServer } from "./support/TestServer.js"

const password = "mirror password 1"

const ledgerRoutes = (accountId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ route: string }>`select route from request_ledger where account_id = ${accountId}::uuid order by id`).pipe(
    Effect.map((rows) => rows.map((r) => r.route)),
    Effect.orDie
  )

/**
 * A metered family mirrored with one contract line each (ProbeApi): at a legacy path under the
 * browser session (S4) and at an un-versioned alias (S3), served by the family's own handlers.
 */
describe("legacy session paths and un-versioned aliases (S3, S4)", () => {
  layer(testServer({ api: ProbeApiLive }).pipe(Layer.provideMerge(TestDatabase)))((it) => {
    it.effect("a legacy path runs the same handler under the session: no credit, no ledger row, but the daily quota applies", () =>
      Effect.gen(function*() {
        const email = `legacy-${Date.now()}@example.com`
        const created = yield* account({ email, password, plan: "basic", patch: { daily_search_limit: 2 } })
        const session = yield* signIn(email, password)
        const search = () => call("/api/probe/search", { method: "POST", headers: session })
        expect((yield* search()).body).toBe(`{"success":true}`)
        expect((yield* search()).status).toBe(200)
        const exhausted = yield* search()
        expect([exhausted.status, exhausted.body]).toEqual([
          403,
          `{"error":"insufficient_credits","message":"You have used up your daily search quota. Upgrade to Premium for unlimited searches.","upgrade":"premium"}`
        ])
        // The same quota as the key side: exhausted there too, where the call still costs its credit (G4).
        const keyed = yield* call("/api/v1/probe/search", { method: "POST", ...keyHeader(created.api_key) })
        expect(keyed.status).toBe(403)
        expect((yield* balanceOf(created.id)).used).toBe(1)
        expect(yield* ledgerRoutes(created.id)).toEqual(["/api/v1/probe/search"])
      }))

    it.effect("a legacy path answers 401 without a session, and keeps each route's own errors and input rules", () =>
      Effect.gen(function*() {
        const email = `legacy-errors-${Date.now()}@example.com`
        const created = yield* account({ email, password })
        for (const init of [{}, keyHeader(created.api_key)]) {
          const answer = yield* call("/api/probe/soft", init)
          expect([answer.status, answer.body]).toEqual([401, `{"success":false,"error":"Unauthorized"}`])
        }
        const session = yield* signIn(email, password)
        const badId = yield* call("/api/probe/items/not%20an%20id", { headers: session })
        expect([badId.status, badId.body]).toEqual([400, `{"success":false,"error":"Invalid id"}`])
        const missing = yield* call("/api/probe/items/nope", { headers: session })
        expect([missing.status, missing.body]).toEqual([404, `{"success":false,"error":"Item not found"}`])
        const died = yield* call("/api/probe/dies", { headers: session })
        expect([died.status, died.body]).toEqual([500, `{"success":false,"error":"Internal server error"}`])
        // S1: the cookie rides along with another site's request; a state change needs our Origin.
        const searchesUsed = Effect.flatMap(Accounts, (accounts) => Effect.orDie(accounts.view(created.id))).pipe(Effect.map((view) => view.daily_search.used))
        const before = yield* searchesUsed
        for (const [origin, error] of [[undefined, "Origin header missing"], ["https://evil.example", "Origin does not match this service"]] as const) {
          const headers = { cookie: session.cookie, ...(origin === undefined ? {} : { origin }) }
          const forged = yield* call("/api/probe/search", { method: "POST", headers })
          expect([forged.status, forged.body]).toEqual([403, `{"success":false,"error":"Cross-site request refused: ${error}"}`])
        }
        expect(yield* searchesUsed).toBe(before)
        expect((yield* balanceOf(created.id)).used).toBe(0)
      }))

    it.effect("an alias is metered exactly like its v1 twin: key, credit, rate headers, ledger under the path called", () =>
      Effect.gen(function*() {
        const created = yield* account()
        const answer = yield* call("/api/probe-alias/soft", keyHeader(created.api_key))
        expect([answer.status, answer.body]).toEqual([200, `{"success":false,"message":"Nothing matched"}`])
        expect(answer.headers.get("ratelimit")).toBe(`"minute";r=59;t=60`)
        expect((yield* balanceOf(created.id)).used).toBe(1)
        const none = yield* call("/api/probe-alias/soft")
        expect([none.status, none.body]).toEqual([401, `{"success":false,"error":"Unauthorized"}`])
        const died = yield* call("/api/probe-alias/dies", keyHeader(created.api_key))
        expect(died.status).toBe(500)
        expect((yield* balanceOf(created.id)).used).toBe(1)
        expect(yield* ledgerRoutes(created.id)).toEqual(["/api/probe-alias/soft", "/api/probe-alias/dies"])
      }))

    it.effect("leaves the mirrors out of OpenAPI: each route is documented once, at its canonical path (issue 27)", () =>
      Effect.gen(function*() {
        const doc = JSON.parse((yield* call("/openapi.json")).body)
        expect(doc.paths["/api/v1/probe/soft"].get.operationId).toBe("probe.soft")
        expect(doc.paths["/api/probe/soft"]).toBeUndefined()
        expect(doc.paths["/api/probe-alias/soft"]).toBeUndefined()
        expect(JSON.stringify(doc.tags)).not.toContain("@")
      }))
  })
})
