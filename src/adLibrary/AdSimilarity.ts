import { Context, Effect, Layer, Option } from "effect"
import type { CreativeHashes, SimilarPlan, SimilarRow } from "./SimilarityRepo.js"
import { SimilarityRepo } from "./SimilarityRepo.js"

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
  static readonly postgres = Layer.effect(
    AdSimilarity,
    Effect.gen(function*() {
      const repo = yield* SimilarityRepo
      return AdSimilarity.of({
        engine: "postgres (full text + pg_trgm, perceptual hashes)",
        similar: (query, plan) =>
          Effect.gen(function*() {
            const text = yield* Effect.transposeOption(Option.map(query.text, (copy) =>
              Effect.map(Effect.all([repo.lexemes(copy), repo.estimatedAds]), ([lexemes, ads]) => ({
                text: copy,
                lexemes: lexemes.map((l) => l.lexeme),
                anchors: anchorsOf(lexemes, ads)
              }))))
            if (Option.isSome(text) && text.value.lexemes.length === 0 && Option.isNone(query.image)) return []
            return yield* repo.similar({ text: Option.filter(text, (t) => t.lexemes.length > 0), image: query.image }, plan)
          })
      })
    })
  ).pipe(Layer.provide(SimilarityRepo.Default))
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
