import { Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import { progressLine } from "../../platform/Progress.js"
import { CreativeHasher } from "./CreativeHasher.js"

const hash = Command.make(
  "hash",
  {
    limit: Options.integer("limit").pipe(Options.withDefault(100_000), Options.withDescription("Creatives to process at most (default 100000)")),
    concurrency: Options.integer("concurrency").pipe(Options.withDefault(8), Options.withDescription("Fetches at once, 1 to 64 (default 8)")),
    retryFailed: Options.boolean("retry-failed").pipe(Options.withDescription("Try again the creatives earlier runs could not fetch"))
  },
  ({ concurrency, limit, retryFailed }) =>
    Effect.gen(function*() {
      if (limit < 1) return yield* Effect.fail(new Error("--limit must be at least 1"))
      if (concurrency < 1 || concurrency > 64) return yield* Effect.fail(new Error("--concurrency must be from 1 to 64"))
      const hasher = yield* CreativeHasher
      const progress = yield* progressLine("creatives")
      const report = yield* hasher.hashPending({
        limit,
        concurrency,
        retryFailed,
        onProgress: ({ failed, hashed }) => progress.update(hashed + failed, undefined, `(${hashed} hashed, ${failed} failed)`)
      })
      const seconds = yield* progress.finish
      yield* Console.log(JSON.stringify(report))
      yield* Console.error(`${report.hashed} hashed, ${report.failed} failed in ${seconds.toFixed(1)} s`)
    })
).pipe(Command.withDescription("Fetch and hash imported ads' creatives (images, video thumbnails) for image similarity"))

/** `npm run admin -- creatives hash`: image similarity for imported ads. */
export const creativesCommand = Command.make("creatives").pipe(
  Command.withDescription("Ad creatives"),
  Command.withSubcommands([hash])
)
