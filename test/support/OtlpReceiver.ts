import { ConfigProvider, Context, Effect, Layer, Queue, TestClock } from "effect"
import { createServer } from "node:http"
import * as Tracing from "../../src/platform/telemetry/Tracing.js"

/** An OTLP attribute as OTLP/HTTP JSON carries it. */
export interface OtlpAttribute {
  readonly key: string
  readonly value: { readonly stringValue?: string; readonly intValue?: number | string; readonly boolValue?: boolean; readonly doubleValue?: number }
}

/** A span as OTLP/HTTP JSON (`ExportTraceServiceRequest`) carries it, with its resource's attributes. */
export interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<OtlpAttribute>
  /** Its events: the logs written under it, and an `exception` when it failed. */
  readonly events?: ReadonlyArray<{ readonly name: string; readonly attributes: ReadonlyArray<OtlpAttribute> }>
  readonly resource: ReadonlyArray<OtlpAttribute>
}

/** An attribute's value as text or number, whatever its OTLP type. */
export const attribute = (span: Pick<OtlpSpan, "attributes">, key: string): string | number | boolean | undefined => {
  const value = span.attributes.find((a) => a.key === key)?.value
  if (value === undefined) return undefined
  if (value.intValue !== undefined) return Number(value.intValue)
  return value.stringValue ?? value.boolValue ?? value.doubleValue
}

/**
 * A real OTLP/HTTP trace receiver on 127.0.0.1: accepts `POST /v1/traces` with a JSON body
 * (what a collector accepts), decodes every span, and keeps the raw bodies. `until` waits for
 * posts until one of the spans received so far satisfies `predicate`.
 */
export class OtlpReceiver extends Context.Tag("test/OtlpReceiver")<OtlpReceiver, {
  readonly url: string
  readonly bodies: ReadonlyArray<string>
  readonly spans: ReadonlyArray<OtlpSpan>
  readonly until: (predicate: (span: OtlpSpan) => boolean) => Effect.Effect<ReadonlyArray<OtlpSpan>>
}>() {}

export const OtlpReceiverLive = Layer.scoped(
  OtlpReceiver,
  Effect.gen(function*() {
    const bodies: Array<string> = []
    const spans: Array<OtlpSpan> = []
    const arrivals = yield* Queue.unbounded<void>()
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        if (request.method !== "POST" || request.url !== "/v1/traces") {
          response.writeHead(404).end()
          return
        }
        if (!(request.headers["content-type"] ?? "").startsWith("application/json")) {
          response.writeHead(415).end()
          return
        }
        const body = Buffer.concat(chunks).toString("utf8")
        bodies.push(body)
        const decoded = JSON.parse(body) as {
          resourceSpans: Array<{ resource: { attributes: Array<OtlpAttribute> }; scopeSpans: Array<{ spans: Array<Omit<OtlpSpan, "resource">> }> }>
        }
        for (const { resource, scopeSpans } of decoded.resourceSpans) {
          for (const scope of scopeSpans) for (const span of scope.spans) spans.push({ ...span, resource: resource.attributes })
        }
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
        Queue.unsafeOffer(arrivals, undefined)
      })
    })
    const port = yield* Effect.acquireRelease(
      Effect.async<number>((resume) => {
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
        })
      }),
      () =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )
    const until = (predicate: (span: OtlpSpan) => boolean): Effect.Effect<ReadonlyArray<OtlpSpan>> =>
      Effect.suspend(() => spans.some(predicate) ? Effect.succeed(spans) : Effect.zipRight(Queue.take(arrivals), until(predicate)))
    return { url: `http://127.0.0.1:${port}`, bodies, spans, until }
  })
)

/** The tracer of `Tracing.layer`, configured as an operator would: the receiver's address and a service name. */
export const OtlpTracingLive = Layer.unwrapEffect(
  Effect.map(OtlpReceiver, ({ url }) =>
    Tracing.layer.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([
      ["OTEL_EXPORTER_OTLP_ENDPOINT", url],
      ["OTEL_SERVICE_NAME", "adintel-under-test"]
    ])))))
  )
)

/** The exporter sends what ended every 5 s of the server's clock: move it on, then wait for the receiver to have `predicate`. */
export const exported = (predicate: (span: OtlpSpan) => boolean) =>
  Effect.zipRight(TestClock.adjust("6 seconds"), Effect.flatMap(OtlpReceiver, (receiver) => receiver.until(predicate)))
