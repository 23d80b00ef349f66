import { Config, Duration, Effect, Option, Ref, SubscriptionRef } from "effect"
import { type CallerInfo, planNames } from "../access/gateway/Api.js"
import {
  maxSimilarScripts,
  ScriptRefusal,
  type ScriptGenerated,
  type Subject,
  type TranscriptGenerated,
  type TranscriptRecord
} from "./Api.js"
import { AudioExtractor } from "./engines/audio/AudioExtractor.js"
import { MediaFetcher, type MediaSources } from "./engines/media/MediaFetcher.js"
import type { ProductionLevel, ScriptBrief, Transcript } from "./engines/Pipeline.js"
import { ScriptWriter } from "./engines/script/ScriptWriter.js"
import { Transcriber } from "./engines/speech/Transcriber.js"
import { TranscriptsRepo } from "./TranscriptsRepo.js"
import { serviceSpan } from "../platform/telemetry/Tracing.js"
import { now } from "../kernel/UtcDay.js"

/** A generation request, the record named by its id whatever the route calls it. */
export interface GenerateRequest {
  readonly id: string
  readonly video_url?: string | undefined
  readonly video_cdn_url?: string | undefined
}

export interface ScriptRequest extends Omit<ScriptBrief, "production_level"> {
  readonly id: string
  readonly production_level?: ProductionLevel | undefined
}

/** Whether the caller may generate at all: the session-only routes need a signed-in browser. */
export type Presence = "signed-in" | "not-signed-in"

const basicRank = planNames.indexOf("basic")

/**
 * Transcripts and similar scripts (issue 6; spec: Endpoints, "Video transcript and script";
 * INTERPRETATIONS G8, S6). The gates run in the spec's order, each refusal a `ScriptRefusal`
 * answered with status 200; the pipeline's layers (media, audio, speech, script) are swapped
 * by tests.
 */
