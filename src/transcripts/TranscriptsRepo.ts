import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { scriptPeriodDays } from "../access/gateway/Meters.js"
import type { SimilarScript, Subject } from "./Api.js"
import { ScriptAnalysis, Segment, type Transcript, WrittenScript } from "./engines/Pipeline.js"
import type { AccountId } from "../kernel/Ids.js"
import { ReadSql, ReadYourWrites } from "../platform/db/Replicas.js"

/** A transcript like the one asked about, as a similar-script answer lists it. */
const SimilarScriptRow = Schema.Struct({
  type: Schema.Literal("video", "ad"),
  id: Schema.String,
  similarity: Schema.Number,
  transcript: Schema.String,
  framework_used: Schema.NullOr(Schema.String)
})
const StoredRow = Schema.Struct({
  transcript: Schema.NullOr(Schema.String),
  segments: Schema.Array(Segment),
  script_analysis: Schema.NullOr(ScriptAnalysis),
  similar_scripts: Schema.Array(SimilarScriptRow)
})
export type StoredTranscript = typeof StoredRow.Type
/** A media URL the catalog holds for a video or ad (null: none stored). */
const MediaUrlRow = Schema.Struct({ url: Schema.NullOr(Schema.String) })
/** The script generations left in the period after taking one. */
const RemainingRow = Schema.Struct({ remaining: Schema.Int })

/** How much of a similar transcript the answer shows. */
const excerptChars = 280

/**
 * The SQL of transcripts and similar scripts (migration 0015), the script-generation counter
 * of `account_meters` (G8), and where a video's or ad's media URL is stored in the catalog.
 */
