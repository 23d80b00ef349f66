import { FetchHttpClient } from "@effect/platform"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { readFileSync } from "node:fs"
import { makeClient } from "../src/client.js"
import { runChild } from "../src/platform/ChildProcess.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, TestServer, testServer } from "./support/TestServer.js"

/**
 * The typed client integrators import (issue 18): answers decoded by the contract, and the
 * spec's refusals as errors a caller tells apart by tag, with what each carries.
 */

const server = testServer({ config: { rateLimitPerMinute: 3 } }).pipe(Layer.provide(TestDatabase))

const clientFor = (apiKey: string) => Effect.flatMap(TestServer, ({ url }) => makeClient({ baseUrl: url, apiKey: Redacted.make(apiKey) }))

describe("the typed client (adintel/client)", () => {
  layer(Layer.merge(server, FetchHttpClient.layer))((it) => {
    it.effect("answers a call with the decoded body", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "pro" })
        const client = yield* clientFor(api_key)
        const { credits } = yield* client.credits.balance()
        expect(credits).toEqual({ used: 1, limit: 5000, remaining: 4999, addon_remaining: 0, total_remaining: 4999 })
        const page = yield* client.adlibrary.social({ urlParams: { limit: 5 } })
        expect(page).toEqual({ success: true, data: [], scroll_token: null, has_more: false })
      }))

    it.effect("fails with the spec's refusals, typed: Unauthorized, PlanRequired, InvalidRequest, NotFound", () =>
      Effect.gen(function*() {
        const unknown = yield* Effect.flip(Effect.flatMap(clientFor(`adi_${"0".repeat(48)}`), (client) => client.credits.balance()))
        expect(unknown._tag).toBe("Unauthorized")
        const { api_key } = yield* account({ plan: "free" })
        const free = yield* Effect.flip(Effect.flatMap(clientFor(api_key), (client) => client.credits.balance()))
        expect(free).toMatchObject({ _tag: "PlanRequired", error: "AdIntel Basic plan or higher required" })
        const paid = yield* account({ plan: "basic" })
        const client = yield* clientFor(paid.api_key)
        const bad = yield* Effect.flip(client.magicAi.similar({ payload: {} }))
        expect(bad).toMatchObject({ _tag: "InvalidRequest", error: "Send exactly one of ad_id, text or image_url (or the scroll_token of an earlier answer)" })
        const missing = yield* Effect.flip(client.ads.clipappAd({ path: { id: "no-such-ad" } }))
        expect(missing).toMatchObject({ _tag: "NotFound", error: "Ad not found" })
        // What the contract itself rules out is refused before it is sent.
        expect((yield* Effect.flip(client.ads.clipappAd({ path: { id: "no.such" } })))._tag).toBe("ParseError")
      }))

    it.effect("a rate-limit refusal carries its retry seconds; credits exhausted carries the credits object", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "basic" })
        const client = yield* clientFor(api_key)
        for (let i = 0; i < 3; i++) yield* client.credits.balance()
        const limited = yield* Effect.flip(client.credits.balance())
        expect(limited._tag).toBe("RateLimited")
        if (limited._tag === "RateLimited") {
          expect(limited.error).toBe("Rate limit exceeded. Max 3 requests per minute.")
          expect(limited.retryAfterSeconds).toBeGreaterThanOrEqual(1)
          expect(limited.retryAfterSeconds).toBeLessThanOrEqual(60)
        }
        const spent = yield* account({ plan: "basic", patch: { monthly_limit: 0 } })
        const exhausted = yield* Effect.flip(Effect.flatMap(clientFor(spent.api_key), (c) => c.credits.balance()))
        expect(exhausted._tag).toBe("CreditsExhausted")
        if (exhausted._tag === "CreditsExhausted") {
          expect(exhausted.credits).toEqual({ used: 0, limit: 0, remaining: 0, addon_remaining: 0, total_remaining: 0 })
          expect(exhausted.purchase.url).toBe("https://adintel.local/billing/credit-packs")
        }
      }))

    it.effect("a daily search quota refusal is DailyQuota", () =>
      Effect.gen(function*() {
        const { api_key } = yield* account({ plan: "basic", patch: { daily_search_limit: 0 } })
        const client = yield* clientFor(api_key)
        const refused = yield* Effect.flip(client.shopExplore.productsCount({ urlParams: {} }))
        expect(refused).toMatchObject({ _tag: "DailyQuota", error: "insufficient_credits", upgrade: "premium" })
      }))

    it.effect("the example script runs against a live server and prints the balance", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const { api_key } = yield* account({ plan: "pro" })
        const result = yield* runChild(process.execPath, ["--import", "tsx", "examples/client.ts", url, api_key], { timeout: "60 seconds" })
        expect(result.code).toBe(0)
        expect(result.stdout).toContain("credits left: 4999 of 5000")
        expect(result.stdout).toContain("social ads on the first page: 0")
      }), { timeout: 90_000 })

    it("the package exports the client's compiled entry point and its types", () => {
      const pkg = JSON.parse(readFileSync("package.json", "utf8"))
      expect(pkg.exports["./client"]).toEqual({ types: "./dist/client.d.ts", default: "./dist/client.js" })
      const build = JSON.parse(readFileSync("tsconfig.build.json", "utf8"))
      expect(build.compilerOptions).toMatchObject({ outDir: "dist", rootDir: "src", declaration: true })
    })
  })
})
