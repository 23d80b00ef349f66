import { Effect } from "effect"
import { existsSync, mkdirSync } from "node:fs"
import * as path from "node:path"
import { type Browser, chromium } from "playwright-core"

/** Debian's Chromium (`.ci/run` installs it); no browser is downloaded. Browser tests skip without it. */
export const chromiumPath = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"
export const hasChromium = existsSync(chromiumPath)

/** Where browser tests leave their screenshots (made when first asked for). */
export const artifacts = () => {
  const dir = path.resolve("test-artifacts")
  mkdirSync(dir, { recursive: true })
  return dir
}

/** Headless Chromium as root in a closed network: no sandbox, no background connections; closed with the scope. */
export const launchChromium = Effect.acquireRelease(
  Effect.promise(() =>
    chromium.launch({
      executablePath: chromiumPath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    })
  ),
  (browser: Browser) => Effect.promise(() => browser.close())
)
