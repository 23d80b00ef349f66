import { constants } from "node:fs"
import { access } from "node:fs/promises"
import * as path from "node:path"
import { Config, Duration, Effect, Layer, Option } from "effect"
import { optionalSetting } from "../../../platform/AppConfig.js"
import { wavPeak, wavSeconds } from "../audio/AudioExtractor.js"
import { findOnPath, isExecutable, runChild } from "../../../platform/ChildProcess.js"
import { type Segment, type Transcript, TranscriptionFailed } from "../Pipeline.js"
import { Transcriber } from "./Transcriber.js"

/**
 * The offline engine: CMU pocketsphinx's `pocketsphinx_continuous` (Debian/Ubuntu packages
 * `pocketsphinx` and `pocketsphinx-en-us`, 0.8+5prealpha) with the general US English model.
 * Reads the 16 kHz mono 16-bit WAV AudioExtractor writes; no network, no key.
 */

export interface PocketsphinxInstall {
  readonly binary: string
  /** Holds `en-us/` (acoustic model), `en-us.lm.bin` and `cmudict-en-us.dict`. */
  readonly modelDir: string
}

export const engine = "pocketsphinx (offline, en-us)"

/** Where the Debian package puts the model; `POCKETSPHINX_MODEL_DIR` for other layouts. */
export const defaultModelDir = "/usr/share/pocketsphinx/model/en-us"

const modelFiles = (modelDir: string) => ({
  hmm: path.join(modelDir, "en-us"),
  lm: path.join(modelDir, "en-us.lm.bin"),
  dict: path.join(modelDir, "cmudict-en-us.dict")
})

const readable = (file: string) => Effect.promise(() => access(file, constants.R_OK).then(() => true, () => false))

/**
 * Whether pocketsphinx is installed, for the engine chooser: the binary `POCKETSPHINX_PATH`,
 * else `pocketsphinx_continuous` on PATH, with the model in `POCKETSPHINX_MODEL_DIR` (default
 * the Debian package's). A binary without its model counts as not installed: every
 * transcription would fail.
 */
export const find = Effect.gen(function*() {
  const configured = yield* optionalSetting("POCKETSPHINX_PATH")
  const modelDir = yield* Config.string("POCKETSPHINX_MODEL_DIR").pipe(
    Config.map((dir) => dir.trim()),
    Config.withDefault(defaultModelDir)
  )
  let binary = Option.none<string>()
  if (Option.isSome(configured)) {
    if (yield* isExecutable(configured.value)) binary = configured
    else yield* Effect.logWarning(`POCKETSPHINX_PATH ${configured.value} is not an executable file; looking on PATH`)
  }
  if (Option.isNone(binary)) binary = yield* findOnPath("pocketsphinx_continuous")
  if (Option.isNone(binary)) return Option.none<PocketsphinxInstall>()
  const { dict, hmm, lm } = modelFiles(modelDir)
  for (const file of [path.join(hmm, "mdef"), lm, dict]) {
    if (!(yield* readable(file))) {
      yield* Effect.logWarning(`pocketsphinx is installed but its model is not (${file} missing; package pocketsphinx-en-us)`)
      return Option.none<PocketsphinxInstall>()
    }
  }
  return Option.some<PocketsphinxInstall>({ binary: binary.value, modelDir })
})

// ---------------------------------------------------------------------------------------------
// Output to segments

export interface TimedWord {
  readonly word: string
  readonly start: number
  readonly end: number
}

/**
 * Segment grouping (see docs/SPEC-NOTES.md): a new segment starts after a pause of at least
 * `pauseSeconds` (sentence breaks in ad speech run 0.25 to 0.5 s; within a phrase pocketsphinx
 * rarely reports more than 0.2 s), or when the segment already holds `maxWords` words or the
 * next word would stretch it past `maxSeconds`: about one caption line each.
 */
export const grouping = { pauseSeconds: 0.3, maxWords: 12, maxSeconds: 6 } as const

/** `<s>`, `</s>`, `<sil>`, `[NOISE]`, `++BREATH++` and the like: not speech. */
const isFiller = (word: string) => /^(<.*>|\[.*\]|\+\+.*\+\+|\(.*\))$/.test(word)

/**
 * The timed words of `pocketsphinx_continuous -time yes`: lines `word start end confidence`
 * (seconds), among the hypothesis lines. Fillers are dropped and alternate pronunciations
 * (`the(2)`) named by their word.
 */
export const parseWordTimes = (stdout: string): Array<TimedWord> => {
  const words: Array<TimedWord> = []
  for (const line of stdout.split("\n")) {
    const match = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) -?\d+(?:\.\d+)?(?:e[-+]?\d+)?\s*$/.exec(line.trim())
    if (!match) continue
    const word = match[1]!.replace(/\(\d+\)$/, "")
    if (word === "" || isFiller(word)) continue
    words.push({ word, start: Number(match[2]), end: Number(match[3]) })
  }
  return words
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000

