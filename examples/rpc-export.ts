/**
 * Exporting every match of an ad search with the typed RPC client (`/rpc`, NDJSON over HTTP).
 *
 *   npx tsx examples/rpc-export.ts [base URL] [API key]      (or ADINTEL_URL / ADINTEL_API_KEY)
 *
 * In your own project, after adding this package as a dependency:
 *   import { makeClient } from "adintel/rpc"
 */
import { Effect, Stream } from "effect"
import { makeClient } from "../src/rpc.js"

const [baseUrl = process.env["ADINTEL_URL"] ?? "http://127.0.0.1:3000", apiKey = process.env["ADINTEL_API_KEY"] ?? ""] = process.argv.slice(2)

const program = Effect.gen(function*() {
  const client = yield* makeClient(baseUrl, apiKey)

  // A procedure per research route, typed like the route.
  const { credits } = yield* client.Credits({})
  console.log(`credits left: ${credits.total_remaining}`)

  // Every match, a page of 100 at a time; each page costs one credit.
  let ads = 0
  yield* client.ExportSearch({ library: "social", filters: { status: "active" } }).pipe(
    Stream.runForEach((page) =>
      Effect.sync(() => {
        ads += page.data.length
        console.log(`page ${page.page}: ${page.data.length} ads (${page.data[0]?.advertiser.name ?? "-"}, ...)`)
      }))
  )
  console.log(`exported ${ads} ads`)
}).pipe(
  // Refusals arrive typed, told apart by tag; a stream cut by the credits ends with CreditsExhausted.
  Effect.catchTags({
    Unauthorized: () => Effect.sync(() => console.error("The API key was refused: check ADINTEL_API_KEY.")),
    PlanRequired: ({ error }) => Effect.sync(() => console.error(error)),
    RateLimited: ({ error }) => Effect.sync(() => console.error(error)),
    CreditsExhausted: ({ credits, purchase }) =>
      Effect.sync(() => console.error(`Credits ran out (${credits.used} used); buy more at ${purchase.url}`))
  }),
  Effect.scoped
)

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exitCode = 1
})
