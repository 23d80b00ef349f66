import { Command, ValidationError } from "@effect/cli"
import type { NodeContext } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import { Accounts } from "../access/accounts/Accounts.js"
import { accountsCommand } from "../access/accounts/Cli.js"
import { creativesCommand } from "../ads/library/Cli.js"
import { CreativeHasher } from "../ads/library/CreativeHasher.js"
import { demoCommand } from "../demo/Cli.js"
import { DemoData } from "../demo/DemoData.js"
import { importCommand } from "../ingest/Cli.js"
import { Ingest } from "../ingest/Ingest.js"
import { storeImagesCommand } from "../stores/visual/Cli.js"
import { ProductImages } from "../stores/visual/ProductImages.js"

/**
 * `npm run admin`: the operator commands over the same services as the server, no HTTP.
 * `src/cli.ts` runs them on the configured database; a test may run them in its own process.
 */
const adminCommand = Command.make("admin").pipe(
  Command.withDescription("AdIntel operator commands"),
  Command.withSubcommands([accountsCommand, importCommand, demoCommand, creativesCommand, storeImagesCommand])
)

const cli = Command.run(adminCommand, { name: "adintel admin", version: "0.1.0" })

/** The services the commands use, over whatever database and configuration are provided. */
export const AdminServices = Layer.mergeAll(Accounts.Default, DemoData.Default, CreativeHasher.Default, Ingest.Default, ProductImages.Default)

/** What went wrong, in one line; the CLI library prints its own usage errors. */
const describe = (error: unknown): string | undefined => {
  if (ValidationError.isValidationError(error)) return undefined
  if (typeof error === "object" && error !== null && "error" in error && typeof error.error === "string") return error.error
  return error instanceof Error ? error.message : String(error)
}

/**
 * The admin CLI on `argv` (shaped as `process.argv`) with `services`. A failure, of a command or
 * of a service that could not start (the embedded database), is printed as one line on stderr,
 * then fails: the process exits 1 without reporting it again.
 */
export const runAdmin = <E, R>(
  argv: ReadonlyArray<string>,
  services: Layer.Layer<Accounts | DemoData | CreativeHasher | Ingest | ProductImages | NodeContext.NodeContext, E, R>
) =>
  cli(argv).pipe(
    Effect.provide(services),
    Effect.tapError((error) => {
      const message = describe(error)
      return message === undefined ? Effect.void : Console.error(`error: ${message}`)
    })
  )
