import { EmbeddingModel } from "@effect/ai"
import { createHash } from "node:crypto"
import { Clock, Context, Effect, Layer, Option } from "effect"
import type { CreativeHashes, SimilarPlan, SimilarRow, TextProbe } from "./SimilarityRepo.js"
import { SimilarityRepo } from "./SimilarityRepo.js"
import { openAiCompatible, openAiModule } from "../../platform/OpenAiCompatible.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/** What to find ads like: a copy, a creative's hashes, or both (an ad's own). */
export interface SimilarityQuery {
  readonly text: Option.Option<string>
  readonly image: Option.Option<CreativeHashes>
}

/**
 * The similar-ads scorer (issue 4, "Similar-ads AI"). The default engine needs nothing but
 * PostgreSQL: full-text candidates, scored by lexeme overlap and pg_trgm similarity, and
 * perceptual-hash distance for creatives. Another engine (an embedding model) is a layer
 * with the same shape; tests swap in a fake with `Layer.succeed`.
 */
export class AdSimilarity extends Context.Tag("adintel/AdSimilarity")<AdSimilarity, {
  /** What `/ready` and the start-up log name. */
  readonly engine: string
  /** One keyset page of the ads most like the query, best first. */
  readonly similar: (query: SimilarityQuery, plan: SimilarPlan) => Effect.Effect<ReadonlyArray<SimilarRow>>
}>() {
  /** The default: PostgreSQL alone, works offline. */
  static readonly postgres = Layer.effect(
    AdSimilarity,
    Effect.map(SimilarityRepo, (repo) =>
      AdSimilarity.of({
        engine: "postgres (full text + pg_trgm, perceptual hashes)",
        similar: Effect.fn("AdSimilarity.similar", serviceSpan)((query: SimilarityQuery, plan: SimilarPlan) =>
          Effect.flatMap(textProbe(repo, query.text), (text) => repo.similar({ text, image: query.image }, plan)))
      }))
  ).pipe(Layer.provide(SimilarityRepo.Default))

  /**
   * Text scored by an embedding model (cosine similarity of the query's and each candidate's
   * embedding); candidates are found as by the default engine, and creatives still compared
   * by their hashes. Candidates' embeddings are stored per model and text, so each copy is
   * embedded once. A failing model is a failed call (500, credit refunded).
   */
  static readonly embeddings = (model: string) =>
    Layer.effect(
      AdSimilarity,
      Effect.gen(function*() {
        const repo = yield* SimilarityRepo
        const embedder = yield* EmbeddingModel.EmbeddingModel
        const embedAll = (texts: ReadonlyArray<string>) =>
          texts.length === 0 ? Effect.succeed([]) : Effect.orDie(embedder.embedMany(texts))
        const scored = (copy: string, text: TextProbe, plan: SimilarPlan) =>
          Effect.gen(function*() {
            const candidates = yield* repo.textCandidates(text, plan)
            const stored = yield* repo.embeddings(candidates.map((c) => c.id), model)
            const missing = candidates.filter((c) => stored.get(c.id)?.textHash !== textHash(c.text))
            const [query, ...fresh] = yield* embedAll([copy, ...missing.map((c) => c.text)])
            const now = new Date(yield* Clock.currentTimeMillis)
            const saved = missing.map((c, i) => ({ id: c.id, textHash: textHash(c.text), embedding: fresh[i]! }))
            yield* repo.saveEmbeddings(saved, model, now)
            const vectors = new Map([...[...stored].map(([id, e]) => [id, e.embedding] as const), ...saved.map((e) => [e.id, e.embedding] as const)])
            return candidates.map((c) => ({ id: c.id, score: Math.max(0, cosine(query!, vectors.get(c.id)!)) }))
          })
        return AdSimilarity.of({
          engine: `embeddings (${model}), perceptual hashes`,
          similar: Effect.fn("AdSimilarity.similar", serviceSpan)(function*(query: SimilarityQuery, plan: SimilarPlan) {
            const text = yield* textProbe(repo, query.text)
            const given = Option.isSome(text) && Option.isSome(query.text) ? yield* scored(query.text.value, text.value, plan) : []
            return yield* repo.similar({ text: Option.none(), image: query.image, given }, plan)
          })
        })
      })
    ).pipe(Layer.provide(SimilarityRepo.Default))

  /**
   * The engine configuration chooses: `EMBEDDINGS_URL` (an OpenAI-compatible API such as
   * OpenAI, LocalAI or Ollama's `/v1`) with `EMBEDDINGS_MODEL` and `EMBEDDINGS_API_KEY`; unset,
   * the PostgreSQL engine.
   */
  static readonly layerConfig = Layer.unwrapEffect(
    Effect.gen(function*() {
      const api = yield* openAiCompatible("EMBEDDINGS", "text-embedding-3-small")
      if (Option.isNone(api)) return AdSimilarity.postgres
      const { client, model } = api.value
      const { OpenAiEmbeddingModel } = yield* openAiModule
      return AdSimilarity.embeddings(model).pipe(
        Layer.provide(OpenAiEmbeddingModel.layerBatched({ model, config: { maxBatchSize: 300 } })),
        Layer.provide(client)
      )
    })
  )
}

/** The query's lexemes, and the anchors candidates must share; none when it has no words. */
const textProbe = (repo: SimilarityRepo, text: Option.Option<string>) =>
  Effect.map(
    Effect.transposeOption(Option.map(text, (copy) =>
      Effect.map(Effect.all([repo.lexemes(copy), repo.estimatedAds]), ([lexemes, ads]): TextProbe => ({
        text: copy,
        lexemes: lexemes.map((l) => l.lexeme),
        anchors: anchorsOf(lexemes, ads)
      })))),
    Option.filter((probe) => probe.lexemes.length > 0)
  )

const textHash = (text: string) => createHash("sha256").update(text).digest("hex")

const cosine = (a: ReadonlyArray<number>, b: ReadonlyArray<number>) => {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!
    na += a[i]! ** 2
    nb += b[i]! ** 2
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}

/** How many ads the anchors of one query may match, by the planner's estimate. */
export const anchorBudget = 5_000
const maxAnchors = 8

/**
 * The words candidates must share one of: the query's rarest lexemes, as many as fit the
 * budget (at least one), so a copy full of common words still finds its near-duplicates
 * through its brand, product and unusual words, and the candidate scan stays small.
 */
export const anchorsOf = (lexemes: ReadonlyArray<{ readonly lexeme: string; readonly freq: number }>, ads: number) => {
  const byRarity = [...lexemes].sort((a, b) => a.freq - b.freq || a.lexeme.localeCompare(b.lexeme))
  const anchors: Array<string> = []
  let matched = 0
  for (const { freq, lexeme } of byRarity) {
    matched += freq * ads
    if (anchors.length > 0 && (matched > anchorBudget || anchors.length >= maxAnchors)) break
    anchors.push(lexeme)
  }
  return anchors
}
