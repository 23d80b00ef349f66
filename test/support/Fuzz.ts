import { HttpApi, OpenApi } from "@effect/platform"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { AdIntelApi } from "../../src/app/Api.js"
import { TestDatabase } from "./TestDatabase.js"
import { account, type Answer, sameOrigin, signIn, TestServer, testServer } from "./TestServer.js"

/**
 * Issue 16: every operation of the contract, every parameter, sent values of the wrong kind
 * (NUL and unpaired surrogates, year 0000, huge, negative and non-decimal numbers, non-object,
 * deeply nested and truncated bodies). No answer may be a 5xx, and every 400/413 is the
 * one-line envelope. The operations come from the contract's own OpenAPI document, so a route
 * added later is covered without touching this file. A mirror (the same family at a legacy or
 * alias path) shares its twin's decoding: it gets one parameter probe and every bad body.
 */

type JsonSchema = {
  readonly $ref?: string
  readonly type?: string
  readonly format?: string
  readonly enum?: ReadonlyArray<unknown>
  readonly pattern?: string
  readonly minimum?: number
  readonly minLength?: number
  readonly items?: JsonSchema
  readonly properties?: Record<string, JsonSchema>
  readonly required?: ReadonlyArray<string>
  readonly allOf?: ReadonlyArray<JsonSchema>
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly oneOf?: ReadonlyArray<JsonSchema>
}
interface Parameter {
  readonly name: string
  readonly in: "query" | "path" | "header" | "cookie"
  readonly required?: boolean
  readonly schema: JsonSchema
}
interface Operation {
  readonly method: string
  readonly path: string
  readonly parameters: ReadonlyArray<Parameter>
  readonly body: Option.Option<{ readonly contentType: string; readonly schema: JsonSchema }>
  readonly security: ReadonlyArray<Record<string, unknown>>
}

// (`as unknown as`: the walk below reads the document as plain JSON, with its own loose JsonSchema
// type, rather than through OpenApi's typed OpenAPISpec.)
const spec = OpenApi.fromApi(AdIntelApi) as unknown as {
  readonly paths: Record<string, Record<string, any>>
  readonly components: { readonly schemas: Record<string, JsonSchema> }
}

const resolve = (schema: JsonSchema): JsonSchema => {
  if (schema.$ref) return resolve(spec.components.schemas[schema.$ref.split("/").pop()!] ?? {})
  const [first] = schema.allOf ?? schema.anyOf ?? schema.oneOf ?? []
  return first !== undefined && schema.type === undefined ? { ...resolve(first), ...schema, allOf: undefined, anyOf: undefined, oneOf: undefined } : schema
}

const operations: ReadonlyArray<Operation> = Object.entries(spec.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]): Operation => {
    const [contentType, media] = Object.entries<any>(op.requestBody?.content ?? {})[0] ?? []
    return {
      method: method.toUpperCase(),
      path,
      parameters: op.parameters ?? [],
      body: contentType === undefined ? Option.none() : Option.some({ contentType, schema: resolve(media.schema ?? {}) }),
      security: op.security ?? []
    }
  })
)

/**
 * The mirrors (un-versioned aliases, legacy session paths) are not in the document (issue 27):
 * each is its twin's operation at the mirror's path, under the browser session when legacy.
 */
const mirrors: ReadonlyArray<Operation> = (() => {
  const endpoints: Array<{ readonly group: string; readonly name: string; readonly method: string; readonly path: string }> = []
  HttpApi.reflect(AdIntelApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group }) =>
      endpoints.push({ group: group.identifier, name: endpoint.name, method: endpoint.method, path: endpoint.path.replace(/:(\w+)\??/g, "{$1}") })
  })
  const documented = new Map(operations.map((operation) => [`${operation.method} ${operation.path}`, operation]))
  return endpoints.filter((mirror) => mirror.group.includes("@")).flatMap((mirror) => {
    const twin = endpoints.find((endpoint) => endpoint.group === mirror.group.split("@")[0] && endpoint.name === mirror.name)
    const operation = twin === undefined ? undefined : documented.get(`${twin.method} ${twin.path}`)
    if (operation === undefined) return []
    return [{ ...operation, path: mirror.path, security: mirror.group.includes("@legacy") ? [{ SessionCookie: [] }] : operation.security }]
  })
})()

