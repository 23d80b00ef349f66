import { Config, Console, Effect, Layer, Option } from "effect"
import { Accounts } from "./accounts/Accounts.js"
import { AppConfig } from "./AppConfig.js"

export const demoEmail = "demo@adintel.local"

/**
 * On the embedded database's first start, a demo account so a newcomer can call the API at
 * once: its key and a ready-to-paste `curl` line are printed (once: the key is not logged).
 */
export const DemoAccountLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const external = yield* Config.option(Config.string("DATABASE_URL"))
    const enabled = yield* Config.boolean("DEMO_ACCOUNT").pipe(
      Config.withDefault(Option.isNone(external) || external.value === "")
    )
    if (!enabled) return
    const accounts = yield* Accounts
    const { host, port } = yield* AppConfig
    const existing = yield* Effect.option(accounts.resolve(demoEmail))
    if (Option.isSome(existing)) {
      yield* Effect.logInfo(`Demo account: ${demoEmail} (npm run admin -- accounts show ${demoEmail})`)
      return
    }
    const created = yield* accounts.create({ email: demoEmail, plan: "pro" })
    const base = `http://${host.includes(":") ? `[${host}]` : host}:${port}`
    yield* Console.log(
      [
        "",
        `Created the demo account ${demoEmail} (plan: pro). Its API key, shown this once:`,
        "",
        `  ${created.api_key}`,
        "",
        "Try it:",
        "",
        `  curl -H "X-API-Key: ${created.api_key}" ${base}/api/v1/credits`,
        "",
        `API reference: ${base}/docs`,
        ""
      ].join("\n")
    )
  }).pipe(Effect.orDie)
)
