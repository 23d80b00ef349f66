import { describe, expect, layer } from "@effect/vitest"
import { Context, Deferred, Effect, Either, Fiber, Layer, Option, Queue, Stream, TestClock } from "effect"
import { Accounts } from "../src/access/accounts/Accounts.js"
import { AppConfig } from "../src/platform/AppConfig.js"
import { Gateway } from "../src/access/gateway/Gateway.js"
import { ScriptRefusal } from "../src/transcripts/Api.js"
import { AudioExtractor } from "../src/transcripts/engines/audio/AudioExtractor.js"
import { MediaFetcher, playbackUrl } from "../src/transcripts/engines/media/MediaFetcher.js"
import { ScriptWriter } from "../src/transcripts/engines/script/ScriptWriter.js"
import { Transcriber } from "../src/transcripts/engines/speech/Transcriber.js"
import { Transcripts } from "../src/transcripts/Transcripts.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { account, balanceOf, testEnvironment } from "./support/TestServer.js"
import { scriptsUsed, uniqueId } from "./support/Transcripts.js"

/**
 * The wait for a transcription turn is bounded (issue 16): one turn per process here, a speech
 * engine that holds each transcription until the test releases it, and the TestClock.
 */

/** A transcription that has started, and the latch that lets it finish. */
class HeldSpeech extends Context.Tag("test/HeldSpeech")<HeldSpeech, Queue.Queue<Deferred.Deferred<void>>>() {}

const pipeline = (held: Queue.Queue<Deferred.Deferred<void>>) =>
  Layer.mergeAll(
    Layer.succeed(MediaFetcher, MediaFetcher.of({ fetch: (sources) => Effect.succeed({ path: "media", bytes: 0, url: playbackUrl(sources)! }) })),
    Layer.succeed(AudioExtractor, AudioExtractor.of({ engine: "fake audio", toWav: (path) => Effect.succeed({ path, seconds: 2 }) })),
    Layer.succeed(Transcriber, Transcriber.of({
      engine: "held speech",
      transcribe: () =>
        Effect.gen(function*() {
          const release = yield* Deferred.make<void>()
          yield* Queue.offer(held, release)
          yield* Deferred.await(release)
          return { text: "Hello there.", segments: [{ start: 0, end: 2, text: "Hello there." }] }
        })
    })),
    Layer.succeed(ScriptWriter, ScriptWriter.of({ engine: "unused", write: () => Effect.die("not in this test") }))
  )

const world = Layer.unwrapEffect(Effect.map(Queue.unbounded<Deferred.Deferred<void>>(), (held) =>
  Layer.mergeAll(Transcripts.Default, Gateway.Default, Accounts.Default, Layer.succeed(HeldSpeech, held)).pipe(
    Layer.provide(pipeline(held)),
    Layer.provide(AppConfig.layerWith({})),
    Layer.provideMerge(TestDatabase),
    Layer.provide(testEnvironment({ TRANSCRIBE_CONCURRENCY: "1" }))
  )))

/** A keyed, signed-in call to generate the transcript of a new ad: admitted (charged) now, run forked. */
const generation = (apiKey: string) =>
  Effect.gen(function*() {
    const caller = yield* (yield* Gateway).admit(Option.some(apiKey), { method: "POST", route: "/api/v1/ad-transcript-generate" })
    const transcripts = yield* Transcripts
    return yield* Effect.fork(Effect.either(
      transcripts.generate(caller, "signed-in", "ad", { id: uniqueId("ad"), video_url: "https://media.example/ad.mp4" })
    ))
  })

/** Until `n` generations wait for a turn. */
const waitingFor = (n: number) =>
  Effect.flatMap(Transcripts, (transcripts) => Stream.runDrain(Stream.take(Stream.filter(transcripts.waiting, (now) => now === n), 1)))

/** Two generations of a new account: the first transcribing (held), the second waiting for the turn. */
const oneRunningOneWaiting = Effect.gen(function*() {
  const { id, api_key } = yield* account()
  const first = yield* generation(api_key)
  const firstTurn = yield* Queue.take(yield* HeldSpeech)
  const second = yield* generation(api_key)
  yield* waitingFor(1)
  return { id, first, firstTurn, second }
})

describe("the transcription queue (TRANSCRIBE_QUEUE_TIMEOUT)", () => {
  layer(world)((it) => {
    it.scoped("a call that waits 60 s for a turn is refused and takes no generation; like any deliberate answer it keeps its credit (G4)", () =>
      Effect.gen(function*() {
        const { first, firstTurn, id, second: queued } = yield* oneRunningOneWaiting
        yield* TestClock.adjust("59 seconds")
        expect(yield* Fiber.poll(queued)).toEqual(Option.none())
        yield* TestClock.adjust("1 second")
        // spec: Errors rule 5: answered 200 { success: false, message } by the route.
        expect(yield* Fiber.join(queued)).toEqual(Either.left(ScriptRefusal.busy()))
        expect(ScriptRefusal.busy().message).toBe("Transcription is busy. Try again in a few minutes.")
        expect((yield* balanceOf(id)).used).toBe(2)
        expect(yield* scriptsUsed(id)).toBe(0)
        yield* waitingFor(0)
        // The first, which had its turn all along, is not timed and takes its generation.
        yield* Deferred.succeed(firstTurn, undefined)
        const done = yield* Fiber.join(first)
        expect(Either.isRight(done) && done.right.source).toBe("generated")
        expect((yield* balanceOf(id)).used).toBe(2)
        expect(yield* scriptsUsed(id)).toBe(1)
      }))

    it.scoped("a call whose turn comes within the timeout runs to the end, however long it then takes", () =>
      Effect.gen(function*() {
        const { first, firstTurn, id, second } = yield* oneRunningOneWaiting
        yield* TestClock.adjust("30 seconds")
        yield* Deferred.succeed(firstTurn, undefined)
        const secondTurn = yield* Queue.take(yield* HeldSpeech)
        yield* TestClock.adjust("2 minutes")
        yield* Deferred.succeed(secondTurn, undefined)
        for (const fiber of [first, second]) {
          const done = yield* Fiber.join(fiber)
          expect(Either.isRight(done) && done.right.source).toBe("generated")
        }
        expect((yield* balanceOf(id)).used).toBe(2)
        expect(yield* scriptsUsed(id)).toBe(2)
      }))
  })
})