/** A value the parameter would take, for the fields that are not under test (required ones only). */
const candidates = ["US", "en", "x", "abc", "a1", "product", "example.com", "2026-10-01", "social", "USD"]
const plausible = (raw: JsonSchema): unknown => {
  const schema = resolve(raw)
  if (schema.enum) return schema.enum[0]
  if (schema.format === "date") return "2026-10-01"
  if (schema.format === "date-time") return "2026-10-01T00:00:00Z"
  switch (schema.type) {
    case "integer":
    case "number":
      return schema.minimum ?? 1
    case "boolean":
      return true
    case "array":
      return [plausible(schema.items ?? {})]
    case "object":
      return Object.fromEntries((schema.required ?? []).map((name) => [name, plausible(schema.properties?.[name] ?? {})]))
    default: {
      const pattern = schema.pattern === undefined ? undefined : new RegExp(schema.pattern)
      return candidates.find((text) => pattern === undefined || pattern.test(text)) ?? "x"
    }
  }
}

/** What a query string or path can carry that it should not (already percent-encoded). */
const badText = ["%00", "a%00b", `${"x".repeat(6000)}`, "%ED%A0%80"]
const badByKind: Record<string, ReadonlyArray<string>> = {
  integer: ["0x10", "%205%20", "-1", "1e400", "99999999999999999999", "NaN", "1.5", "%00"],
  number: ["0x10", "1e400", "-1", "Infinity", "%00", "1e-400"],
  date: ["0000-01-01", "9999-12-31", "1899-12-31", "2026-02-30", "%00"],
  boolean: ["TRUE", "1", "%00"],
  array: ["%00", "a,%00", ",,,,", Array.from({ length: 60 }, (_, i) => `v${i}`).join(",")],
  string: badText
}
/** What a JSON body field can carry that it should not. */
const deepValue = JSON.parse("[".repeat(40) + "]".repeat(40))
const badJson: ReadonlyArray<unknown> = [
  "\u0000",
  "a\ud800b",
  "\udc00",
  "x".repeat(100_000),
  -1,
  1e308,
  0.5,
  "0000-01-01",
  "9999-12-31",
  null,
  [],
  ["\u0000"],
  Array.from({ length: 60 }, () => "a"),
  { "a\u0000": 1 },
  deepValue
]
/** Whole bodies that are not what any route takes. */
const badBodies: ReadonlyArray<readonly [string, string]> = [
  ["application/json", "null"],
  ["application/json", "[]"],
  ["application/json", `"x"`],
  ["application/json", "{"],
  ["application/json", "[".repeat(100_000) + "]".repeat(100_000)],
  ["multipart/form-data; boundary=fuzz", `--fuzz\r\nContent-Disposition: form-data; name="q"\r\n\r\nserum`],
  ["application/x-www-form-urlencoded", "email=%00&password=%ZZ"]
]

/** Each (operation, parameter) takes `perParameter` values of its kind, rotated so the whole suite uses every value. */
const perParameter = 1
const pick = <A>(values: ReadonlyArray<A>, seed: number): ReadonlyArray<A> =>
  Array.from({ length: Math.min(perParameter, values.length) }, (_, i) => values[(seed + i) % values.length]!)
const seedOf = (text: string) => [...text].reduce((hash, c) => (Math.imul(hash, 31) + c.charCodeAt(0)) | 0, 7) >>> 0

interface Probe {
  readonly operation: Operation
  readonly what: string
  readonly path: string
  readonly query: string
  readonly body: Option.Option<readonly [string, string]>
}

const kindOf = (schema: JsonSchema) => {
  const resolved = resolve(schema)
  return resolved.format === "date" ? "date" : resolved.type ?? "string"
}

