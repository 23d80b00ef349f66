import { type FileHandle, mkdtemp, open, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { Config, Context, Duration, Effect, Layer, Option, type Scope } from "effect"
import { optionalSetting } from "../../../platform/AppConfig.js"
import { findOnPath, runChild } from "../../../platform/ChildProcess.js"
import { AudioUnavailable } from "../Pipeline.js"

/**
 * Media to 16 kHz mono 16-bit WAV (what both transcription engines read). The binary is
 * `FFMPEG_PATH`, else `ffmpeg` on PATH, else the one `@ffmpeg-installer/ffmpeg` ships; none that
 * runs -> AudioUnavailable `ffmpeg not found`; a file ffmpeg cannot read -> AudioUnavailable
 * naming that.
 */
export class AudioExtractor extends Context.Tag("adintel/AudioExtractor")<AudioExtractor, {
  /** What `/ready` and the start-up log name, e.g. `ffmpeg (/usr/bin/ffmpeg)`. */
  readonly engine: string
  /** The WAV in a temporary file, removed when the scope closes. */
  readonly toWav: (mediaPath: string) => Effect.Effect<{ readonly path: string; readonly seconds: number }, AudioUnavailable, Scope.Scope>
}>() {
  /**
   * The first of `binaries` that answers `-version` (none: every call answers
   * `ffmpeg not found`). Tests pass the list; production uses `layerConfig`.
   */
  static readonly ffmpeg = (binaries: ReadonlyArray<string>, options: Partial<FfmpegSettings> = {}) =>
    Layer.effect(
      AudioExtractor,
      Effect.flatMap(firstRunning(binaries.map((binary) => Effect.succeed(Option.some(binary)))), (binary) =>
        make(binary, { ...defaults, ...options }))
    )

  /**
   * `FFMPEG_PATH`, else `ffmpeg` on `PATH`, else `@ffmpeg-installer/ffmpeg`'s binary: the first
   * that runs (one that is configured but does not run is logged and skipped). The temporary
   * WAV goes to `MEDIA_TEMP_DIR` (the downloads' directory), else the system's.
   */
  static readonly layerConfig = Layer.effect(
    AudioExtractor,
    Effect.gen(function*() {
      const configured = yield* optionalSetting("FFMPEG_PATH")
      const tempDir = yield* optionalSetting("MEDIA_TEMP_DIR").pipe(Config.map(Option.getOrElse(() => tmpdir())))
      const binary = yield* firstRunning([Effect.succeed(configured), findOnPath("ffmpeg"), installerBinary])
      if (Option.isSome(configured) && !Option.contains(binary, configured.value)) {
        yield* Effect.logWarning(`FFMPEG_PATH ${configured.value} does not run ffmpeg; using ${Option.getOrElse(binary, () => "none")}`)
      }
      return yield* make(binary, { ...defaults, tempDir })
    })
  )
}

export interface FfmpegSettings {
  /** Where the WAV's temporary directory is made. */
  readonly tempDir: string
  /** One conversion's time bound; the child is killed after it. */
  readonly timeout: Duration.DurationInput
  /**
   * Only the first this many seconds of the media are converted (`-t`): an ad is well under a
   * minute, and this bounds the WAV (32 kB a second) and the transcription time.
   */
  readonly maxSeconds: number
}

const defaults: FfmpegSettings = { tempDir: tmpdir(), timeout: Duration.seconds(60), maxSeconds: 600 }

const notFound = () => new AudioUnavailable({ reason: "ffmpeg not found" })

/** `ffmpeg -version` exits 0 within 10 s: a binary that exists but cannot run is no ffmpeg. */
const runs = (binary: string) =>
  runChild(binary, ["-hide_banner", "-version"], { timeout: Duration.seconds(10) }).pipe(
    Effect.map((exit) => exit.code === 0 && exit.stdout.startsWith("ffmpeg version")),
    Effect.orElseSucceed(() => false)
  )

/** The first candidate that runs; each is looked up only when the ones before it failed. */
const firstRunning = <E>(candidates: ReadonlyArray<Effect.Effect<Option.Option<string>, E>>) =>
  Effect.gen(function*() {
    for (const candidate of candidates) {
      const binary = yield* candidate
      if (Option.isSome(binary) && (yield* runs(binary.value))) return binary
    }
    return Option.none<string>()
  })

/**
 * The npm package's binary. Imported only when nothing else was found, and optional: the
 * package throws on an unsupported platform, and its platform package may not be installed.
 */
const installerBinary: Effect.Effect<Option.Option<string>> = Effect.tryPromise(() => import("@ffmpeg-installer/ffmpeg")).pipe(
  Effect.map((installer): Option.Option<string> => Option.fromNullable(installer.default?.path)),
  Effect.orElseSucceed(() => Option.none<string>())
)

/** Where a canonical WAV's samples are: the `data` chunk's offset and length, and the byte rate. */
const wavLayout = async (handle: FileHandle) => {
  const size = (await handle.stat()).size
  const header = Buffer.alloc(Math.min(size, 4096))
  await handle.read(header, 0, header.length, 0)
  if (header.length < 12 || header.toString("ascii", 0, 4) !== "RIFF" || header.toString("ascii", 8, 12) !== "WAVE") {
    throw new Error("not a WAV")
  }
  let byteRate = 0
  for (let at = 12; at + 8 <= header.length;) {
    const id = header.toString("ascii", at, at + 4)
    const length = header.readUInt32LE(at + 4)
    if (id === "fmt " && at + 20 <= header.length) byteRate = header.readUInt32LE(at + 16)
    if (id === "data") {
      if (byteRate <= 0) throw new Error("no fmt chunk before data")
      const available = size - (at + 8)
      return { dataAt: at + 8, dataBytes: Math.max(0, Math.min(length, available)), byteRate }
    }
    at += 8 + length + (length % 2)
  }
  throw new Error("no data chunk")
}

const readWav = <A>(file: string, f: (handle: FileHandle, layout: Awaited<ReturnType<typeof wavLayout>>) => Promise<A>) =>
  Effect.tryPromise({
    try: async () => {
      const handle = await open(file, "r")
      try {
        return await f(handle, await wavLayout(handle))
      } finally {
        await handle.close()
      }
    },
    catch: () => new AudioUnavailable({ reason: "ffmpeg wrote no readable audio" })
  })

/**
 * A canonical 16-bit PCM WAV's duration from its header: the `data` chunk's length over the
 * byte rate. A length the writer could not patch (streamed output) counts as "to the end".
 */
export const wavSeconds = (file: string): Effect.Effect<number, AudioUnavailable> =>
  readWav(file, async (_, { byteRate, dataBytes }) => dataBytes / byteRate)

/** The pieces `wavPeak` reads at a time: its memory, whatever the audio's length. */
const peakChunkBytes = 1 << 20

/**
 * The loudest sample of a 16-bit PCM WAV (what `toWav` writes), as a fraction of full scale:
 * 0 for digital silence, 1 at clipping. Read in pieces of `peakChunkBytes`, and no further than
 * the piece where a sample reaches `enough`: a caller asking only whether the audio is that loud
 * (the silence gate, on every transcription) reads speech's first piece, not all of it.
 */
export const wavPeak = (file: string, enough = 1): Effect.Effect<number, AudioUnavailable> =>
  readWav(file, async (handle, { dataAt, dataBytes }) => {
    const chunk = Buffer.alloc(Math.min(peakChunkBytes, dataBytes))
    const stopAt = enough * 32768
    let peak = 0
    for (let done = 0; done + 1 < dataBytes && peak < stopAt;) {
      const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, dataBytes - done), dataAt + done)
      if (bytesRead < 2) break
      for (let at = 0; at + 1 < bytesRead; at += 2) {
        const sample = Math.abs(chunk.readInt16LE(at))
        if (sample > peak) peak = sample
      }
      done += bytesRead - (bytesRead % 2)
    }
    return Math.min(1, peak / 32768)
  })

