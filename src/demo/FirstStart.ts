import { Config, Console, Effect, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import { Accounts } from "../access/accounts/Accounts.js"
import { AppConfig } from "../platform/AppConfig.js"
import { databaseUrl } from "../platform/db/Database.js"
import { progressOf } from "../platform/Progress.js"
import { Readiness } from "../system/Readiness.js"
import { TrendCounts } from "../ads/trends/TrendCounts.js"
import { DemoData } from "./DemoData.js"
import { seedDemoWorkspace } from "./WorkspaceDemo.js"
import { demoTrackedBrands } from "./TrackedBrands.js"

export const demoEmail = "demo@adintel.local"

const settings = Effect.gen(function*() {
  const external = yield* databaseUrl
  return {
    enabled: yield* Config.boolean("DEMO_DATA").pipe(Config.withDefault(Option.isNone(external))),
    scale: yield* Config.literal("small", "demo", "bench")("DEMO_SCALE").pipe(Config.withDefault("demo" as const)),
    seed: yield* Config.integer("DEMO_SEED").pipe(Config.withDefault(1))
  }
}).pipe(Effect.orDie)

/**
 * The first start on the embedded database: the service answers `/health` at once, loads the
 * demo world in the background (`/ready` is 503 with the percentage meanwhile), creates the demo
 * account, then prints its key and a ready-to-paste `curl` line. Later starts find the data
 * loaded and only say where the account is. A load cut off is finished by the next start.
 */
export const FirstStartLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const { enabled, scale, seed } = yield* settings
    if (!enabled) return
    const demo = yield* DemoData
    const accounts = yield* Accounts
    const readiness = yield* Readiness
    const counts = yield* TrendCounts
    const { host, port } = yield* AppConfig
    if (Option.isSome(yield* demo.loaded)) {
      yield* Effect.logInfo(`Demo data loaded; demo account ${demoEmail} (npm run admin -- accounts show-key ${demoEmail})`)
      return
    }
    const task = "Loading demo data"
    yield* readiness.loading(task, 0)
    let reported = -10
    const progress = yield* progressOf("records")
    const load = Effect.gen(function*() {
      yield* Effect.logInfo(`${task} (scale ${scale}): /ready answers 503 until it is done`)
      // A load cut off and resumed finds the account made the first time; its password was
      // printed then (or is set with `accounts set-password`).
      const password = randomBytes(12).toString("base64url")
      const account = yield* Effect.orElse(
        Effect.flatMap(accounts.resolve(demoEmail), (id) => Effect.map(accounts.revealKey(id), (api_key) => ({ api_key, password: Option.none<string>() }))),
        () => Effect.map(accounts.create({ email: demoEmail, plan: "pro", password }), ({ api_key }) => ({ api_key, password: Option.some(password) }))
      )
      yield* demo.load({
        scale,
        seed,
        // The trends of the demo's ads counted while their creatives are drawn (issue 29).
        besideCreatives: counts.flush,
        onProgress: ({ done, entity, total }) => {
          const percent = (100 * done) / Math.max(1, total)
          // Every tenth of the way, with the rate and the time left (issue 29).
          const log = percent - reported >= 10
            ? Effect.flatMap(progress.text(done, total), (text) => Effect.logInfo(`${task}: ${text} (${entity})`)).pipe(Effect.tap(() => (reported = percent)))
            : Effect.void
          return Effect.zipRight(readiness.loading(task, percent), log)
        }
      })
      const shared = yield* Effect.flatMap(Effect.orDie(accounts.resolve(demoEmail)), seedDemoWorkspace)
      yield* demoTrackedBrands(yield* Effect.orDie(accounts.resolve(demoEmail)))
      // The key is printed when every route answers: the trends of the demo's ads counted too (issue 28).
      yield* readiness.loading("Counting the demo's trends", 100)
      yield* counts.flush
      yield* readiness.done
      const base = `http://${host.includes(":") ? `[${host}]` : host}:${port}`
      yield* Console.log(
        [
          "",
          `Demo data loaded. The demo account ${demoEmail} (plan: pro) has this API key:`,
          "",
          `  ${account.api_key}`,
          "",
          "Try it:",
          "",
          `  curl -H "X-API-Key: ${account.api_key}" ${base}/api/v1/credits`,
          "",
          `API reference: ${base}/docs`,
          "",
          ...Option.match(shared, { onSome: (path) => [`A shared demo board (no key needed): ${base}${path}`, ""], onNone: () => [] }),
          ...Option.match(account.password, {
            onSome: (password) => [`Key page: ${base}/login  (${demoEmail} / ${password})`, ""],
            onNone: () => [`Key page: ${base}/login  (password: npm run admin -- accounts set-password ${demoEmail} --password ...)`, ""]
          })
        ].join("\n")
      )
    })
    yield* Effect.forkScoped(
      load.pipe(
        Effect.catchAllCause((cause) =>
          Effect.zipRight(
            Effect.logError("Loading demo data failed; restart to try again", cause),
            readiness.loading("Loading demo data failed; restart to try again", 0)
          )
        )
      )
    )
  })
)