/** Percent-encoded; an unpaired surrogate (which UTF-8 cannot carry) is sent as the bytes a careless client would send. */
const encode = (text: string) => {
  try {
    return encodeURIComponent(text)
  } catch {
    return "%ED%A0%80"
  }
}
const encodeQuery = (params: Record<string, unknown>) =>
  Object.entries(params).map(([name, value]) => `${name}=${encode(Array.isArray(value) ? value.join(",") : String(value))}`)

/** What an operation takes: a mirror (legacy session path, alias) takes what its twin takes. */
const signatureOf = (operation: Operation) =>
  JSON.stringify([
    operation.method,
    operation.parameters.map((p) => [p.in, p.name, kindOf(p.schema)]),
    Option.map(operation.body, ({ contentType, schema }) => [contentType, Object.keys(schema.properties ?? {})])
  ])

const probesOf = (operation: Operation, twinSeen: boolean): ReadonlyArray<Probe> => {
  const required = operation.parameters.filter((p) => p.required === true)
  const baseQuery = Object.fromEntries(required.filter((p) => p.in === "query").map((p) => [p.name, plausible(p.schema)]))
  const basePath = Object.fromEntries(operation.parameters.filter((p) => p.in === "path").map((p) => [p.name, String(plausible(p.schema))]))
  const fill = (path: Record<string, string>) => operation.path.replace(/\{(\w+)\}/g, (_, name: string) => path[name] ?? "x")
  const baseBody = Option.map(operation.body, ({ schema }) => plausible(schema) as Record<string, unknown>)
  const bodyOf = (value: unknown) => Option.map(operation.body, ({ contentType }) => {
    if (contentType.includes("json")) return [contentType, JSON.stringify(value)] as const
    if (contentType.includes("urlencoded")) return [contentType, encodeQuery(value as Record<string, unknown>).join("&")] as const
    return [contentType, Object.values(value as Record<string, unknown>).map(String).join("\n")] as const
  })
  const base = {
    operation,
    path: fill(basePath),
    query: encodeQuery(baseQuery).join("&"),
    body: Option.flatMap(baseBody, bodyOf)
  }
  const probes: Array<Probe> = []
  // A twin's parameters were probed already; its mirror gets one of them, and the whole bodies.
  for (const parameter of twinSeen ? operation.parameters.slice(0, 1) : operation.parameters) {
    if (parameter.in !== "query" && parameter.in !== "path") continue
    for (const bad of pick(badByKind[kindOf(parameter.schema)] ?? badText, seedOf(operation.path + parameter.name))) {
      const what = `${parameter.in} ${parameter.name}=${bad.slice(0, 40)}`
      if (parameter.in === "path") probes.push({ ...base, what, path: fill({ ...basePath, [parameter.name]: bad }) })
      else {
        const others = encodeQuery(Object.fromEntries(Object.entries(baseQuery).filter(([name]) => name !== parameter.name)))
        probes.push({ ...base, what, query: [...others, `${parameter.name}=${bad}`].join("&") })
      }
    }
  }
  for (const body of Option.toArray(operation.body)) {
    const fields = twinSeen ? [] : Object.keys(body.schema.properties ?? {})
    for (const field of fields) {
      for (const bad of pick(badJson, seedOf(operation.path + field))) {
        const value = { ...Option.getOrElse(baseBody, () => ({})), [field]: bad }
        probes.push({ ...base, what: `body ${field}=${JSON.stringify(bad).slice(0, 40)}`, body: bodyOf(value) })
      }
    }
    for (const [contentType, text] of badBodies) {
      probes.push({ ...base, what: `body ${contentType} ${text.slice(0, 30)}`, body: Option.some([contentType, text]) })
    }
  }
  return probes
}

const adminToken = "fuzz-admin-token-0123456789"
const server = testServer({
  config: { adminToken: Option.some(Redacted.make(adminToken)), rateLimitPerMinute: 100_000 }
}).pipe(Layer.provide(TestDatabase))