const make = (binary: Option.Option<string>, settings: FfmpegSettings) =>
  Effect.succeed(AudioExtractor.of({
    engine: Option.match(binary, { onNone: () => "ffmpeg not found", onSome: (found) => `ffmpeg (${found})` }),
    toWav: (mediaPath) =>
      Option.match(binary, {
        onNone: () => Effect.fail(notFound()),
        onSome: (ffmpeg) => convert(ffmpeg, settings, mediaPath)
      })
  }))

/**
 * The demuxers ffmpeg may open (issue 28): MP4/MOV (and M4A), Matroska/WebM, MPEG-TS, FLV, AVI,
 * Ogg, and the audio files MP3, WAV, FLAC and AAC. Playlists (HLS, DASH) and concat scripts, which
 * name other files or URLs, are not among them.
 */
export const mediaDemuxers = "mov,matroska,mpegts,flv,avi,ogg,mp3,wav,flac,aac"

const convert = (ffmpeg: string, settings: FfmpegSettings, mediaPath: string) =>
  Effect.gen(function*() {
    const remove = (dir: string) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
    const dir = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => mkdtemp(path.join(settings.tempDir, "adintel-audio-")),
        catch: () => new AudioUnavailable({ reason: "no room for temporary audio" })
      }),
      remove
    )
    const wav = path.join(dir, "audio.wav")
    const seconds = Duration.toSeconds(settings.timeout)
    return yield* Effect.gen(function*() {
      const exit = yield* runChild(ffmpeg, [
        "-hide_banner",
        "-nostdin",
        "-loglevel",
        "error",
        // An input option: ffmpeg stops reading (and decoding) the media there.
        "-t",
        String(settings.maxSeconds),
        // The media is a local file and nothing else: no protocol but files (a playlist or a
        // reference file can name URLs ffmpeg would fetch itself, around RemoteMedia's SSRF
        // guard), and only the containers short videos come in (no playlists, no concat scripts).
        "-protocol_whitelist",
        "file",
        "-format_whitelist",
        mediaDemuxers,
        // "file:" so a path such as "http://..." or "pipe:1" is never read as a protocol.
        "-i",
        `file:${path.resolve(mediaPath)}`,
        "-map",
        "0:a:0",
        "-vn",
        "-sn",
        "-dn",
        "-ac",
        "1",
        "-ar",
        "16000",
        "-c:a",
        "pcm_s16le",
        // No LIST/INFO chunk: the header is the canonical 44 bytes pocketsphinx skips.
        "-bitexact",
        "-map_metadata",
        "-1",
        "-f",
        "wav",
        `file:${wav}`
      ], { timeout: settings.timeout, maxStdoutBytes: 64 * 1024 }).pipe(
        Effect.catchTags({
          ChildNotStarted: () => Effect.fail(notFound()),
          ChildTimedOut: () => Effect.fail(new AudioUnavailable({ reason: `ffmpeg timed out after ${seconds}s` })),
          ChildOutputTooLarge: () => Effect.fail(new AudioUnavailable({ reason: "ffmpeg could not read the media" }))
        })
      )
      if (exit.code !== 0) {
        yield* Effect.logDebug(`ffmpeg exited with ${exit.code ?? "a signal"}: ${exit.stderrTail}`)
        // The one cause worth telling apart; stderr itself is never answered (it names paths).
        const reason = /matches no streams/.test(exit.stderrTail) ? "the media has no audio track" : "ffmpeg could not read the media"
        return yield* Effect.fail(new AudioUnavailable({ reason }))
      }
      return { path: wav, seconds: yield* wavSeconds(wav) }
    }).pipe(
      // A failed conversion leaves nothing behind, even while the caller's scope stays open.
      Effect.onError(() => remove(dir))
    )
  })
