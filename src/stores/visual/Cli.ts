import { Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import { ProductImages } from "./ProductImages.js"

const hash = Command.make(
  "hash",
  {
    limit: Options.integer("limit").pipe(Options.withDefault(100_000), Options.withDescription("Products to process at most (default 100000)")),
    concurrency: Options.integer("concurrency").pipe(Options.withDefault(8), Options.withDescription("Fetches at once, 1 to 64 (default 8)"))
  },
  ({ concurrency, limit }) =>
    Effect.gen(function*() {
      if (limit < 1) return yield* Effect.fail(new Error("--limit must be at least 1"))
      if (concurrency < 1 || concurrency > 64) return yield* Effect.fail(new Error("--concurrency must be from 1 to 64"))
      const report = yield* (yield* ProductImages).hashPending({ limit, concurrency })
      yield* Console.log(JSON.stringify(report))
      yield* Console.error(`${report.hashed} hashed, ${report.failed.length} failed`)
    })
).pipe(Command.withDescription("Fetch and index the main image of imported store products for visual search"))

/** `npm run admin -- store-images hash`: visual search for imported hosted-store products. */
export const storeImagesCommand = Command.make("store-images").pipe(
  Command.withDescription("Hosted stores' product images"),
  Command.withSubcommands([hash])
)