/** What the answer must be: never a 5xx; a 400 or 413 is `{ success: false, error }` in one short line. */
const problemWith = (answer: Answer): Option.Option<string> => {
  if (answer.status >= 500) return Option.some(`status ${answer.status}: ${answer.body.slice(0, 200)}`)
  if (answer.status !== 400 && answer.status !== 413) return Option.none()
  try {
    const body = JSON.parse(answer.body)
    const keys = Object.keys(body)
    if (keys.length !== 2 || body.success !== false || typeof body.error !== "string") return Option.some(`not the envelope: ${answer.body.slice(0, 200)}`)
    if (body.error.length > 300 || /[\r\n]/.test(body.error)) return Option.some(`error not one short line (${body.error.length} chars)`)
    return Option.none()
  } catch {
    return Option.some(`not JSON: ${answer.body.slice(0, 200)}`)
  }
}

/**
 * The fuzzing test of one shard (1 to `shards`) of the probes: every `shards`-th of them, from the
 * `shard`-th. The probes cost about 10 ms of CPU each, server and client in one process, and the
 * shards run side by side in files of their own (test/fuzz.test.ts, fuzz2.test.ts, fuzz3.test.ts): together
 * they send every probe once.
 */
export const fuzzShard = (shard: number, shards: number) =>
  describe(`contract-driven fuzzing (issue 16), probes ${shard} of every ${shards}`, () => {
    layer(server)((it) => {
      it.effect("no operation answers a 5xx or a malformed refusal, whatever its parameters carry", () =>
        Effect.gen(function*() {
          const { url } = yield* TestServer
          const owner = yield* account({ plan: "premium", password: "fuzz-password-1", patch: { monthly_limit: 1_000_000 } })
          const session = yield* signIn(owner.email, "fuzz-password-1")
          const { origin } = yield* sameOrigin
          const credentials = (operation: Operation): Record<string, string> => {
            const schemes = new Set(operation.security.flatMap((s) => Object.keys(s)))
            if (schemes.has("AdminToken")) return { authorization: `Bearer ${adminToken}` }
            if (schemes.has("ApiKeyHeader")) return { "x-api-key": owner.api_key }
            if (schemes.has("SessionCookie")) return { cookie: session.cookie, origin }
            return { origin }
          }
          const seen = new Set<string>()
          const probes = [...operations, ...mirrors].flatMap((operation) => {
            const signature = signatureOf(operation)
            const twinSeen = seen.has(signature)
            seen.add(signature)
            return probesOf(operation, twinSeen)
          }).filter((_, i) => i % shards === shard - 1)
          const problems: Array<string> = []
          const statuses = new Map<number, number>()
          const started = performance.now()
          yield* Effect.forEach(probes, (probe) =>
            Effect.promise(async () => {
              const target = `${url}${probe.path}${probe.query === "" ? "" : `?${probe.query}`}`
              const headers: Record<string, string> = { ...credentials(probe.operation) }
              const init: RequestInit = { method: probe.operation.method, headers }
              if (Option.isSome(probe.body)) {
                headers["content-type"] = probe.body.value[0]
                init.body = probe.body.value[1]
              }
              const response = await fetch(target, init)
              const answer: Answer = { status: response.status, headers: response.headers, body: await response.text() }
              statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
              Option.map(problemWith(answer), (problem) => problems.push(`${probe.operation.method} ${probe.operation.path} ${probe.what}: ${problem}`))
            }), { concurrency: 6, discard: true })
          const seconds = ((performance.now() - started) / 1000).toFixed(1)
          console.log(`${operations.length} operations and ${mirrors.length} mirrors, shard ${shard} of ${shards}: ${probes.length} requests in ${seconds} s; statuses ${JSON.stringify(Object.fromEntries(statuses))}`)
          expect(problems).toEqual([])
          // The probes reached validation: most of them are refused as bad input.
          expect(statuses.get(400) ?? 0).toBeGreaterThan(probes.length / 2)
          expect(operations.length).toBeGreaterThan(180)
          expect(mirrors.length).toBeGreaterThan(150)
        }), { timeout: 120_000 })
    })
  })
