import { FileSystem, HttpServerError, type HttpServerRequest, Multipart, UrlParams } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Data, Effect, Option, Stream } from "effect"
import type { IncomingMessage } from "node:http"
import { malformedJson, maxJsonDepth, nestsWithin } from "../kernel/Json.js"

/**
 * Bounded request bodies: every body a route reads is read through these rules, so no route
 * can be sent more than its limit, a body nested deep enough to overflow a later recursive
 * step, or a broken multipart form that surfaces as a 500. The rules apply when the route
 * reads its body, after authentication (G1: a bad body is bad input, G11).
 */

/** Why a body was refused: 413 when it is larger than the route takes, 400 when it is malformed. */
export class BodyRejected extends Data.TaggedError("BodyRejected")<{
  readonly status: 400 | 413
  readonly message: string
}> {}

/** The most parts a multipart form may have. */
export const maxMultipartParts = 64


/**
 * The body's bytes, at most `limit` of them. Past the limit the reading stops (the stream is
 * paused, not destroyed), so the 413 can still be answered on the connection, which then closes.
 */
const readAtMost = (source: IncomingMessage, limit: number, tooLarge: () => BodyRejected) =>
  Effect.async<Buffer, BodyRejected | Error>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const stop = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) return void chunks.push(chunk)
      stop()
      source.pause()
      resume(Effect.fail(tooLarge()))
    }
    const onEnd = () => {
      stop()
      resume(Effect.succeed(Buffer.concat(chunks, size)))
    }
    const onError = (error: Error) => {
      stop()
      // The client went away while sending its body: the call ends as the platform ends a call
      // whose client went away, interrupted (its credit is given back, G4), not as bad input.
      resume(source.readableAborted ? Effect.interruptWith(HttpServerError.clientAbortFiberId) : Effect.fail(error))
    }
    source.on("data", onData)
    source.once("end", onEnd)
    source.once("error", onError)
    return Effect.sync(stop)
  })

/**
 * `request` with its body reads (`text`, `json`, `urlParamsBody`, `arrayBuffer`, `multipart`)
 * bounded by `limit` bytes and checked as above; they fail with a `RequestError` whose cause is
 * a `BodyRejected`, as the platform's own reads fail with a `RequestError`. A body whose declared
 * length is over the limit is refused without reading it. `stream` is left as it is: a route
 * that streams (the NDJSON import) counts its own bytes.
 */
export const boundedRequest = (
  request: HttpServerRequest.HttpServerRequest,
  limit: number
): HttpServerRequest.HttpServerRequest => {
  const fail = (cause: unknown) => new HttpServerError.RequestError({ request, reason: "Decode", cause })
  const reject = (status: BodyRejected["status"], message: string) => fail(new BodyRejected({ status, message }))
  // Made only when a body is read or refused: most requests (GET) read none, and an error's stack costs.
  const tooLarge = () => new BodyRejected({ status: 413, message: `Request body too large: at most ${limit} bytes` })
  const declared = Number(request.headers["content-length"])
  const overDeclared = Number.isFinite(declared) && declared > limit

  // Read once, whichever read a route makes first (the platform's reads are cached alike); the
  // cache itself is made at the first read.
  let cached: Effect.Effect<Buffer, HttpServerError.RequestError> | undefined
  const bytes = Effect.suspend(() =>
    cached ??= Effect.runSync(Effect.cached(Effect.suspend(() =>
      overDeclared
        ? Effect.fail(fail(tooLarge()))
        : Effect.mapError(readAtMost(NodeHttpServerRequest.toIncomingMessage(request), limit, tooLarge), fail)
    )))
  )
  const text = Effect.map(bytes, (body) => body.toString("utf8"))
  const json = Effect.flatMap(text, (body) => {
    if (body === "") return Effect.succeed<unknown>(null)
    if (!nestsWithin(body, maxJsonDepth)) {
      return Effect.fail(reject(400, `Malformed request body: JSON nested deeper than ${maxJsonDepth} levels`))
    }
    return Effect.try({ try: (): unknown => JSON.parse(body), catch: () => reject(400, malformedJson) })
  })
  const multipartLimits = {
    maxParts: Option.some(maxMultipartParts),
    maxFieldSize: FileSystem.Size(limit),
    maxFileSize: Option.some(FileSystem.Size(limit)),
    maxTotalSize: Option.some(FileSystem.Size(limit))
  }
  const fromMultipart = (error: Multipart.MultipartError) =>
    error.reason === "TooManyParts"
      ? reject(413, `Request body too large: at most ${maxMultipartParts} parts`)
      : error.reason === "Parse" || error.reason === "InternalError"
      ? reject(400, "Malformed request body: truncated or invalid multipart form")
      : fail(tooLarge())
  // Each read is made when a route asks for it, as the platform's own are.
  const reads: Partial<Record<PropertyKey, () => unknown>> = {
    text: () => text,
    json: () => json,
    urlParamsBody: () => Effect.map(text, (body) => UrlParams.fromInput(new URLSearchParams(body))),
    arrayBuffer: () => Effect.map(bytes, (body) => body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength)),
    multipart: () =>
      overDeclared
        ? Effect.fail(fail(tooLarge()))
        : Multipart.withLimits(request.multipart, multipartLimits).pipe(Effect.mapError(fromMultipart)),
    multipartStream: () => Multipart.withLimitsStream(request.multipartStream, multipartLimits).pipe(Stream.mapError(fromMultipart))
  }
  // The platform's request is a class of its own with many members; a proxy replaces the body
  // reads and hands everything else (headers, url, cookies, the Node source) to the original.
  return new Proxy(request, {
    get: (target, property) => {
      const read = Object.hasOwn(reads, property) ? reads[property] : undefined
      if (read !== undefined) return read()
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === "function" ? value.bind(target) : value
    }
  })
}
