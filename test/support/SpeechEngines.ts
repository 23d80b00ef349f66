import { ConfigProvider, Effect, Option } from "effect"
import * as path from "node:path"
import { findOnPath } from "../../src/platform/ChildProcess.js"
import * as Pocketsphinx from "../../src/transcripts/engines/speech/Pocketsphinx.js"

// What the real transcript engines' tests share (test/transcribePipeline.test.ts, test/transcribeHttp.test.ts).

/** A committed fixture (test/fixtures/make-fixtures.sh). */
export const fixture = (name: string) => path.join(import.meta.dirname, "..", "fixtures", name)
export const withPath = <A, E, R>(effect: Effect.Effect<A, E, R>, env: Record<string, string> = {}) =>
  Effect.withConfigProvider(effect, ConfigProvider.fromMap(new Map([["PATH", process.env.PATH ?? ""], ...Object.entries(env)])))

// Real components: CI installs them (.ci/run); elsewhere these tests show as skipped, not passed.
export const ffmpeg = Option.isSome(await Effect.runPromise(withPath(findOnPath("ffmpeg"))))
export const pocketsphinx = await Effect.runPromise(withPath(Pocketsphinx.find))
export const speech = ffmpeg && Option.isSome(pocketsphinx)
if (!speech) {
  console.warn("Real transcript engines not installed (ffmpeg, pocketsphinx, pocketsphinx-en-us): their tests are skipped. .ci/run installs them.")
}

/** Word error rate: word-level edit distance over the reference's length, case and punctuation aside. */
export const wer = (reference: string, hypothesis: string) => {
  const words = (text: string) => text.toLowerCase().replace(/[^a-z0-9' ]+/g, " ").split(/\s+/).filter((w) => w !== "")
  const ref = words(reference)
  const hyp = words(hypothesis)
  let row = Array.from({ length: hyp.length + 1 }, (_, j) => j)
  for (let i = 1; i <= ref.length; i++) {
    const next = [i]
    for (let j = 1; j <= hyp.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1))
    }
    row = next
  }
  return row[hyp.length]! / ref.length
}

