import { Effect } from "effect"
import { type SeededTranscript, StoredTranscriptsRepo } from "./StoredTranscriptsRepo.js"
import { serviceSpan } from "../platform/telemetry/Tracing.js"

export type { SeededTranscript } from "./StoredTranscriptsRepo.js"

/**
 * The stored transcripts of ads, read many at a time (issue 19: a brand's `transcripts` tab)
 * and seeded by the demo world. Reads only: generating a transcript is `Transcripts`' work, and
 * costs a script generation; these cost nothing and need no transcription engine.
 */
export class StoredTranscripts extends Effect.Service<StoredTranscripts>()("adintel/StoredTranscripts", {
  effect: Effect.gen(function*() {
    const repo = yield* StoredTranscriptsRepo
    return {
      /** The stored transcript text of each ad that has one, by ad id (`ad_id` of the transcript routes). */
      ofAds: Effect.fn("StoredTranscripts.ofAds", serviceSpan)((ids: ReadonlyArray<string>): Effect.Effect<ReadonlyMap<string, string>> =>
        ids.length === 0
          ? Effect.succeed(new Map())
          : Effect.map(repo.ofAds(ids), (rows) => new Map(rows.map((r) => [r.ad_id, r.transcript])))),

      seed: Effect.fn("StoredTranscripts.seed", serviceSpan)((records: ReadonlyArray<SeededTranscript>, now: Date) =>
        records.length === 0 ? Effect.void : repo.seed(records, "demo", now))
    }
  }),
  dependencies: [StoredTranscriptsRepo.Default]
}) {}