export class TranscriptsRepo extends Effect.Service<TranscriptsRepo>()("adintel/TranscriptsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // Stored records are read on a replica that has replayed this process's last generation
    // (issue 31); a generation's own reads, under the record's lock, stay on the primary.
    const read = yield* ReadSql
    const { fresh, wrote } = yield* ReadYourWrites
    const findOn = (client: SqlClient.SqlClient) => (subject: Subject, id: string) =>
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: StoredRow,
        execute: () => client`select transcript, segments, script_analysis, similar_scripts from transcripts
             where subject = ${subject} and subject_id = ${id}`
      })(undefined).pipe(Effect.orDie)
    const findOnPrimary = findOn(sql)
    const findOnReplica = findOn(read)

    return {
      /** The stored record of a video or ad, if any, read on the primary (inside `exclusively`, under its lock). */
      find: (subject: Subject, id: string): Effect.Effect<Option.Option<StoredTranscript>> => findOnPrimary(subject, id),

      /**
       * The stored record, if any, read on a replica that has replayed this process's last
       * generation. A record the replica does not hold yet (another process generated it a
       * moment ago) is looked for on the primary too: a stored transcript is never answered absent.
       */
      findStored: (subject: Subject, id: string): Effect.Effect<Option.Option<StoredTranscript>> =>
        fresh("transcripts")(findOnReplica(subject, id)).pipe(
          Effect.flatMap((found) => Option.isSome(found) ? Effect.succeed(found) : findOnPrimary(subject, id))
        ),

      /** After a generation committed: this process's next reads of stored records see it. */
      generated: wrote("transcripts"),

      /**
       * The media URL the catalog holds (spec: rule 1, "stored video data"): a video's CDN URL,
       * else its playback URL; an ad's first video asset.
       */
      storedMediaUrl: (subject: Subject, id: string): Effect.Effect<string | null> =>
        SqlSchema.findOne({
          Request: Schema.Void,
          Result: MediaUrlRow,
          execute: () =>
            subject === "video"
              ? sql`
              select coalesce(cdn_url, playback_url) as url from shop_videos
               where external_id = ${id} order by region limit 1`
              : sql`
              select m ->> 'url' as url from ads a, jsonb_array_elements(a.media) m
               where a.external_id = ${id} and m ->> 'type' = 'video' order by a.library limit 1`
        })(undefined).pipe(
          Effect.map(Option.match({ onNone: () => null, onSome: ({ url }) => url })),
          Effect.orDie
        ),

      /**
       * Runs `work` in one transaction holding the record's lock: a second generation of the same
       * record waits for the first and then sees its result (the pipeline runs once), and
       * nothing `work` wrote stays when it fails. Other records are not held up.
       */
      exclusively: <A, E, R>(subject: Subject, id: string, work: Effect.Effect<A, E, R>) =>
        sql.withTransaction(
          Effect.zipRight(
            Effect.orDie(sql`select pg_advisory_xact_lock(hashtextextended(${`transcript:${subject}:${id}`}, 0))`),
            work
          )
        ).pipe(Effect.catchTag("SqlError", Effect.die)),

      /**
       * Takes one script generation of the account's 30-day period (G8) if one is left: atomic,
       * so concurrent generations never overshoot. The generations left after it, or none. It
       * locks the meter row inside `exclusively`, after the record's lock (lock order, migration 0017).
       */
      takeScriptGeneration: (accountId: AccountId, now: Date): Effect.Effect<Option.Option<number>> =>
        SqlSchema.findOne({
          Request: Schema.Void,
          Result: RemainingRow,
          execute: () => sql`
          with lim as (
            select coalesce(a.script_generation_limit, p.script_generation_limit) as l
              from accounts a join plans p on p.name = a.plan where a.id = ${accountId}::uuid),
          live as (
            select m.account_id, m.script_period_start is not null
                   and ${now}::timestamptz < m.script_period_start + make_interval(days => ${scriptPeriodDays}) as current
              from account_meters m where m.account_id = ${accountId}::uuid)
          update account_meters m
             set script_used = case when live.current then m.script_used + 1 else 1 end,
                 script_period_start = case when live.current then m.script_period_start else ${now}::timestamptz end
            from lim, live
           where m.account_id = live.account_id
             and (case when live.current then m.script_used else 0 end) < lim.l
          returning (lim.l - m.script_used) as remaining`
        })(undefined).pipe(
          Effect.map(Option.map(({ remaining }) => remaining)),
          Effect.orDie
        ),

      saveTranscript: (subject: Subject, id: string, transcript: Transcript, media: { readonly url: string; readonly engine: string }, now: Date) =>
        sql`
          insert into transcripts (subject, subject_id, transcript, segments, media_url, engine, transcribed_at)
          values (${subject}, ${id}, ${transcript.text}, ${JSON.stringify(transcript.segments)}::jsonb, ${media.url}, ${media.engine}, ${now})
          on conflict (subject, subject_id) do update
             set transcript = excluded.transcript, segments = excluded.segments, media_url = excluded.media_url,
                 engine = excluded.engine, transcribed_at = excluded.transcribed_at`.pipe(Effect.asVoid, Effect.orDie),

      /** Attaches a similar script to the record (spec: "the result is attached to this video"). */
      saveScript: (subject: Subject, id: string, written: WrittenScript, similar: ReadonlyArray<SimilarScript>, now: Date) =>
        sql`
          insert into transcripts (subject, subject_id, script, script_analysis, similar_scripts, scripted_at)
          values (${subject}, ${id}, ${JSON.stringify(written.script)}::jsonb, ${JSON.stringify(written.script_analysis)}::jsonb,
                  ${JSON.stringify(similar)}::jsonb, ${now})
          on conflict (subject, subject_id) do update
             set script = excluded.script, script_analysis = excluded.script_analysis,
                 similar_scripts = excluded.similar_scripts, scripted_at = excluded.scripted_at`.pipe(Effect.asVoid, Effect.orDie),

      /**
       * The stored transcripts most like `text` (pg_trgm distance through the GiST index), the
       * record itself and those sharing no trigram left out; similarity is 1 - distance, four decimals.
       */
      similar: (subject: Subject, id: string, text: string, limit: number): Effect.Effect<ReadonlyArray<SimilarScript>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: SimilarScriptRow,
          execute: () => sql`
          select t.subject as type, t.subject_id as id,
                 round((1 - (t.transcript <-> ${text}))::numeric, 4)::float8 as similarity,
                 left(t.transcript, ${excerptChars}) as transcript,
                 t.script ->> 'framework_used' as framework_used
            from transcripts t
           where t.transcript is not null and not (t.subject = ${subject} and t.subject_id = ${id})
             and t.transcript <-> ${text} < 1
           order by t.transcript <-> ${text}, t.subject, t.subject_id
           limit ${limit}`
        })(undefined).pipe(Effect.orDie)
    }
  })
}) {}
