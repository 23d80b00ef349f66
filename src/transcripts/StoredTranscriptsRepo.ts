import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { ReadSql, ReadYourWrites } from "../platform/db/Replicas.js"
import { Segment } from "./engines/Pipeline.js"

const AdTranscript = Schema.Struct({ ad_id: Schema.String, transcript: Schema.String })

/** A transcript the demo world ships with (an ad's video already transcribed). */
export const SeededTranscript = Schema.Struct({
  ad_id: Schema.String,
  transcript: Schema.String,
  segments: Schema.Array(Segment),
  media_url: Schema.String
})
export type SeededTranscript = typeof SeededTranscript.Type

/** Reads of many stored ad transcripts at once (migration 0015's table), and the demo's seeding (on the primary). */
export class StoredTranscriptsRepo extends Effect.Service<StoredTranscriptsRepo>()("adintel/StoredTranscriptsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // Read on a replica that has replayed this process's last generation (issue 31), like `TranscriptsRepo.findStored`.
    const read = yield* ReadSql
    const { fresh } = yield* ReadYourWrites

    const ofAds = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: AdTranscript,
      execute: (ids) => read`
        select subject_id as ad_id, transcript from transcripts
         where subject = 'ad' and subject_id = any(${ids}::text[]) and transcript is not null`
    })

    return {
      ofAds: (ids: ReadonlyArray<string>) => Effect.orDie(fresh("transcripts")(ofAds(ids))),

      /** Stores transcripts where none is stored yet: a generated one is never overwritten. */
      seed: (records: ReadonlyArray<SeededTranscript>, engine: string, now: Date) =>
        sql`
          insert into transcripts (subject, subject_id, transcript, segments, media_url, engine, transcribed_at)
          select 'ad', r.ad_id, r.transcript, r.segments, r.media_url, ${engine}, ${now}
            from jsonb_to_recordset(${JSON.stringify(records)}::jsonb)
                 as r(ad_id text, transcript text, segments jsonb, media_url text)
          on conflict (subject, subject_id) do nothing`.pipe(Effect.asVoid, Effect.orDie)
    }
  })
}) {}
