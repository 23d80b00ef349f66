/**
 * Calling adintel from TypeScript with the typed client.
 *
 *   npx tsx examples/client.ts [base URL] [API key]      (or ADINTEL_URL / ADINTEL_API_KEY)
 *
 * In your own project, after adding this package as a dependency:
 *   import { makeClient } from "adintel/client"
 */
import { FetchHttpClient } from "@effect/platform"
import { Effect, Redacted } from "effect"
import { makeClient } from "../src/client.js"

const [baseUrl = process.env["ADINTEL_URL"] ?? "http://127.0.0.1:3000", apiKey = process.env["ADINTEL_API_KEY"] ?? ""] = process.argv.slice(2)

const program = Effect.gen(function*() {
  const client = yield* makeClient({ baseUrl, apiKey: Redacted.make(apiKey) })

  // Every route is a method; answers are decoded and typed.
  const { credits } = yield* client.credits.balance()
  console.log(`credits left: ${credits.total_remaining} of ${credits.limit}`)

  const page = yield* client.adlibrary.social({ urlParams: { q: "serum", limit: 5 } })
  console.log(`social ads on the first page: ${page.data.length}${page.has_more ? " (more with scroll_token)" : ""}`)
}).pipe(
  // The spec's refusals are typed errors, told apart by tag.
  Effect.catchTags({
    Unauthorized: () => Effect.sync(() => console.error("The API key was refused: check ADINTEL_API_KEY.")),
    PlanRequired: ({ error }) => Effect.sync(() => console.error(error)),
    RateLimited: ({ retryAfterSeconds }) => Effect.sync(() => console.error(`Rate limited: try again in ${retryAfterSeconds} s.`)),
    CreditsExhausted: ({ credits, purchase }) =>
      Effect.sync(() => console.error(`No credits left (${credits.used} used); buy more at ${purchase.url}`))
  }),
  Effect.provide(FetchHttpClient.layer)
)

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exitCode = 1
})
