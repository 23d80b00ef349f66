import { describe, expect, layer } from "@effect/vitest"
import { artifacts, hasChromium, launchChromium } from "./support/Chromium.js"
import { Effect, Layer } from "effect"
import * as path from "node:path"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, call, keyHeader, TestServer, testServer } from "./support/TestServer.js"


const password = "a browser password"

describe.skipIf(!hasChromium)("the API-key page in a real browser (headless Chromium)", () => {
  layer(testServer().pipe(Layer.provideMerge(TestDatabase)))((it) => {
    it.scoped("signs in, reveals and copies the key, regenerates it, signs out", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const email = `browser-${Date.now()}@example.com`
        const created = yield* account({ email, password, plan: "pro" })
        for (let i = 0; i < 3; i++) yield* call("/api/v1/credits", keyHeader(created.api_key))
        const browser = yield* launchChromium
        const context = yield* Effect.promise(() => browser.newContext({ viewport: { width: 1280, height: 900 } }))
        yield* Effect.promise(() => context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: url }))
        const page = yield* Effect.promise(() => context.newPage())
        const run = <A>(f: () => Promise<A>) => Effect.promise(f)

        // The key page sends a stranger to sign in, and back afterwards.
        yield* run(() => page.goto(`${url}/api`))
        expect(new URL(page.url()).pathname).toBe("/login")
        yield* run(() => page.fill("#email", email))
        yield* run(() => page.fill("#password", "wrong password"))
        yield* run(() => page.click("button[type=submit]"))
        expect(yield* run(() => page.textContent("[role=alert]"))).toBe("Wrong e-mail or password.")
        yield* run(() => page.screenshot({ path: path.join(artifacts(), "sign-in.png") }))
        yield* run(() => page.fill("#password", password))
        yield* run(() => Promise.all([page.waitForURL(`${url}/api`), page.click("button[type=submit]")]))

        expect(yield* run(() => page.textContent("#calls-total"))).toBe("· 3 in all · busiest day 3")
        // Masked until revealed; copied whole.
        const masked = yield* run(() => page.textContent("#masked-key"))
        expect(masked).toBe(`adi_${"•".repeat(12)}${created.api_key.slice(-4)}`)
        expect(yield* run(() => page.isVisible("#api-key"))).toBe(false)
        yield* run(() => page.click("#reveal summary"))
        expect(yield* run(() => page.textContent("#api-key"))).toBe(created.api_key)
        yield* run(() => page.click("#copy-key"))
        expect(yield* run(() => page.evaluate("navigator.clipboard.readText()"))).toBe(created.api_key)
        expect(yield* run(() => page.textContent("#copy-key"))).toBe("Copied")

        yield* run(() => page.screenshot({ path: path.join(artifacts(), "key-page-desktop.png"), fullPage: true }))
        yield* run(() => page.setViewportSize({ width: 390, height: 844 }))
        yield* run(() => page.screenshot({ path: path.join(artifacts(), "key-page-phone.png"), fullPage: true }))
        // Nothing overflows the phone's width.
        expect(yield* run(() => page.evaluate("document.documentElement.scrollWidth"))).toBeLessThanOrEqual(390)

        // Regenerate: the page shows the new key once; the API refuses the old one at once.
        yield* run(() => Promise.all([page.waitForURL(`${url}/api`), page.click("#regenerate")]))
        expect(yield* run(() => page.textContent("[role=status]"))).toContain("A new API key was created")
        const fresh = (yield* run(() => page.textContent("#api-key")))!
        expect(yield* run(() => page.isVisible("#api-key"))).toBe(true)
        expect(fresh).toMatch(/^adi_[0-9a-f]{48}$/)
        expect(fresh).not.toBe(created.api_key)
        expect((yield* call("/api/v1/credits", keyHeader(created.api_key))).status).toBe(401)
        expect((yield* call("/api/v1/credits", keyHeader(fresh))).status).toBe(200)

        // Sign out: the key page is closed again.
        yield* run(() => Promise.all([page.waitForURL(`${url}/login`), page.click("text=Sign out")]))
        yield* run(() => page.goto(`${url}/api`))
        expect(new URL(page.url()).pathname).toBe("/login")
      }), 60_000)
  })
})
