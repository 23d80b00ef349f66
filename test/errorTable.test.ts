import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Option, Schema, SchemaAST } from "effect"
import * as fs from "node:fs"
import { Unauthorized } from "../src/access/gateway/Api.js"
import { AdIntelApi } from "../src/app/Api.js"
import { keepsCreditAst } from "../src/kernel/Envelope.js"
import { NotFoundBody } from "../src/kernel/Errors.js"

/**
 * The error table (issue 43): every failure the contract declares, on every route, its
 * middleware's included, walked through `HttpApi.reflect` as the platform serves it. A declared
 * failure must not answer 500 unless it is the 500 envelope itself, and must not carry `_tag`
 * on the wire. The table it yields is the one `docs/SPEC-NOTES.md` prints ("The error table").
 */

interface Declared {
  /** The failure's name on the wire: its schema's identifier (`envelope` names it by its tag). */
  readonly name: string
  readonly status: number
  /** Its wire body's fields, in order. */
  readonly fields: ReadonlyArray<string>
  readonly ast: SchemaAST.AST
}

const membersOf = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.AST> => SchemaAST.isUnion(ast) ? ast.types.flatMap(membersOf) : [ast]

const declared = (ast: SchemaAST.AST): Declared => {
  const wire = SchemaAST.encodedAST(ast)
  const sides = SchemaAST.isTransformation(ast) ? [ast.from, ast.to] : [ast]
  const name = Option.getOrElse(Option.firstSomeOf(sides.map(SchemaAST.getIdentifierAnnotation)), () => String(ast))
  return {
    name,
    status: HttpApiSchema.getStatusErrorAST(ast),
    fields: SchemaAST.isTypeLiteral(wire) ? wire.propertySignatures.map((signature) => String(signature.name)) : [],
    ast
  }
}

/** Every failure each route of `api` declares (its own, its group's, the API's and its middleware's), with the route. */
const walk = (api: HttpApi.HttpApi.Any) => {
  const found: Array<Declared & { readonly route: string }> = []
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, errors, middleware }) => {
      const route = `${endpoint.method} ${endpoint.path}`
      for (const [, { ast }] of errors) {
        for (const member of Option.match(ast, { onNone: () => [], onSome: membersOf })) found.push({ ...declared(member), route })
      }
      for (const tag of middleware) {
        for (const member of membersOf(tag.failure.ast)) found.push({ ...declared(member), route })
      }
    }
  })
  return found
}

/**
 * Failures the platform declares on every API that the service's conventions answer otherwise
 * (app/Server.ts `ConventionsLive`): a request that does not decode is G11's `InvalidRequest`.
 * `/openapi.json` leaves them out alike (app/Api.ts).
 */
const answeredOtherwise = new Set(["HttpApiDecodeError"])

/** What is wrong with a declared failure: it answers 500 without being the 500 envelope, or its body carries `_tag`. */
const faults = (api: HttpApi.HttpApi.Any): ReadonlyArray<string> =>
  walk(api).filter((failure) => !answeredOtherwise.has(failure.name)).flatMap((failure) => [
    ...(failure.status === 500 && failure.name !== "InternalServerError" ? [`${failure.route}: ${failure.name} answers 500`] : []),
    ...(failure.fields.includes("_tag") ? [`${failure.route}: ${failure.name} carries _tag on the wire`] : [])
  ])

/** The table by failure: each once, with its status, its body's fields and what a metered call answered with it does with its credit (G4). */
const table = (api: HttpApi.HttpApi.Any) => {
  const byName = new Map<string, Declared>()
  for (const failure of walk(api)) if (!byName.has(failure.name) && !answeredOtherwise.has(failure.name)) byName.set(failure.name, failure)
  return [...byName.values()]
    .sort((a, b) => a.status - b.status || a.name.localeCompare(b.name))
    .map(({ ast, fields, name, status }) => `| ${name} | ${status} | ${fields.join(", ")} | ${keepsCreditAst(ast) ? "kept" : "given back"} |`)
}

describe("the error table (issue 43)", () => {
  it("no failure the contract declares answers 500 (but the 500 envelope) or carries _tag on the wire", () => {
    expect(walk(AdIntelApi).length).toBeGreaterThan(500)
    expect(faults(AdIntelApi)).toEqual([])
  })

  it("a route that declares a failure's class instead of its envelope is caught", () => {
    class Undeclared extends Schema.TaggedError<Undeclared>()("Undeclared", { error: Schema.String }) {}
    const api = HttpApi.make("probe").add(
      HttpApiGroup.make("probe")
        .add(HttpApiEndpoint.get("classOnly", "/class-only").addSuccess(Schema.String).addError(Unauthorized))
        .add(HttpApiEndpoint.get("noStatus", "/no-status").addSuccess(Schema.String).addError(Undeclared))
        .add(HttpApiEndpoint.get("envelope", "/envelope").addSuccess(Schema.String).addError(NotFoundBody))
    )
    expect(faults(api)).toEqual([
      "GET /class-only: Unauthorized carries _tag on the wire",
      "GET /no-status: Undeclared answers 500",
      "GET /no-status: Undeclared carries _tag on the wire"
    ])
  })

  it("docs/SPEC-NOTES.md prints the table the contract declares", () => {
    const notes = fs.readFileSync("docs/SPEC-NOTES.md", "utf8")
    const section = notes.slice(notes.indexOf("## The error table"))
    const printed = section.split("\n").filter((line) => /^\| [A-Z]\w* \| \d{3} \|/.test(line))
    expect(printed).toEqual(table(AdIntelApi))
  })
})
