import { Context, type Effect, type Scope } from "effect"
import type { AudioUnavailable } from "./Pipeline.js"

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
}>() {}
