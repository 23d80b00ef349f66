import type * as dns from "node:dns"
import { parseAllowList, pinnedTo, PublicAddresses } from "../PublicAddresses.js"
import { createWriteStream } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import * as http from "node:http"
import * as https from "node:https"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { Transform, Writable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { optionalSetting } from "../AppConfig.js"
import { Config, ConfigError, ConfigProvider, Duration, Effect, Either, Layer, Option, Schema, type Scope } from "effect"
import { serviceSpan } from "../telemetry/Tracing.js"
import { errorCodeOf } from "../../kernel/Guards.js"

/**
 * Downloads user-supplied media URLs without letting them reach the service's own network
 * (SSRF): only http(s), every resolved address checked, the connection pinned to the checked
 * addresses, redirects followed by hand and re-checked, size and time bounded.
 */

/**
 * A refused fetch. `reason` is short and safe to show (never a stack); an API prefixes the
 * field, e.g. `image_url: address not allowed: only public internet addresses are fetched`.
 */
export class MediaFetchError extends Schema.TaggedError<MediaFetchError>()("MediaFetchError", {
  reason: Schema.String
}) {}

export interface RemoteMediaSettings {
  /** Hosts, addresses and CIDRs fetched even though private (`MEDIA_FETCH_ALLOW`). */
  readonly allow: ReadonlyArray<string>
  /** The largest body read, unless a call asks for another bound. */
  readonly maxBytes: number
  /** Bounds a whole fetch: every hop, and the body. */
  readonly timeout: Duration.Duration
  /** Where `download` puts its temporary files. */
  readonly tempDir: string
}

export interface FetchOptions {
  readonly maxBytes?: number
  /** Content-type prefixes accepted, such as `"image/"`; absent: any. */
  readonly accept?: ReadonlyArray<string>
}

export interface FetchedMedia {
  readonly bytes: Uint8Array
  readonly contentType: string
  readonly finalUrl: string
}

export interface DownloadedMedia {
  /** A temporary file, removed when the scope closes. */
  readonly path: string
  readonly contentType: string
  readonly finalUrl: string
  readonly bytes: number
}

export const maxRedirects = 5

// ---------------------------------------------------------------------------------------------
// Configuration

export const settings: Config.Config<RemoteMediaSettings> = Config.all({
  allow: Config.string("MEDIA_FETCH_ALLOW").pipe(
    Config.withDefault(""),
    Config.map((text) => text.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")),
    Config.mapOrFail((entries) =>
      Either.match(parseAllowList(entries), {
        onLeft: (bad) =>
          Either.left(ConfigError.InvalidData(
            ["MEDIA_FETCH_ALLOW"],
            `${bad.join(", ")}: not a host name, an address or a CIDR such as 10.0.0.0/8`
          )),
        onRight: () => Either.right(entries)
      })
    )
  ),
  maxBytes: Config.integer("MEDIA_MAX_BYTES").pipe(
    Config.validate({ message: "MEDIA_MAX_BYTES must be positive", validation: (n) => n > 0 }),
    Config.withDefault(20 * 1024 * 1024)
  ),
  timeout: Config.duration("MEDIA_FETCH_TIMEOUT").pipe(
    Config.validate({ message: "MEDIA_FETCH_TIMEOUT must be positive", validation: (d) => Duration.toMillis(d) > 0 }),
    Config.withDefault(Duration.seconds(10))
  ),
  tempDir: optionalSetting("MEDIA_TEMP_DIR").pipe(Config.map(Option.getOrElse(() => tmpdir())))
})

// ---------------------------------------------------------------------------------------------
// Fetching

const refuse = (reason: string) => Effect.fail(new MediaFetchError({ reason }))

/**
 * One message for every address that may not be fetched, whatever its kind: a refusal never
 * tells a caller what a name resolves to inside the network (issue 28). The log says which.
 */
export const addressNotAllowed = "address not allowed: only public internet addresses are fetched"

const redirectStatuses = new Set([301, 302, 303, 307, 308])

/** An accepted content-type prefix as a media range: "image/" -> "image/*". */
const mediaRange = (prefix: string) => (prefix.endsWith("/") ? `${prefix}*` : prefix)

const parseUrl = (text: string, base?: URL) => {
  if (!URL.canParse(text, base?.href)) return refuse("not a valid URL")
  const url = new URL(text, base)
  return url.protocol === "http:" || url.protocol === "https:" ? Effect.succeed(url) : refuse("only http(s) URLs are allowed")
}

/** The body passed its bound: stops the pipeline at once. */
class TooLarge extends Error {}

const errorCode = (error: unknown) =>
  errorCodeOf(error) ?? (error instanceof Error ? error.message : String(error))

const make = (config: RemoteMediaSettings) =>
  Effect.gen(function*() {
    const publicAddresses = yield* PublicAddresses
    const allow = yield* Either.match(parseAllowList(config.allow), {
      onLeft: (bad) => Effect.dieMessage(`RemoteMedia: bad allow-list entries ${bad.join(", ")}`),
      onRight: Effect.succeed
    })
    const larger = (maxBytes: number) => refuse(`larger than ${maxBytes} bytes`)

    /** The addresses `url` may be fetched from (empty for an IP literal: nothing to resolve). */
    const checkedAddresses = (url: URL) =>
      publicAddresses.checked(url, allow).pipe(
        Effect.catchAll((refusal) =>
          refusal._tag === "Unresolved"
            ? refuse(`cannot resolve host ${refusal.host}`)
            : Effect.zipRight(
              Effect.logDebug(`Media fetch refused: ${refusal.host} is ${refusal.address} (${refusal.kind})`),
              refuse(addressNotAllowed)
            ))
      )

    /** One request, connected only to `addresses`; the response is destroyed with the scope. */
    const request = (url: URL, addresses: ReadonlyArray<dns.LookupAddress>, accept: string) =>
      Effect.async<http.IncomingMessage, MediaFetchError>((resume) => {
        let settled = false
        const settle = (effect: Effect.Effect<http.IncomingMessage, MediaFetchError>) => {
          if (settled) return
          settled = true
          resume(effect)
        }
        // agent: false: a pooled socket could have been opened for another allow-list.
        const req = (url.protocol === "https:" ? https : http).request(url, {
          agent: false,
          // Pinned to the checked addresses (DNS rebinding).
          ...pinnedTo(addresses),
          headers: { accept, "user-agent": "adintel-media/1" }
        })
        req.on("response", (res) => {
          // Errors surface through the body read; an unread response must not crash the process.
          res.on("error", () => undefined)
          settle(Effect.succeed(res))
        })
        req.on("error", (error) => settle(refuse(`could not fetch ${url.host}: ${errorCode(error)}`)))
        req.end()
        return Effect.sync(() => req.destroy())
      }).pipe(
        (pending) => Effect.uninterruptibleMask((restore) =>
          Effect.tap(restore(pending), (res) => Effect.addFinalizer(() => Effect.sync(() => res.destroy()))))
      )

    /** Follows redirects by hand, checking each hop; answers the final 2xx response. */
    const open = (start: string, options: FetchOptions, maxBytes: number) =>
      Effect.gen(function*() {
        const accept = options.accept ?? []
        const acceptHeader = accept.length > 0 ? accept.map(mediaRange).join(", ") : "*/*"
        let url = yield* parseUrl(start)
        for (let hop = 0;; hop++) {
          const res = yield* request(url, yield* checkedAddresses(url), acceptHeader)
          const status = res.statusCode ?? 0
          if (redirectStatuses.has(status)) {
            res.destroy()
            if (hop >= maxRedirects) return yield* refuse(`more than ${maxRedirects} redirects`)
            const location = res.headers.location
            if (!location) return yield* refuse(`redirect ${status} without a Location header`)
            url = yield* parseUrl(location, url)
            continue
          }
          if (status < 200 || status > 299) return yield* refuse(`server answered ${status}`)
          const contentType = res.headers["content-type"]?.trim() || "application/octet-stream"
          const mediaType = contentType.split(";")[0]!.trim().toLowerCase()
          if (accept.length > 0 && !accept.some((prefix) => mediaType.startsWith(prefix.toLowerCase()))) {
            return yield* refuse(`content type ${mediaType} is not ${accept.map(mediaRange).join(" or ")}`)
          }
          if (Number(res.headers["content-length"]) > maxBytes) return yield* larger(maxBytes)
          return { res, contentType, finalUrl: url.href }
        }
      })

    /** Pipes the body into `sink`, stopping as soon as it passes `maxBytes`; answers its length. */
    const drain = (res: http.IncomingMessage, sink: Writable, maxBytes: number) => {
      let seen = 0
      const limit = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          seen += chunk.length
          done(seen > maxBytes ? new TooLarge() : null, chunk)
        }
      })
      return Effect.tryPromise({ try: (signal) => pipeline(res, limit, sink, { signal }), catch: (error) => error }).pipe(
        Effect.map(() => seen),
        Effect.catchAll((error) =>
          error instanceof TooLarge
            ? larger(maxBytes)
            // A file-system error (it names a path) is ours, not the remote's.
            : typeof error === "object" && error !== null && "path" in error && typeof error.path === "string"
            ? Effect.die(error)
            : refuse("the connection closed before the whole body arrived")
        )
      )
    }

    const seconds = Duration.toSeconds(config.timeout)
    const bounded = <A, R>(effect: Effect.Effect<A, MediaFetchError, R>) =>
      Effect.timeoutFail(effect, {
        duration: config.timeout,
        onTimeout: () => new MediaFetchError({ reason: `timed out after ${seconds}s` })
      })

    return {
      /** The whole body in memory. */
      fetch: Effect.fn("RemoteMedia.fetch", serviceSpan)((url: string, options: FetchOptions = {}): Effect.Effect<FetchedMedia, MediaFetchError> =>
        Effect.scoped(Effect.gen(function*() {
          const maxBytes = options.maxBytes ?? config.maxBytes
          const { contentType, finalUrl, res } = yield* open(url, options, maxBytes)
          const chunks: Array<Buffer> = []
          yield* drain(res, new Writable({ write: (chunk: Buffer, _encoding, done) => done(void chunks.push(chunk)) }), maxBytes)
          const body = Buffer.concat(chunks)
          return { bytes: new Uint8Array(body.buffer, body.byteOffset, body.byteLength), contentType, finalUrl }
        })).pipe(bounded)),

      /** The body in a temporary file (for videos); the file is removed when the scope closes, whatever happens. */
      download: Effect.fn("RemoteMedia.download", serviceSpan)(function*(url: string, options: FetchOptions = {}): Effect.fn.Return<DownloadedMedia, MediaFetchError, Scope.Scope> {
        const remove = (dir: string) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
        const dir = yield* Effect.acquireRelease(
          Effect.promise(() => mkdtemp(path.join(config.tempDir, "adintel-media-"))),
          remove
        )
        const file = path.join(dir, "body")
        const got = yield* Effect.scoped(Effect.gen(function*() {
          const maxBytes = options.maxBytes ?? config.maxBytes
          const { contentType, finalUrl, res } = yield* open(url, options, maxBytes)
          const bytes = yield* drain(res, createWriteStream(file, { flags: "wx", mode: 0o600 }), maxBytes)
          return { path: file, contentType, finalUrl, bytes }
        })).pipe(
          bounded,
          // A failed download leaves nothing behind, even while the caller's scope stays open.
          Effect.onError(() => remove(dir))
        )
        return got
      })
    }
  })

/** No variables at all: what `layerWith` reads the defaults from. */
const emptyProvider = ConfigProvider.fromMap(new Map())

export class RemoteMedia extends Effect.Service<RemoteMedia>()("adintel/RemoteMedia", {
  effect: Effect.flatMap(settings, make),
  dependencies: [PublicAddresses.Default]
}) {
  /** The defaults, with some settings replaced: what tests start from. */
  static readonly layerWith = (overrides: Partial<RemoteMediaSettings>) =>
    Layer.effect(
      RemoteMedia,
      Effect.withConfigProvider(settings, emptyProvider).pipe(
        Effect.orDie,
        Effect.flatMap((defaults) => make({ ...defaults, ...overrides })),
        Effect.map(RemoteMedia.make)
      )
    ).pipe(Layer.provide(PublicAddresses.Default))
}
