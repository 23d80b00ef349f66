import { describe, expect, layer } from "@effect/vitest"
import { TrendCounts } from "../src/ads/trends/TrendCounts.js"
import { Context, Effect, Layer } from "effect"
import { createServer } from "node:http"
import { Ingest } from "../src/ingest/Ingest.js"
import { ad as fixtureAd } from "./fixtures/world.js"
import { ingestAll, magicAi, SmallWorldDatabase } from "./support/AdWorld.js"
import { account, balanceOf, call, testServer } from "./support/TestServer.js"

/** A deterministic "embedding": words hashed into 16 buckets, so shared words mean nearby vectors. */
const embed = (text: string) => {
  const vector = new Array<number>(16).fill(0)
  for (const word of text.toLowerCase().split(/[^a-z]+/).filter((w) => w.length > 2)) {
    let h = 0
    for (const c of word) h = (h * 31 + c.charCodeAt(0)) >>> 0
    vector[h % 16]! += 1
  }
  return vector
}
const cosine = (a: Array<number>, b: Array<number>) => {
  const dot = a.reduce((n, x, i) => n + x * b[i]!, 0)
  const norm = (v: Array<number>) => Math.sqrt(v.reduce((n, x) => n + x * x, 0))
  return dot / (norm(a) * norm(b))
}

interface Seen {
  readonly path: string
  readonly authorization: string | undefined
  readonly body: { model: string; input: Array<string> }
}

/** An OpenAI-compatible `/v1/embeddings` endpoint, a real HTTP server, recording each request. */
class FakeModel extends Context.Tag("test/FakeModel")<FakeModel, {
  readonly url: string
  readonly seen: Array<Seen>
  readonly failing: { on: boolean }
}>() {}

const FakeModelLive = Layer.scoped(
  FakeModel,
  Effect.acquireRelease(
    Effect.async<Context.Tag.Service<FakeModel> & { close: () => void }>((resume) => {
      const seen: Array<Seen> = []
      const failing = { on: false }
      const server = createServer((request, response) => {
        let raw = ""
        request.on("data", (chunk) => (raw += chunk))
        request.on("end", () => {
          const body = JSON.parse(raw)
          seen.push({ path: request.url ?? "", authorization: request.headers.authorization, body })
          if (failing.on) return response.writeHead(500, { "content-type": "application/json" }).end(`{"error":{"message":"boom"}}`)
          response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({
            object: "list",
            model: body.model,
            data: (body.input as Array<string>).map((text, index) => ({ object: "embedding", index, embedding: embed(text) })),
            usage: { prompt_tokens: 1, total_tokens: 1 }
          }))
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}/v1`, seen, failing, close: () => server.close() }))
      })
    }),
    ({ close }) => Effect.sync(close)
  )
)

const ServerWithModel = Layer.unwrapEffect(Effect.map(FakeModel, ({ url }) =>
  testServer({ config: { rateLimitPerMinute: 100_000 }, env: { EMBEDDINGS_URL: url, EMBEDDINGS_MODEL: "test-embed", EMBEDDINGS_API_KEY: "sk-test" } })))

const magic = magicAi

const taxes = "File your quarterly estimated taxes in ten minutes. Accountants approved."

describe("similar ads scored by an embedding model (EMBEDDINGS_URL)", () => {
  const server = ServerWithModel.pipe(
    Layer.provideMerge(Ingest.Default),
    Layer.provideMerge(FakeModelLive),
    Layer.provideMerge(SmallWorldDatabase)
  )
  // The small world and one ad about taxes.
  const world = ingestAll("ads", [fixtureAd("taxes", { headline: "Quarterly taxes", body: taxes, description: null })])
  layer(Layer.effectDiscard(world).pipe(Layer.provideMerge(server)), { timeout: 60_000 })((it) => {
    it.effect("names the embedding engine in /ready", () =>
      Effect.gen(function*() {
        yield* Effect.flatMap(TrendCounts, (counts) => counts.flush)
        expect(JSON.parse((yield* call("/ready")).body).engines.similarity).toBe("embeddings (test-embed), perceptual hashes")
      }))

    it.effect("sends the query and the candidates' copy to the model once, and orders by cosine similarity", () =>
      Effect.gen(function*() {
        const model = yield* FakeModel
        const { api_key } = yield* account()
        const query = "quarterly taxes for freelancers, filed in minutes"
        const first = yield* magic(api_key, { text: query })
        expect(first.status).toBe(200)
        const request = model.seen.at(-1)!
        expect(request.path).toBe("/v1/embeddings")
        expect(request.authorization).toBe("Bearer sk-test")
        expect(request.body.model).toBe("test-embed")
        expect(request.body.input[0]).toBe(query)
        expect(request.body.input).toContain(`Quarterly taxes ${taxes}`)
        const top = first.json.data[0]
        expect(top.id).toBe("taxes")
        expect(top.similarity).toBe(Math.round(cosine(embed(query), embed(`Quarterly taxes ${taxes}`)) * 10_000) / 10_000)
        const scores: Array<number> = first.json.data.map((a: { similarity: number }) => a.similarity)
        expect(scores).toEqual([...scores].sort((a, b) => b - a))
        // Asked again: the candidates' embeddings are stored; only the query is embedded.
        const again = yield* magic(api_key, { text: query })
        expect(again.json.data).toEqual(first.json.data)
        expect(model.seen.at(-1)!.body.input).toEqual([query])
      }))

    it.effect("a failing model is a failed call: 500 envelope and the credit refunded", () =>
      Effect.gen(function*() {
        const model = yield* FakeModel
        const { api_key, id } = yield* account()
        model.failing.on = true
        const answer = yield* magic(api_key, { text: "something new entirely about gardening" }).pipe(Effect.ensuring(Effect.sync(() => (model.failing.on = false))))
        expect([answer.status, answer.body]).toEqual([500, `{"success":false,"error":"Internal server error"}`])
        expect((yield* balanceOf(id)).used).toBe(0)
      }))
  })
})