export class Transcripts extends Effect.Service<Transcripts>()("adintel/Transcripts", {
  effect: Effect.gen(function*() {
    const repo = yield* TranscriptsRepo
    const fetcher = yield* MediaFetcher
    const extractor = yield* AudioExtractor
    const transcriber = yield* Transcriber
    const writer = yield* ScriptWriter
    // Speech recognition is CPU-heavy and each generation holds a database connection while it
    // runs: at most this many at once per process; the rest wait their turn.
    const concurrency = yield* Config.integer("TRANSCRIBE_CONCURRENCY").pipe(
      Config.withDefault(2),
      Config.validate({ message: "TRANSCRIBE_CONCURRENCY must be from 1 to 32", validation: (n) => n >= 1 && n <= 32 })
    )
    const turns = yield* Effect.makeSemaphore(concurrency)
    // ...but not for ever: a long queue would hold requests (and their charges) without limit.
    const queueTimeout = yield* Config.duration("TRANSCRIBE_QUEUE_TIMEOUT").pipe(
      Config.withDefault(Duration.minutes(1)),
      Config.validate({ message: "TRANSCRIBE_QUEUE_TIMEOUT must be positive", validation: Duration.greaterThan(Duration.zero) })
    )
    const waiting = yield* SubscriptionRef.make(0)

    /**
     * Runs `work` in one of the process's turns. A caller that waits `TRANSCRIBE_QUEUE_TIMEOUT`
     * for one gets the busy refusal and takes no generation (the work never starts); like every
     * deliberate answer it keeps its credit (G4);
     * once started, the work is not timed. The turn and the timeout claim the wait, only one wins.
     */
    const inTurn = <A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E | ScriptRefusal, R> =>
      Effect.gen(function*() {
        const state = yield* Ref.make<"waiting" | "started" | "gave up">("waiting")
        const stopWaiting = SubscriptionRef.update(waiting, (n) => n - 1)
        const claim = (next: "started" | "gave up") =>
          Effect.uninterruptible(Effect.tap(
            Ref.modify(state, (current) => current === "waiting" ? [true, next] : [false, current]),
            (won) => won ? stopWaiting : Effect.void
          ))
        yield* SubscriptionRef.update(waiting, (n) => n + 1)
        const run = turns.withPermits(1)(Effect.flatMap(claim("started"), (won) => won ? work : Effect.never))
        const giveUp = Effect.sleep(queueTimeout).pipe(
          Effect.zipRight(claim("gave up")),
          Effect.flatMap((won) => won ? Effect.void : Effect.never),
          Effect.zipRight(Effect.fail(ScriptRefusal.busy()))
        )
        // A caller that leaves while waiting (the client went away) waits no more.
        return yield* Effect.raceFirst(run, giveUp).pipe(
          Effect.ensuring(Effect.flatMap(Ref.get(state), (current) => current === "waiting" ? stopWaiting : Effect.void))
        )
      })

    /**
     * Runs `work` holding its record (`repo.exclusively`): another generation of the same record
     * waits, and is counted in `waiting` until its turn comes.
     */
    const forRecord = <A, E, R>(subject: Subject, id: string, work: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.gen(function*() {
        const started = yield* Ref.make(false)
        const begin = Effect.zipRight(Ref.set(started, true), SubscriptionRef.update(waiting, (n) => n - 1))
        yield* SubscriptionRef.update(waiting, (n) => n + 1)
        return yield* repo.exclusively(subject, id, Effect.zipRight(begin, work)).pipe(
          Effect.ensuring(Effect.flatMap(Ref.get(started), (begun) => begun ? Effect.void : SubscriptionRef.update(waiting, (n) => n - 1)))
        )
      })

    /** spec: rule 3, gates (c) and (d): a plan below Basic, then the month's generations used up. */
    const mayGenerate = (caller: CallerInfo) =>
      planNames.indexOf(caller.plan) < basicRank
        ? Effect.fail(ScriptRefusal.planRequired())
        : caller.scripts.used >= caller.scripts.limit
        ? Effect.fail(ScriptRefusal.quotaExhausted())
        : Effect.void

    /** The stored transcript as a cached answer: `find` reads it on a replica (`findStored`) or, under the record's lock, on the primary. */
    const cachedAnswer = (find: typeof repo.find, subject: Subject, id: string) =>
      Effect.map(find(subject, id), (found) =>
        Option.flatMap(found, (row) =>
          row.transcript === null
            ? Option.none()
            : Option.some<TranscriptGenerated>({ success: true, transcript: row.transcript, segments: row.segments, source: "cached" })))

    /** spec: rules 1, 2 and 5: media, 16 kHz audio, speech to text; the temporary files go with the scope. */
    const transcribe = (sources: MediaSources): Effect.Effect<Transcript & { readonly url: string }, ScriptRefusal> =>
      Effect.scoped(Effect.gen(function*() {
        const media = yield* fetcher.fetch(sources)
        const wav = yield* extractor.toWav(media.path)
        const transcript = yield* transcriber.transcribe(wav.path)
        if (transcript.text.trim() === "") return yield* Effect.fail(ScriptRefusal.transcriptionFailed())
        return { ...transcript, url: media.url }
      })).pipe(
        Effect.catchTags({
          NoPlayableUrl: () => Effect.fail(ScriptRefusal.noPlayableUrl()),
          AudioUnavailable: ({ reason }) => Effect.fail(ScriptRefusal.audio(reason)),
          TranscriptionFailed: ({ reason }) =>
            Effect.zipRight(Effect.logWarning(`Transcription failed: ${reason}`), Effect.fail(ScriptRefusal.transcriptionFailed()))
        })
      )

    return {
      /** What `/ready` and the start-up log name. */
      engines: { audio: extractor.engine, transcription: transcriber.engine, scripts: writer.engine },

      /** How many generations wait, for a turn or for another generation of their record: now and at every change. */
      waiting: waiting.changes,

      /** spec: "Reads an existing transcript only; does not consume the script-generation quota." */
      read: Effect.fn("Transcripts.read", serviceSpan)((subject: Subject, id: string): Effect.Effect<TranscriptRecord> =>
        Effect.map(repo.findStored(subject, id), (found) =>
          Option.match(found, {
            onNone: (): TranscriptRecord => ({ success: true, transcript: null, segments: [], script_analysis: null, similar_scripts: [] }),
            onSome: (row): TranscriptRecord => ({ success: true, ...row })
          }))),

      /**
       * spec: rule 3: (a) not logged in, (b) a stored transcript (free), (c) plan, (d) quota; then
       * the pipeline. Generations of one record run one at a time (the second answers the
       * first's result as cached), and the generation is taken with the transcript's save, in
       * one transaction: a failure anywhere takes nothing and stores nothing.
       */
      generate: Effect.fn("Transcripts.generate", serviceSpan)(function*(caller: CallerInfo, presence: Presence, subject: Subject, request: GenerateRequest) {
        if (presence === "not-signed-in") return yield* Effect.fail(ScriptRefusal.notLoggedIn())
        const cached = yield* cachedAnswer(repo.findStored, subject, request.id)
        if (Option.isSome(cached)) return cached.value
        yield* mayGenerate(caller)
        return yield* inTurn(forRecord(subject, request.id, Effect.gen(function*() {
          // The first of two concurrent generations may have just finished.
          const meanwhile = yield* cachedAnswer(repo.find, subject, request.id)
          if (Option.isSome(meanwhile)) return meanwhile.value
          const stored = yield* repo.storedMediaUrl(subject, request.id)
          const transcript = yield* transcribe({ stored, video_cdn_url: request.video_cdn_url, video_url: request.video_url })
          const at = yield* now
          const remaining = yield* repo.takeScriptGeneration(caller.accountId, at)
          if (Option.isNone(remaining)) return yield* Effect.fail(ScriptRefusal.quotaExhausted())
          yield* repo.saveTranscript(subject, request.id, transcript, { url: transcript.url, engine: transcriber.engine }, at)
          return {
            success: true,
            transcript: transcript.text,
            segments: transcript.segments,
            source: "generated",
            script_generations_remaining: remaining.value
          } satisfies TranscriptGenerated
        })).pipe(Effect.tap((answer) => answer.source === "generated" ? repo.generated : Effect.void)))
      }),

      /**
       * A similar script (spec: "POST .../video/script/similar"): the same gates but the cache,
       * then the writer; the generation is taken with the script's save, so a failed writer
       * takes none.
       */
      similarScript: Effect.fn("Transcripts.similarScript", serviceSpan)(function*(caller: CallerInfo, presence: Presence, subject: Subject, request: ScriptRequest) {
        if (presence === "not-signed-in") return yield* Effect.fail(ScriptRefusal.notLoggedIn())
        yield* mayGenerate(caller)
        const { id, ...brief } = request
        const written = yield* writer.write({ ...brief, production_level: brief.production_level ?? "Medium" }).pipe(
          Effect.catchTag("ScriptFailed", ({ reason }) =>
            Effect.zipRight(Effect.logWarning(`Script generation failed: ${reason}`), Effect.fail(ScriptRefusal.scriptFailed())))
        )
        const similar = yield* repo.similar(subject, id, brief.transcript, maxSimilarScripts)
        return yield* forRecord(subject, id, Effect.gen(function*() {
          const at = yield* now
          const remaining = yield* repo.takeScriptGeneration(caller.accountId, at)
          if (Option.isNone(remaining)) return yield* Effect.fail(ScriptRefusal.quotaExhausted())
          yield* repo.saveScript(subject, id, written, similar, at)
          return {
            success: true,
            script: written.script,
            script_analysis: written.script_analysis,
            similar_scripts: similar,
            script_generations_remaining: remaining.value
          } satisfies ScriptGenerated
        })).pipe(Effect.tap(repo.generated))
      })
    }
  }),
  dependencies: [TranscriptsRepo.Default]
}) {}
