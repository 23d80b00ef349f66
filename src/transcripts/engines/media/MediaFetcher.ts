import { Context, Effect, Layer, type Scope } from "effect"
import { RemoteMedia } from "../../../platform/media/RemoteMedia.js"
import { AudioUnavailable, NoPlayableUrl } from "../Pipeline.js"

/** Where a video's or ad's media may be found (spec: rule 1, in this order). */
export interface MediaSources {
  /** The URL stored with the video or ad record. */
  readonly stored: string | null
  readonly video_cdn_url?: string | undefined
  readonly video_url?: string | undefined
}

export interface MediaFile {
  /** A temporary file, removed when the scope closes. */
  readonly path: string
  readonly bytes: number
  /** The URL it came from (the first of the sources that was given). */
  readonly url: string
}

/** spec: rule 1: stored video data first, then `video_cdn_url`, then `video_url`. */
export const playbackUrl = (sources: MediaSources): string | undefined =>
  [sources.stored, sources.video_cdn_url, sources.video_url].find((url): url is string => typeof url === "string" && url !== "")

/**
 * Resolves the playback URL and downloads it SSRF-safely into a temporary file that is always
 * removed (RemoteMedia's rules: http(s) only, public addresses after DNS unless allowed by
 * `MEDIA_FETCH_ALLOW`, redirects re-checked, `MEDIA_MAX_BYTES`, `MEDIA_FETCH_TIMEOUT`).
 * No URL -> NoPlayableUrl; a refused or failed download -> AudioUnavailable with
 * `download failed: <reason>`.
 */
export class MediaFetcher extends Context.Tag("adintel/MediaFetcher")<MediaFetcher, {
  readonly fetch: (sources: MediaSources) => Effect.Effect<MediaFile, NoPlayableUrl | AudioUnavailable, Scope.Scope>
}>() {
  static readonly remote = Layer.effect(
    MediaFetcher,
    Effect.map(RemoteMedia, (media) =>
      MediaFetcher.of({
        fetch: (sources) => {
          const url = playbackUrl(sources)
          if (url === undefined) return Effect.fail(new NoPlayableUrl())
          return media.download(url).pipe(
            Effect.map((file) => ({ path: file.path, bytes: file.bytes, url })),
            Effect.mapError(({ reason }) => new AudioUnavailable({ reason: `download failed: ${reason}` }))
          )
        }
      }))
  )
}