/** Words into segments by `grouping`, ordered and clamped to `[0, seconds]`. */
export const toTranscript = (words: ReadonlyArray<TimedWord>, seconds: number): Transcript => {
  const sorted = [...words].sort((a, b) => a.start - b.start)
  const groups: Array<Array<TimedWord>> = []
  for (const word of sorted) {
    const current = groups[groups.length - 1]
    const last = current?.[current.length - 1]
    const split = current === undefined || last === undefined ||
      word.start - last.end >= grouping.pauseSeconds ||
      current.length >= grouping.maxWords ||
      word.end - current[0]!.start > grouping.maxSeconds
    if (split) groups.push([word])
    else current.push(word)
  }
  const clamp = (t: number) => round(Math.min(Math.max(t, 0), seconds))
  let previousEnd = 0
  const segments: Array<Segment> = groups.map((group) => {
    // Never before the previous segment's end: an engine's overlapping frames stay ordered.
    const start = Math.max(clamp(group[0]!.start), previousEnd)
    const end = Math.max(clamp(group[group.length - 1]!.end), start)
    previousEnd = end
    return { start, end, text: group.map((w) => w.word).join(" ") }
  })
  return { text: segments.map((segment) => segment.text).join(" "), segments }
}

// ---------------------------------------------------------------------------------------------
// The engine

export interface PocketsphinxSettings {
  /**
   * The time bound is `base + perAudioSecond × the audio's seconds`: pocketsphinx decodes
   * at about 0.35× real time on one core, so 1× plus a minute leaves room for a busy machine
   * (600 s of audio, ffmpeg's bound, gets 11 minutes).
   */
  readonly base: Duration.DurationInput
  readonly perAudioSecond: number
}

const defaults: PocketsphinxSettings = { base: Duration.seconds(60), perAudioSecond: 1 }

/**
 * Audio whose loudest sample is under -60 dBFS holds nothing to hear: it is an empty transcript
 * without running the decoder, which spends seconds of CPU on it all the same (7 s for the 13 s
 * of silence in test/fixtures/silent.mp4). Digital silence is -91 dBFS in ffmpeg's terms; the
 * quietest speech a phone records is far above -60.
 */
export const silenceGate = 10 ** (-60 / 20)

/**
 * Runs `pocketsphinx_continuous -infile <wav> -time yes`. `-remove_silence no`: with its
 * voice-activity detection on, this version prints word times shifted by an unrelated offset
 * (and its recognition was no better on our fixtures); without it, the whole file is one
 * utterance and the times are the audio's.
 */
export const layer = (install: PocketsphinxInstall, options: Partial<PocketsphinxSettings> = {}) => {
  const settings = { ...defaults, ...options }
  const { dict, hmm, lm } = modelFiles(install.modelDir)
  const failed = (reason: string) => new TranscriptionFailed({ reason })
  return Layer.succeed(
    Transcriber,
    Transcriber.of({
      engine,
      transcribe: (wavPath) =>
        Effect.gen(function*() {
          const seconds = yield* wavSeconds(wavPath).pipe(Effect.mapError(() => failed("not a readable WAV")))
          if ((yield* wavPeak(wavPath, silenceGate).pipe(Effect.mapError(() => failed("not a readable WAV")))) < silenceGate) {
            return { text: "", segments: [] }
          }
          const timeout = Duration.sum(Duration.decode(settings.base), Duration.seconds(seconds * settings.perAudioSecond))
          const exit = yield* runChild(install.binary, [
            "-infile",
            wavPath,
            "-time",
            "yes",
            "-remove_silence",
            "no",
            "-hmm",
            hmm,
            "-lm",
            lm,
            "-dict",
            dict,
            "-logfn",
            "/dev/null"
          ], { timeout }).pipe(
            Effect.catchTags({
              ChildNotStarted: ({ code }) => Effect.fail(failed(`pocketsphinx could not start (${code})`)),
              ChildTimedOut: ({ after }) => Effect.fail(failed(`pocketsphinx timed out after ${Math.round(Duration.toSeconds(after))}s`)),
              ChildOutputTooLarge: () => Effect.fail(failed("pocketsphinx printed too much"))
            })
          )
          if (exit.code !== 0) {
            yield* Effect.logDebug(`pocketsphinx: ${exit.stderrTail}`)
            return yield* Effect.fail(failed(`pocketsphinx exited with ${exit.code === null ? "a signal" : `code ${exit.code}`}`))
          }
          return toTranscript(parseWordTimes(exit.stdout), seconds)
        })
    })
  )
}
