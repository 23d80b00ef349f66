import { Command, ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer, Logger, LogLevel } from "effect"
import { Accounts } from "./access/accounts/Accounts.js"
import { accountsCommand } from "./access/accounts/Cli.js"
import { creativesCommand } from "./ads/library/Cli.js"
import { CreativeHasher } from "./ads/library/CreativeHasher.js"
import { importCommand } from "./ingest/Cli.js"
import { Ingest } from "./ingest/Ingest.js"
import { demoCommand } from "./demo/Cli.js"
import { DemoData } from "./demo/DemoData.js"
import { AppConfig } from "./platform/AppConfig.js"
import * as Database from "./platform/db/Database.js"
import { storeImagesCommand } from "./stores/visual/Cli.js"
import { ProductImages } from "./stores/visual/ProductImages.js"

const adminCommand = Command.make("admin").pipe(
  Command.withDescription("AdIntel operator commands"),
  Command.withSubcommands([accountsCommand, importCommand, demoCommand, creativesCommand, storeImagesCommand])
)

/** The composition root of `npm run admin`: the same services as the server, no HTTP. */
const cli = Command.run(adminCommand, { name: "adintel admin", version: "0.1.0" })

const ServicesLive = Layer.mergeAll(Accounts.Default, DemoData.Default, CreativeHasher.Default, Ingest.Default, ProductImages.Default).pipe(
  Layer.provide(AppConfig.layer),
  Layer.provide(Database.layer),
  Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
)

/** What went wrong, in one line; the CLI library prints its own usage errors. */
const describe = (error: unknown): string | undefined => {
  if (ValidationError.isValidationError(error)) return undefined
  if (typeof error === "object" && error !== null && "error" in error && typeof error.error === "string") return error.error
  return error instanceof Error ? error.message : String(error)
}

cli(process.argv).pipe(
  Effect.provide(Layer.mergeAll(ServicesLive, NodeContext.layer)),
  // Print one line, then fail: runMain exits 1 without reporting it again. After the services
  // are provided, so that one failing to start (the embedded database) is printed too.
  Effect.tapError((error) => {
    const message = describe(error)
    return message === undefined ? Effect.void : Console.error(`error: ${message}`)
  }),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
